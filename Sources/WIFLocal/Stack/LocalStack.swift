import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization
import WIFCredentials
import WIFFoundation
import WIFHTTP

/// The local federation stack: one HTTP server on loopback that is at once a development OpenID Connect
/// issuer, STS and S3, enforcing tokens, signatures and policies as AWS does.
///
/// Run it in-process around the code that uses it:
///
/// ```swift
/// let configuration = LocalConfiguration.default(dataDirectory: "/tmp/wif-local")
/// try await LocalStack.run(configuration) { endpoint in
///     let alice = try endpoint.developmentToken(provider: "google", user: "alice")
///     // send alice.token to STS at endpoint.url, then use S3 there with the credentials
/// }
/// ```
///
/// State (keys, objects, uploads) lives in the configuration's data directory and survives restarts.
public enum LocalStack {
    /// The `Server` header of every response.
    static let serverName = "wif-local"

    /// How long a graceful shutdown may wait for requests in flight before they are cancelled.
    static let gracefulShutdownLimit = Duration.seconds(10)

    /// Starts the stack, runs `body` with its endpoint, then shuts the server down gracefully and releases
    /// the port, whether `body` returns or throws.
    /// - Parameters:
    ///   - configuration: The stack's configuration; port `0` picks a free port.
    ///   - logger: Where to log; each request is logged at debug level (method, path, status, duration).
    ///   - timeSource: The stack's clock: token expiry, signing times and the authorization server's
    ///     lifetimes; the system clock by default. A hand-moved clock (in tests) also dates the responses'
    ///     `Date` headers, so that clients correcting for a server's clock see one consistent clock.
    ///   - isolation: Where `body` runs: the caller's actor, by default.
    ///   - body: The code that uses the stack.
    /// - Returns: What `body` returns.
    /// - Throws: ``LocalStackError`` when the configuration is invalid, the data directory unusable or the
    ///   address cannot be bound; otherwise what `body` throws.
    public static func run<T: Sendable>(
        _ configuration: LocalConfiguration,
        logger: Logger = Self.silentLogger,
        timeSource: TimeSource? = nil,
        isolation: isolated (any Actor)? = #isolation,
        body: (LocalEndpoint) async throws -> T
    ) async throws -> T {
        let prepared = try Self.prepare(configuration, logger: logger, timeSource: timeSource)
        let signal = RefreshPromise<Int>()
        let group = prepared.serviceGroup(stopsOnSignals: false, logger: logger) { port in
            signal.complete(with: .success(port))
        }
        return try await withThrowingTaskGroup(of: Void.self, returning: T.self) { tasks in
            tasks.addTask {
                do {
                    try await group.run()
                } catch {
                    signal.complete(with: .failure(error))
                    throw error
                }
                signal.complete(with: .failure(LocalStackError("the server stopped before it was ready")))
            }
            let port: Int
            do {
                port = try await signal.value()
            } catch {
                tasks.cancelAll()
                while let _ = try? await tasks.next() {}
                throw prepared.bindError(error)
            }
            let endpoint = LocalEndpoint(port: port, federation: prepared.federation)
            let outcome: Result<T, any Error>
            do {
                outcome = .success(try await body(endpoint))
            } catch {
                outcome = .failure(error)
            }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
            return try outcome.get()
        }
    }

    /// Runs the stack until the process receives SIGINT or SIGTERM, then shuts it down gracefully.
    /// - Parameters:
    ///   - configuration: The stack's configuration; port `0` picks a free port.
    ///   - logger: Where to log.
    ///   - onReady: Called once, when the server listens, with its endpoint.
    /// - Throws: ``LocalStackError`` when the configuration is invalid, the data directory unusable or the
    ///   address cannot be bound.
    public static func serve(
        _ configuration: LocalConfiguration,
        logger: Logger = Self.silentLogger,
        onReady: @escaping @Sendable (LocalEndpoint) -> Void
    ) async throws {
        let prepared = try Self.prepare(configuration, logger: logger)
        let federation = prepared.federation
        let ready = Atomic<Bool>(false)
        let group = prepared.serviceGroup(stopsOnSignals: true, logger: logger) { port in
            onReady(LocalEndpoint(port: port, federation: federation))
            ready.store(true, ordering: .releasing)
        }
        do {
            try await group.run()
        } catch {
            if ready.load(ordering: .acquiring) { throw error }
            throw prepared.bindError(error)
        }
    }

    /// A logger that discards everything, the default of libraries.
    public static let silentLogger = Logger.noop

    /// - Parameter timeSource: An injected clock, or `nil` for the system clock.
    private static func prepare(
        _ configuration: LocalConfiguration, logger: Logger, timeSource: TimeSource? = nil
    ) throws(LocalStackError) -> PreparedStack {
        try configuration.validate()
        let state = try LocalState(configuration: configuration, timeSource: timeSource ?? .system, logger: logger)
        let authenticator = RequestAuthenticator(state: state)
        let sts = STSService(state: state, verifier: try TokenVerifier(state: state), authenticator: authenticator)
        let issuer = try IssuerService(state: state)
        let s3 = try S3Service(state: state, authenticator: authenticator)
        let responder = LocalResponder(
            issuer: issuer,
            sts: sts,
            cognitoIdentity: try CognitoIdentityService(state: state, sts: sts),
            s3: s3,
            apis: try APIService(state: state, authenticator: authenticator, authorizer: s3.authorizer, jwks: Array(issuer.jwks.readableBytesView)),
            logger: logger
        )
        return PreparedStack(
            state: state, responder: responder, federation: try LocalFederation(state: state), injectedClock: timeSource)
    }
}

/// A stack whose services are built, ready to bind.
private struct PreparedStack: Sendable {
    let state: LocalState
    let responder: LocalResponder
    let federation: LocalFederation
    /// The clock to date responses with, when it is not the system's.
    let injectedClock: TimeSource?

    var address: String { "\(self.state.configuration.host):\(self.state.configuration.port)" }

    func serviceGroup(stopsOnSignals: Bool, logger: Logger, onRunning: @escaping @Sendable (Int) -> Void) -> ServiceGroup {
        let configuration = self.state.configuration
        let injectedClock = self.injectedClock
        let application = Application(
            responder: self.responder,
            server: .http1(
                configuration: .init(
                    additionalChannelHandlers: {
                        var handlers: [any RemovableChannelHandler] = [ExpectContinueHandler()]
                        if let injectedClock { handlers.append(StackClockDateHandler(timeSource: injectedClock)) }
                        return handlers
                    }(),
                    // An idle connection (no request in progress) is closed, so clients cannot hold
                    // the server's sockets forever.
                    idleTimeout: TimeAmount(configuration.connections.idleTimeout)
                )
            ),
            configuration: ApplicationConfiguration(
                address: .hostname(configuration.host, port: configuration.port),
                serverName: LocalStack.serverName,
                availableConnectionsDelegate: MaximumAvailableConnections(configuration.connections.maximum)
            ),
            onServerRunning: { channel in onRunning(channel.localAddress?.port ?? configuration.port) },
            logger: logger
        )
        var group = ServiceGroupConfiguration(
            services: [.init(service: application)],
            gracefulShutdownSignals: stopsOnSignals ? [.sigterm, .sigint] : [],
            logger: logger
        )
        group.maximumGracefulShutdownDuration = LocalStack.gracefulShutdownLimit
        return ServiceGroup(configuration: group)
    }

    func bindError(_ error: any Error) -> any Error {
        if error is LocalStackError || error is CancellationError { return error }
        return LocalStackError("cannot listen on \(self.address): \(TransportFailure.reason(error))")
    }
}
