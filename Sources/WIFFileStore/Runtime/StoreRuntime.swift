import AsyncHTTPClient
import Foundation
import Logging
import S3Partition
import WIFCredentials
import WIFLocal

/// Where a file-store command sends its requests: the configured endpoints, or the embedded local stack
/// started for the length of the command.
struct StoreContext: Sendable {
    let configuration: ToolConfiguration
    let s3Endpoint: URL
    let stsEndpoint: URL
    /// The embedded stack, when the command runs against it.
    let local: LocalEndpoint?
    /// The HTTP client for STS and S3 requests.
    let httpClient: HTTPClient
    let logger: Logger
}

enum StoreRuntime {
    /// Runs `body` against the configured target, starting the embedded stack first when that is the
    /// target (its data under `<home>/local`, on a free loopback port) and stopping it afterwards.
    static func withTarget<T: Sendable>(
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
                        throw CommandFailure(status: .network, message: "the embedded stack reported an unusable address \(endpoint.url)")
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
    static func withHTTPClient<T: Sendable>(_ body: (HTTPClient) async throws -> T) async throws -> T {
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

    /// Runs the embedded stack around `body`, reporting start-up failures as command failures.
    static func withEmbeddedStack<T: Sendable>(
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
            throw CommandFailure(status: .io, message: "cannot start the embedded local stack in \(configuration.dataDirectory): \(error)")
        }
    }

    /// The stored sign-in of the configured account, checked to belong to the configured target, and
    /// where it is stored.
    /// - Throws: `CommandFailure` (auth) when there is none or it was made for another endpoint; what
    ///   ``SecretStore`` reports when the encrypted store cannot be opened.
    static func signedInSession(
        _ configuration: ToolConfiguration,
        environment: [String: String]
    ) throws(CommandFailure) -> (session: StoredSession, store: SessionStore) {
        let accountFlag = configuration.account.map { " --account \($0)" } ?? ""
        let store = try configuration.sessionStore(environment: environment)
        guard let session = try store.load() else {
            let how: String
            switch configuration.target {
            case .embedded: how = "wif-tool login --dev USER\(accountFlag)"
            case .remote: how = "wif-tool login --token-file FILE --provider PROVIDER --role-arn ARN\(accountFlag)"
            }
            throw CommandFailure(status: .auth, message: "not signed in\(configuration.account.map { " as account '\($0)'" } ?? ""); run '\(how)' first")
        }
        let target = configuration.target.identifier
        guard session.target == target else {
            throw CommandFailure(
                status: .auth,
                message: "the stored sign-in is for \(Self.describe(target: session.target)), but this command uses \(Self.describe(target: target)); sign in again: \(SignIn.loginHint(for: session, account: configuration.account))"
            )
        }
        return (session, store)
    }

    static func describe(target: String) -> String {
        target == ToolConfiguration.embeddedName ? "the embedded local stack" : "the endpoint \(target)"
    }

    /// Creates a folder readable by its owner only, when missing.
    static func createPrivateFolder(_ url: URL) throws(CommandFailure) {
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw CommandFailure(status: .io, message: "cannot create \(url.path): \(error.localizedDescription)")
        }
    }
}

/// Runs a file-store command body, turning library errors into one-line messages with the documented
/// exit status.
func reportingStoreErrors(_ body: () async throws -> Void) async throws {
    try await reportingErrors {
        do {
            try await body()
        } catch let error as S3Error {
            throw CommandFailure(status: ExitStatus.classify(s3: error), message: ExitStatus.message(s3: error))
        } catch let error as LocalStackError {
            throw CommandFailure(status: .failure, message: "local stack: \(error)")
        }
    }
}

extension ExitStatus {
    /// The exit status that fits an S3Partition error.
    static func classify(s3 error: S3Error) -> ExitStatus {
        switch error.code {
        case .invalidObjectName, .invalidUserId, .invalidPrefixTemplate, .invalidConfiguration, .invalidBucketName,
            .keyTooLong, .invalidArgument:
            return .usage
        case .accessDenied, .preflightDenied:
            return .denied
        case .noSuchKey, .noSuchBucket, .notFound:
            return .notFound
        case .invalidAccessKeyId, .expiredToken, .invalidToken, .signatureDoesNotMatch:
            return .auth
        case .credentialsUnavailable:
            return error.credentialsError.map { ExitStatus.classify($0) } ?? .auth
        case .fileError:
            return .io
        default:
            return .network
        }
    }

    /// The message for an S3Partition error: the refused name's rule, the credential problem, or S3's
    /// code and message with the request id.
    static func message(s3 error: S3Error) -> String {
        switch error.code {
        case .invalidObjectName, .invalidUserId, .invalidPrefixTemplate, .fileError, .invalidConfiguration:
            return error.message
        case .credentialsUnavailable:
            return error.credentialsError?.reason ?? error.message
        default:
            let text = error.description
            return text.hasPrefix("S3Error.") ? String(text.dropFirst("S3Error.".count)) : text
        }
    }
}
