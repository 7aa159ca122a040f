import AsyncHTTPClient
import Foundation
import Logging
import S3Partition
import WIFCredentials
import WIFFoundation
import WIFHTTP

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The steps of a SeaweedFS set-up that talk to the world: reading the issuer's discovery document and
/// keys, writing the IAM config, and creating the bucket (`wif-tool engine seaweedfs setup` runs them).
package enum SeaweedFSSetup {
    /// What an issuer's discovery document says, and how many keys its JWKS holds.
    package struct DiscoveredIssuer: Sendable, Equatable {
        /// The tokens' `iss`.
        package var issuer: String
        /// Where SeaweedFS fetches the keys.
        package var jwksURI: String
        /// How many RSA keys SeaweedFS can verify tokens with.
        package var keyCount: Int
    }

    /// Reads `<base>/.well-known/openid-configuration`, then the JWKS it names, which must hold at least
    /// one RSA key with `n` and `e` (SeaweedFS verifies RS256 tokens with those).
    /// - Parameters:
    ///   - issuerURL: Where the issuer serves its discovery document.
    ///   - httpClient: The HTTP client.
    ///   - timeout: How long each request may take.
    ///   - logger: Where to log.
    /// - Returns: The issuer, where its keys are, and how many of them SeaweedFS can use.
    /// - Throws: ``EngineSetupError`` with code ``EngineSetupError/Code/network`` when either document
    ///   cannot be fetched, ``EngineSetupError/Code/invalidIssuer`` when one is not what an OpenID Connect
    ///   issuer serves.
    package static func discover(
        issuerURL: URL, httpClient: HTTPClient, timeout: Duration = .seconds(30), logger: Logger = .noop
    ) async throws(EngineSetupError) -> DiscoveredIssuer {
        let documents = try await IssuerDocuments.fetch(
            issuer: issuerURL.absoluteString, transport: AsyncHTTPClientTransport(httpClient: httpClient), timeout: timeout,
            logger: logger)
        guard let issuer = documents.issuer, !issuer.isEmpty else {
            throw .invalidIssuer("the discovery document at \(documents.discoveryURL) has no issuer")
        }
        let usable = documents.keys.filter {
            $0.member("kty")?.stringValue == "RSA" && $0.member("n")?.stringValue != nil && $0.member("e")?.stringValue != nil
        }
        guard !usable.isEmpty else {
            throw .invalidIssuer("the JWKS at \(documents.jwksURI) has no RSA key with 'n' and 'e', which SeaweedFS needs to verify tokens")
        }
        return DiscoveredIssuer(issuer: issuer, jwksURI: documents.jwksURI, keyCount: usable.count)
    }

    /// The signing key to keep from an existing config file, or a new one when there is no file.
    /// - Parameter file: The IAM config file.
    /// - Returns: The key, base64.
    /// - Throws: ``EngineSetupError`` with code ``EngineSetupError/Code/fileError`` when the file exists but
    ///   cannot be read.
    package static func signingKey(keptIn file: URL) throws(EngineSetupError) -> String {
        guard FileManager.default.fileExists(atPath: file.path) else { return SeaweedFSIAMConfig.newSigningKey() }
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            throw .fileError("cannot read the IAM config \(file.path): \(FileFailure.reason(error, path: file.path))")
        }
        try Self.checkReplaceable(data, file: file)
        return SeaweedFSIAMConfig.existingSigningKey(in: data) ?? SeaweedFSIAMConfig.newSigningKey()
    }

    /// The members of the IAM config this setup writes; a file with others was not written by it.
    static let writtenMembers: Set<String> = ["policies", "policy", "roles", "sts"]

    /// Refuses to replace a file that is not an IAM config this setup wrote (notes, another program's
    /// JSON, a config with identities or accounts of its own), which replacing would lose.
    static func checkReplaceable(_ data: Data, file: URL) throws(EngineSetupError) {
        let bytes = Array(data)
        guard bytes.contains(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) else { return }
        let advice = "it was left as it is: name another --iam-config file, or move it away"
        let root: JSONNode
        do {
            root = try JSONParser.parse(bytes)
        } catch {
            let (line, column) = JSONParser.location(of: error.offset, in: bytes)
            throw .fileError("\(file.path) is not an IAM config (not JSON: line \(line), column \(column)); \(advice)")
        }
        guard case .object(let members) = root.kind else {
            throw .fileError("\(file.path) is not an IAM config (its JSON is \(root.typeName), not an object); \(advice)")
        }
        let others = members.map(\.key).filter { !Self.writtenMembers.contains($0) }
        guard others.isEmpty else {
            throw .fileError("\(file.path) holds \(others.joined(separator: ", ")), which this setup does not write and would lose; \(advice)")
        }
    }

    /// Writes `contents` to `file` readable by its owner only (it holds the STS signing key), replacing it
    /// atomically, unless it already holds exactly that.
    /// - Parameters:
    ///   - contents: The file's bytes.
    ///   - file: The IAM config file.
    /// - Returns: Whether the file changed.
    /// - Throws: ``EngineSetupError`` with code ``EngineSetupError/Code/fileError`` when it cannot be written.
    package static func write(_ contents: Data, to file: URL) throws(EngineSetupError) -> Bool {
        if let existing = FileManager.default.contents(atPath: file.path), existing == contents { return false }
        do {
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            let temporary = file.deletingLastPathComponent().appendingPathComponent(".\(file.lastPathComponent).\(UUID().uuidString)")
            guard FileManager.default.createFile(atPath: temporary.path, contents: contents, attributes: [.posixPermissions: 0o600]) else {
                throw CocoaError(.fileWriteUnknown)
            }
            if rename(temporary.path, file.path) != 0 {
                let code = errno
                try? FileManager.default.removeItem(at: temporary)
                throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
            }
        } catch {
            throw .fileError("cannot write the IAM config \(file.path): \(FileFailure.reason(error, path: file.path))")
        }
        return true
    }

    /// Whether ``createBucket(_:endpoint:credentials:region:httpClient:logger:)`` made the bucket or found it.
    package enum BucketOutcome: String, Sendable {
        case created
        case existing = "already there"
    }

    /// Creates the bucket with the S3 client (path style); a bucket the caller already owns is fine.
    /// - Parameters:
    ///   - bucket: The bucket.
    ///   - endpoint: SeaweedFS's S3 endpoint.
    ///   - credentials: The admin identity's keys.
    ///   - region: The region to sign for.
    ///   - httpClient: The HTTP client.
    ///   - logger: Where to log.
    /// - Returns: Whether the bucket was created or already there.
    /// - Throws: ``EngineSetupError`` with the S3 client's code (kept in ``EngineSetupError/s3Error``):
    ///   ``EngineSetupError/Code/network`` when SeaweedFS cannot be reached,
    ///   ``EngineSetupError/Code/invalidAccessKeyId`` or ``EngineSetupError/Code/signatureDoesNotMatch``
    ///   when it does not know the credentials, ``EngineSetupError/Code/accessDenied`` when they may not
    ///   create buckets, or any other refusal with S3's code, message and request id.
    package static func createBucket(
        _ bucket: String, endpoint: URL, credentials: AWSCredentials, region: String, httpClient: HTTPClient,
        logger: Logger = .noop
    ) async throws(EngineSetupError) -> BucketOutcome {
        do {
            let s3 = try S3Client(
                configuration: S3Client.Configuration(
                    region: region, endpoint: endpoint.absoluteString, addressingStyle: .path, timeout: .seconds(60)),
                credentialProvider: StaticCredentialProvider(credentials: credentials), environment: [:], httpClient: httpClient)
            return try await s3.createBucketIfMissing(bucket, logger: logger) ? .created : .existing
        } catch let error as S3Error {
            throw Self.bucketError(error, bucket: bucket, endpoint: endpoint)
        } catch {
            throw .network("cannot reach SeaweedFS at \(endpoint.absoluteString) to create the bucket: \(error)")
        }
    }

    /// The error for a bucket SeaweedFS did not create, saying what to do about it.
    static func bucketError(_ error: S3Error, bucket: String, endpoint: URL) -> EngineSetupError {
        var detail = error.code.rawValue
        if !error.message.isEmpty { detail += ": " + error.message }
        if let requestId = error.requestId, !requestId.isEmpty { detail += " [request id \(requestId)]" }
        let reason: String
        switch error.code {
        case .network:
            reason = "cannot reach SeaweedFS at \(endpoint.absoluteString) to create the bucket: \(error.message)"
        case .invalidAccessKeyId, .signatureDoesNotMatch:
            reason = "SeaweedFS refused the admin credentials while creating the bucket '\(bucket)' (\(detail)); use the admin identity's keys"
        case .accessDenied:
            reason = "these credentials may not create the bucket '\(bucket)' (\(detail)); use an admin identity"
        case S3Error.Code("BucketAlreadyExists"):
            reason = "the bucket '\(bucket)' belongs to another identity (\(detail))"
        default:
            reason = "SeaweedFS did not create the bucket '\(bucket)': \(detail)\(error.httpStatus.map { " (HTTP \($0))" } ?? "")"
        }
        return EngineSetupError(
            code: EngineSetupError.Code(error.code.rawValue), reason: reason, httpStatus: error.httpStatus, requestId: error.requestId,
            s3Error: error, credentialsError: error.credentialsError)
    }
}
