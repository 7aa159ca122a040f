public import AccessRules
public import Hummingbird
public import HummingbirdAuth
import Logging
import NIOCore

/// Hummingbird middleware that authenticates every request with an ``APIAuthenticator`` and puts the
/// ``APICaller`` in the context's `identity` (hummingbird-auth's ``AuthRequestContext``), or answers 401
/// with the mode's error. A SigV4-signed body is read whole (up to ``maximumSignedBodySize``) for its
/// hash and handed on to the route unchanged.
///
/// ```swift
/// let router = Router(context: BasicAuthRequestContext<APICaller>.self)
/// router.add(middleware: APIAuthenticatorMiddleware(authenticator))
/// router.get("/todos") { request, context in
///     let caller = try context.requireIdentity()
///     …
/// }
/// ```
public struct APIAuthenticatorMiddleware<Context: AuthRequestContext<APICaller>>: RouterMiddleware {
    /// The authenticator.
    public let authenticator: APIAuthenticator
    /// The largest body of a signed request.
    public let maximumSignedBodySize: Int
    /// The path prefix of the API's routes, taken off before the IAM resource is built (`/apis/todo`).
    public let pathPrefix: String

    /// Creates the middleware.
    /// - Parameters:
    ///   - authenticator: The authenticator.
    ///   - pathPrefix: The routes' prefix, not part of the `execute-api` resource.
    ///   - maximumSignedBodySize: The largest signed body; 1 MiB by default.
    public init(_ authenticator: APIAuthenticator, pathPrefix: String = "", maximumSignedBodySize: Int = 1 << 20) {
        self.authenticator = authenticator
        self.pathPrefix = pathPrefix
        self.maximumSignedBodySize = maximumSignedBodySize
    }

    /// Authenticates, then calls the route with the caller in `context.identity`.
    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var request = request
        var body: ByteBuffer?
        if APIAuthenticator.isSigned(request) {
            let collected = try await request.body.collect(upTo: self.maximumSignedBodySize)
            request.body = .init(buffer: collected)
            body = collected
        }
        var path = request.uri.path
        if !self.pathPrefix.isEmpty, path.hasPrefix(self.pathPrefix) { path = String(path.dropFirst(self.pathPrefix.count)) }
        let caller = try await self.authenticator.authenticate(request, body: body, path: path, logger: context.logger)
        var context = context
        context.identity = caller
        return try await next(request, context)
    }
}

extension AuthRequestContext where Identity == APICaller {
    /// The access-rule caller of an authenticated request: `nil` for `NONE`.
    /// - Throws: 401 when no middleware authenticated the request.
    public func requireRuleCaller() throws -> Caller? {
        try self.requireIdentity().caller
    }
}
