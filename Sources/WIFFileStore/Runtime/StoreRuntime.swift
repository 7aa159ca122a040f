import AsyncHTTPClient
import Foundation
import Logging
import S3Partition
import WIFCredentials
import WIFFoundation
import WIFLocal

/// Where a file-store command sends its requests: the configured endpoints, or the embedded local stack
/// started for the length of the command.
public struct StoreContext: Sendable {
    /// The settings of the command.
    public let configuration: ToolConfiguration
    /// Where S3 requests go.
    public let s3Endpoint: URL
    /// Where STS requests go.
    public let stsEndpoint: URL
    /// The embedded stack, when the command runs against it.
    public let local: LocalEndpoint?
    /// The HTTP client for STS and S3 requests.
    public let httpClient: HTTPClient
    /// Where to log.
    public let logger: Logger

    /// The federation into `bucket` through this context's STS and S3, the role session names and
    /// region as given.
    /// - Parameters:
    ///   - roleArn: The role to assume.
    ///   - bucket: The shared bucket.
    ///   - partitionTemplate: The folder template.
    ///   - durationSeconds: The credentials' lifetime, or `nil` for the role's.
    ///   - stsRegion: The region STS requests are signed for; by default the configured one.
    /// - Returns: The federation.
    /// - Throws: ``WIFCredentialsError`` `invalidConfiguration` for an unusable STS endpoint or region.
    public func federation(
        roleArn: String, bucket: String, partitionTemplate: String, durationSeconds: Int? = nil, stsRegion: String? = nil
    ) throws -> WebIdentityFederation {
        let sts = try STSClient(
            configuration: STSClient.Configuration(
                region: stsRegion ?? self.configuration.region, endpoint: self.stsEndpoint.absoluteString,
                deadline: self.configuration.stsDeadline),
            environment: [:],
            httpClient: self.httpClient)
        return WebIdentityFederation(
            sts: sts,
            s3: S3Client.Configuration(region: self.configuration.region, endpoint: self.s3Endpoint.absoluteString),
            roleArn: roleArn, bucket: bucket, partitionTemplate: partitionTemplate, durationSeconds: durationSeconds,
            httpClient: self.httpClient)
    }
}

/// Runs file-store work against its target: the HTTP client, the embedded local stack, the sign-in.
public enum StoreRuntime {
    /// Runs `body` against the configured target, starting the embedded stack first when that is the
    /// target (its data under `<home>/local`, on a free loopback port) and stopping it afterwards.
    /// - Parameters:
    ///   - configuration: The settings.
    ///   - logger: Where to log.
    ///   - body: The work.
    /// - Returns: What `body` returns.
    /// - Throws: ``FileStoreError`` when the embedded stack cannot start; what `body` throws.
    public static func withTarget<T: Sendable>(
        _ configuration: ToolConfiguration,
        logger: Logger,
        _ body: (StoreContext) async throws -> T
    ) async throws -> T {
        try await Self.withHTTPClient { httpClient in
            switch configuration.target {
            case .remote(let s3, let sts):
                return try await body(
                    StoreContext(
                        configuration: configuration, s3Endpoint: s3, stsEndpoint: sts, local: nil, httpClient: httpClient, logger: logger))
            case .embedded(let dataDirectory):
                try Self.createPrivateFolder(configuration.home)
                var local = LocalConfiguration.default(dataDirectory: dataDirectory.path)
                local.port = 0
                local.region = configuration.region
                return try await Self.withEmbeddedStack(local, logger: logger) { endpoint in
                    guard let url = URL(string: endpoint.url) else {
                        throw FileStoreError(.unreachable, "the embedded stack reported an unusable address \(endpoint.url)")
                    }
                    return try await body(
                        StoreContext(
                            configuration: configuration, s3Endpoint: url, stsEndpoint: url, local: endpoint, httpClient: httpClient,
                            logger: logger))
                }
            }
        }
    }

    /// Runs `body` with an HTTP client that reports a refused connection at once (the STS and S3
    /// clients retry it themselves) instead of retrying it until the request's deadline, then shuts
    /// the client down.
    /// - Parameter body: The work.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    public static func withHTTPClient<T: Sendable>(_ body: (HTTPClient) async throws -> T) async throws -> T {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        // Room for a batch of files moving at once, each of them in parallel parts when large.
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = FileBatch.maximumWidth
        configuration.timeout.connect = .seconds(10)
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let result: Result<T, any Error>
        do {
            result = .success(try await body(client))
        } catch {
            result = .failure(error)
        }
        try? await client.shutdown()
        return try result.get()
    }

    /// Runs the embedded stack around `body`, reporting start-up failures as ``FileStoreError``.
    /// - Parameters:
    ///   - configuration: The stack's settings.
    ///   - logger: Where to log.
    ///   - body: The work, given the stack's endpoint.
    /// - Returns: What `body` returns.
    /// - Throws: ``FileStoreError`` `fileError` when the stack cannot start; what `body` throws.
    public static func withEmbeddedStack<T: Sendable>(
        _ configuration: LocalConfiguration,
        logger: Logger,
        _ body: (LocalEndpoint) async throws -> T
    ) async throws -> T {
        var started = false
        do {
            return try await LocalStack.run(configuration, logger: logger) { endpoint in
                started = true
                return try await body(endpoint)
            }
        } catch let error as LocalStackError where !started {
            throw FileStoreError.fileError("cannot start the embedded local stack in \(configuration.dataDirectory): \(error)")
        }
    }

    /// The stored sign-in of the configured account, where it is stored, and the settings to act for
    /// it with (``ToolConfiguration/forSignIn(_:)``: the sign-in's endpoint when the command has none
    /// of its own). The encrypted store is opened once.
    /// - Parameters:
    ///   - configuration: The settings.
    ///   - environment: The process environment (`WIF_PASSPHRASE`, `WIF_KEY_FILE`).
    /// - Returns: The sign-in, its store, and the settings for it.
    /// - Throws: ``FileStoreError`` `signInRequired` when there is none or the command's own endpoint
    ///   is another; what ``SecretStore`` reports when the encrypted store cannot be opened.
    public static func signedInSession(
        _ configuration: ToolConfiguration,
        environment: [String: String]
    ) throws -> (session: StoredSession, store: SessionStore, configuration: ToolConfiguration) {
        let store = try configuration.sessionStore(environment: environment)
        guard let session = try store.load() else {
            let accountFlag = configuration.account.map { " --account \($0)" } ?? ""
            let how: String
            switch configuration.target {
            case .embedded: how = "wif-tool login --dev USER\(accountFlag)"
            case .remote: how = "wif-tool login --token-file FILE --provider PROVIDER --role-arn ARN\(accountFlag)"
            }
            throw FileStoreError.signInRequired("not signed in\(configuration.account.map { " as account '\($0)'" } ?? ""); run '\(how)' first")
        }
        return (session, store, try configuration.forSignIn(session))
    }

    /// `the embedded local stack`, or `the endpoint URL`.
    /// - Parameter target: A session's target: `embedded` or the S3 endpoint URL.
    /// - Returns: The description.
    public static func describe(target: String) -> String {
        target == ToolConfiguration.embeddedName ? "the embedded local stack" : "the endpoint \(target)"
    }

    /// Creates a folder readable by its owner only, when missing.
    /// - Parameter url: The folder.
    /// - Throws: ``FileStoreError`` `fileError` when it cannot be created.
    public static func createPrivateFolder(_ url: URL) throws(FileStoreError) {
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw FileStoreError.fileError("cannot create \(url.path): \(FileFailure.reason(error, path: url.path))")
        }
    }
}
