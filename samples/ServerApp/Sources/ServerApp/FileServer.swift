import AccessRules
import AsyncHTTPClient
import Foundation
import Hummingbird
import Logging
import S3Partition
import WIFAPIServer
import WIFCredentials
import WIFFileStore

/// A small HTTP file store in which every user sees only their own folder of one shared S3 bucket.
///
/// Each request carries the user's identity-provider token (`Authorization: Bearer <ID token>`). The
/// server trades it for temporary AWS credentials with STS `AssumeRoleWithWebIdentity` — STS checks
/// the token's signature, issuer, audience and expiry — and serves the folder named after the subject
/// STS returns, through a ``S3Partition/PartitionedBucket``. The server holds no AWS keys of its own:
/// what a user may touch is decided by the role's policies, with that user's credentials.
///
/// | request | answer |
/// | --- | --- |
/// | `GET /files[?prefix=P]` | `200` ``FileListing`` |
/// | `PUT /files/<name>` | `201` ``StoredFile`` (the body is the file) |
/// | `GET /files/<name>` | `200` the file |
/// | `DELETE /files/<name>` | `204` (also when there was no such file) |
///
/// Failures are ``FileServerError`` JSON bodies: `401` without a token STS accepts, `400` for a name
/// that would leave the folder, `403` when a policy refuses, `404` for a missing file, `502` when STS
/// or S3 fail.
///
/// ```swift
/// let server = try FileServer(configuration: .init(roleArn: role, bucket: "shared", partitionTemplate: "google/{id}/"))
/// let app = Application(router: server.router(), configuration: .init(address: .hostname("0.0.0.0", port: 8080)))
/// try await app.runService()
/// ```
public struct FileServer: Sendable {
    /// The configuration the server runs with.
    public let configuration: Configuration
    /// Where bodies are spooled: the configured folder, or the private one created for this server.
    public let spoolDirectory: String

    let sessions: UserSessions
    let fileIO: FileIO
    /// The notes API's authenticator, when it is configured.
    let notesAuthenticator: APIAuthenticator?
    let noteRules: RuleEvaluator
    let notes = NoteStore()

    /// Creates a server, checking the configuration first.
    /// - Parameters:
    ///   - configuration: The role, bucket, folder template and endpoints.
    ///   - httpClient: The client for STS and S3 requests.
    ///   - environment: Consulted for a region and endpoints the configuration leaves unset.
    ///   - timeSource: The clock for session expiry, signatures and retries.
    /// - Throws: `WIFCredentialsError` (`invalidParameter`, `invalidConfiguration`) for an unusable role
    ///   ARN, duration, STS region or endpoint or session setting; `S3Error` for an unusable partition
    ///   template or S3 endpoint; a file-system error when the spool folder cannot be created.
    public init(
        configuration: Configuration,
        httpClient: HTTPClient = S3Client.sharedHTTPClient,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        timeSource: TimeSource = .system
    ) throws {
        try Self.validate(configuration)
        let sts = try STSClient(
            configuration: STSClient.Configuration(region: configuration.region, endpoint: configuration.stsEndpoint),
            environment: environment,
            httpClient: httpClient,
            timeSource: timeSource
        )
        let s3 = S3Client.Configuration(region: configuration.region, endpoint: configuration.s3Endpoint)
        _ = try S3Endpoint.resolve(s3, environment: environment)
        _ = try PartitionPrefix.make(template: configuration.partitionTemplate, userId: "user")

        let federation = Federation(
            federation: WebIdentityFederation(
                sts: sts,
                s3: s3,
                roleArn: configuration.roleArn,
                bucket: configuration.bucket,
                partitionTemplate: configuration.partitionTemplate,
                durationSeconds: configuration.durationSeconds,
                environment: environment,
                httpClient: httpClient,
                timeSource: timeSource
            ),
            maximumAge: configuration.sessions.maximumAge
        )
        self.configuration = configuration
        self.spoolDirectory = try Self.prepareSpoolDirectory(configuration.spoolDirectory)
        self.sessions = UserSessions(federation: federation, capacity: configuration.sessions.capacity)
        self.fileIO = FileIO()
        self.notesAuthenticator = configuration.notes.map { Self.notesAuthenticator($0, httpClient: httpClient) }
        self.noteRules = RuleEvaluator(ruleSet: try RuleSet(schema: Self.notesSchema))
    }

    /// The router serving `/files` and `/files/<name>`.
    /// - Returns: A router for ``AppContext``.
    public func router() -> Router<AppContext> {
        let router = Router(context: AppContext.self)
        router.add(middleware: LogRequestsMiddleware(.info))
        self.addRoutes(to: router.group("files"))
        if let authenticator = self.notesAuthenticator {
            self.addNoteRoutes(to: router.group("notes"), authenticator: authenticator)
        }
        return router
    }

    /// The application: the ``router()`` listening on the configured host and port.
    /// - Parameter logger: Where the server logs; requests at info, never tokens or credentials.
    /// - Returns: The application, to run with `runService()` or test with HummingbirdTesting.
    public func application(logger: Logger = Logger(label: "server-app")) -> some ApplicationProtocol {
        Application(
            router: self.router(),
            configuration: ApplicationConfiguration(
                address: .hostname(self.configuration.host, port: self.configuration.port),
                serverName: "server-app"
            ),
            logger: logger
        )
    }

    /// Checks the settings STS would refuse and the session settings.
    static func validate(_ configuration: Configuration) throws {
        try AssumeRoleWithWebIdentityRequest(
            roleArn: configuration.roleArn,
            roleSessionName: WebIdentityConfiguration.defaultRoleSessionName(at: Date(timeIntervalSince1970: 0)),
            durationSeconds: configuration.durationSeconds
        ).validate()
        if configuration.sessions.capacity < 1 {
            throw WIFCredentialsError.invalidConfiguration("sessions.capacity is \(configuration.sessions.capacity); it must be at least 1")
        }
        if configuration.sessions.maximumAge <= .zero {
            throw WIFCredentialsError.invalidConfiguration("sessions.maximumAge is \(configuration.sessions.maximumAge); it must be positive")
        }
        if configuration.maximumUploadBytes < 0 {
            throw WIFCredentialsError.invalidConfiguration("maximumUploadBytes is \(configuration.maximumUploadBytes); it must not be negative")
        }
        if !(0...65535).contains(configuration.port) {
            throw WIFCredentialsError.invalidConfiguration("port is \(configuration.port); it must be 0 to 65535")
        }
    }

    /// The spool folder: the configured one (created when missing), or a new private one.
    static func prepareSpoolDirectory(_ configured: String?) throws -> String {
        let folder = configured ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("server-app-\(UUID().uuidString.prefix(8))", isDirectory: true).path
        try FileManager.default.createDirectory(
            atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return folder
    }
}

/// Builds the file server's application, as the `server-app` executable and the tests do.
/// - Parameters:
///   - configuration: The role, bucket, folder template, endpoints and address.
///   - httpClient: The client for STS and S3 requests.
///   - timeSource: The clock for session expiry, signatures and retries.
///   - logger: Where the server logs.
/// - Returns: The application.
/// - Throws: What ``FileServer/init(configuration:httpClient:environment:timeSource:)`` throws.
public func buildApplication(
    configuration: FileServer.Configuration,
    httpClient: HTTPClient = S3Client.sharedHTTPClient,
    timeSource: TimeSource = .system,
    logger: Logger = Logger(label: "server-app")
) throws -> some ApplicationProtocol {
    try FileServer(configuration: configuration, httpClient: httpClient, timeSource: timeSource).application(logger: logger)
}
