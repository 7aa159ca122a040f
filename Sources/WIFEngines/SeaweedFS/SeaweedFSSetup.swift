import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import WIFCredentials
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
        var base = issuerURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        let discoveryURL = base + "/.well-known/openid-configuration"
        let discovery = try await Self.fetchJSON(
            discoveryURL, what: "the issuer's discovery document", httpClient: httpClient, timeout: timeout, logger: logger)
        guard let issuer = discovery["issuer"] as? String, !issuer.isEmpty else {
            throw .invalidIssuer("the discovery document at \(discoveryURL) has no issuer")
        }
        guard let jwksURI = discovery["jwks_uri"] as? String, !jwksURI.isEmpty else {
            throw .invalidIssuer("the discovery document at \(discoveryURL) has no jwks_uri")
        }
        let jwks = try await Self.fetchJSON(jwksURI, what: "the issuer's keys", httpClient: httpClient, timeout: timeout, logger: logger)
        let keys = (jwks["keys"] as? [[String: Any]]) ?? []
        let usable = keys.filter { $0["kty"] as? String == "RSA" && $0["n"] is String && $0["e"] is String }
        guard !usable.isEmpty else {
            throw .invalidIssuer("the JWKS at \(jwksURI) has no RSA key with 'n' and 'e', which SeaweedFS needs to verify tokens")
        }
        return DiscoveredIssuer(issuer: issuer, jwksURI: jwksURI, keyCount: usable.count)
    }

    private static func fetchJSON(
        _ url: String, what: String, httpClient: HTTPClient, timeout: Duration, logger: Logger
    ) async throws(EngineSetupError) -> [String: Any] {
        let body: ByteBuffer
        let status: UInt
        do {
            let response = try await httpClient.execute(
                HTTPClientRequest(url: url), timeout: .nanoseconds(timeout.saturatingNanoseconds), logger: logger)
            status = response.status.code
            body = try await response.body.collect(upTo: 1 << 20)
        } catch {
            throw .network("cannot read \(what) at \(url): \(error)")
        }
        guard status == 200 else {
            throw .network("\(what) at \(url) answered HTTP \(status)", httpStatus: Int(status))
        }
        guard let object = try? JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any] else {
            throw .invalidIssuer("\(what) at \(url) is not a JSON object")
        }
        return object
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
            throw .fileError("cannot read the IAM config \(file.path): \(error.localizedDescription)")
        }
        return SeaweedFSIAMConfig.existingSigningKey(in: data) ?? SeaweedFSIAMConfig.newSigningKey()
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
            throw .fileError("cannot write the IAM config \(file.path): \(error.localizedDescription)")
        }
        return true
    }

    /// Whether ``createBucket(_:endpoint:credentials:region:httpClient:logger:)`` made the bucket or found it.
    package enum BucketOutcome: String, Sendable {
        case created
        case existing = "already there"
    }

    /// Creates the bucket with a SigV4-signed `PUT /BUCKET` (path style); a bucket the caller already
    /// owns is fine.
    /// - Throws: ``EngineSetupError``: ``EngineSetupError/Code/network`` when SeaweedFS cannot be reached;
    ///   ``EngineSetupError/Code/invalidAccessKeyId`` or ``EngineSetupError/Code/signatureDoesNotMatch``
    ///   when it does not know the credentials; ``EngineSetupError/Code/accessDenied`` when they may not
    ///   create buckets; any other refusal with S3's code, message and request id.
    package static func createBucket(
        _ bucket: String, endpoint: URL, credentials: AWSCredentials, region: String, httpClient: HTTPClient,
        logger: Logger = .noop
    ) async throws -> BucketOutcome {
        let url = endpoint.appendingPathComponent(bucket)
        var request = try SigV4Request(method: "PUT", url: url)
        let signer = SigV4Signer(credentials: credentials, region: region, service: "s3")
        try signer.sign(&request, payload: .empty, date: Date())
        var outgoing = HTTPClientRequest(url: request.urlString)
        outgoing.method = .PUT
        for header in request.headers where header.name.lowercased() != "host" {
            outgoing.headers.add(name: header.name, value: header.value)
        }
        let status: UInt
        let body: ByteBuffer
        do {
            let response = try await httpClient.execute(outgoing, timeout: .seconds(60), logger: logger)
            status = response.status.code
            body = try await response.body.collect(upTo: 1 << 20)
        } catch {
            throw EngineSetupError.network("cannot reach SeaweedFS at \(endpoint.absoluteString) to create the bucket: \(error)")
        }
        if (200..<300).contains(status) { return .created }
        let reply = S3ErrorReply(Data(body.readableBytesView))
        if status == 409, reply.code == "BucketAlreadyOwnedByYou" { return .existing }
        let detail = "\(reply.code ?? "HTTP \(status)")\(reply.message.map { ": \($0)" } ?? "")\(reply.requestId.map { " [request id \($0)]" } ?? "")"
        let code = EngineSetupError.Code(reply.code ?? "HTTP\(status)")
        let reason: String
        switch code {
        case .invalidAccessKeyId, .signatureDoesNotMatch:
            reason = "SeaweedFS refused the admin credentials while creating the bucket '\(bucket)' (\(detail)); use the admin identity's keys"
        case .accessDenied:
            reason = "these credentials may not create the bucket '\(bucket)' (\(detail)); use an admin identity"
        case .bucketAlreadyExists:
            reason = "the bucket '\(bucket)' belongs to another identity (\(detail))"
        default:
            reason = "SeaweedFS did not create the bucket '\(bucket)': \(detail) (HTTP \(status))"
        }
        throw EngineSetupError(code: code, reason: reason, httpStatus: Int(status), requestId: reply.requestId)
    }
}

/// The code, message and request id of an S3 `<Error>` reply, read leniently: servers that are not AWS
/// sometimes answer with HTML or nothing at all.
struct S3ErrorReply: Equatable {
    var code: String?
    var message: String?
    var requestId: String?

    init(code: String?, message: String?, requestId: String?) {
        self.code = code
        self.message = message
        self.requestId = requestId
    }

    /// Reads the reply's body.
    init(_ data: Data) {
        let text = String(decoding: data, as: UTF8.self)
        func element(_ name: String) -> String? {
            guard let open = text.range(of: "<\(name)>"),
                let close = text.range(of: "</\(name)>", range: open.upperBound..<text.endIndex)
            else { return nil }
            let value = String(text[open.upperBound..<close.lowerBound])
            return value.isEmpty ? nil : Self.unescape(value)
        }
        self.code = element("Code")
        self.message = element("Message")
        self.requestId = element("RequestId")
    }

    private static func unescape(_ text: String) -> String {
        text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}
