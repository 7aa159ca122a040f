import Hummingbird
import Logging
import NIOCore
import WIFAPIServer

/// The one responder of the local stack: it sends each request to the development issuer, STS or S3.
///
/// Issuer paths come first (`/.well-known/…`, `/oauth2/…`); then Cognito Identity, for a POST to `/` whose
/// `X-Amz-Target` names it; then STS, when the path is `/` and the request names an `Action` in its query
/// or is a form POST; everything else is S3, which tells path-style and virtual-hosted addressing apart
/// itself.
struct LocalResponder: HTTPResponder {
    typealias Context = LocalRequestContext

    /// The largest STS request body; AWS's own limit for query APIs is far larger than any valid request.
    static let maximumSTSBodySize = 64 * 1024

    let issuer: IssuerService
    let sts: STSService
    let cognitoIdentity: CognitoIdentityService
    let s3: S3Service
    let apis: APIService
    let logger: Logger

    init(issuer: IssuerService, sts: STSService, cognitoIdentity: CognitoIdentityService, s3: S3Service, apis: APIService, logger: Logger) {
        self.issuer = issuer
        self.sts = sts
        self.cognitoIdentity = cognitoIdentity
        self.s3 = s3
        self.apis = apis
        self.logger = logger
    }

    /// Answers a request and logs one line at debug level: method, path without the query, status and
    /// duration. Headers and queries may hold signatures and tokens, so they are never logged.
    func respond(to request: Request, context: Context) async throws -> Response {
        let sourceIp = context.remoteAddress?.ipAddress
        var request = request
        if let expect = request.headers.value(of: .expect), ExpectContinueHandler.expectsContinue(expect) {
            // The interim `100 Continue` goes out when a service starts reading the body, after it has let
            // the request in; a refused request's body is never asked for.
            request.body = RequestBody(asyncSequence: ContinuingBody(base: request.body, channel: context.channel))
        }
        guard self.logger.logLevel <= .debug else {
            return await self.dispatch(request, sourceIp: sourceIp)
        }
        let start = ContinuousClock.now
        let response = await self.dispatch(request, sourceIp: sourceIp)
        let elapsed = ContinuousClock.now - start
        let microseconds = elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000
        self.logger.debug(
            "request",
            metadata: [
                "wif.local.method": "\(request.method.rawValue)",
                "wif.local.path": "\(Self.target(of: request).path)",
                "wif.local.status": "\(response.status.code)",
                "wif.local.duration_us": "\(microseconds)",
            ]
        )
        return response
    }

    /// Routes a request to its service; `sourceIp`, the client's address, is what S3 policies see as
    /// `aws:SourceIp`.
    func dispatch(_ request: Request, sourceIp: String? = nil) async -> Response {
        switch Self.route(request) {
        case .issuer:
            if let response = await self.issuer.respond(to: request, sourceIp: sourceIp) { return response }
            if request.uri.path == AmplifyOutputs.path { return self.amplifyOutputs(request) }
            return await self.s3.respond(to: request, sourceIp: sourceIp)
        case .sts: return await self.respondSTS(request)
        case .cognitoIdentity: return await self.respondCognitoIdentity(request)
        case .api: return await self.apis.respond(to: request)
        case .s3: return await self.s3.respond(to: request, sourceIp: sourceIp)
        }
    }

    /// `GET /.well-known/amplify_outputs.json[?api=NAME]`.
    private func amplifyOutputs(_ request: Request) -> Response {
        let name = request.uri.queryParameters.get("api")
        let baseURL = "http://" + self.issuer.authority(of: request)
        guard let document = AmplifyOutputs.document(
            configuration: self.apis.configuration, baseURL: baseURL, api: name, ruleSet: self.apis.ruleSet(ofAPI:)) else {
            let served = self.apis.configuration.apis.map(\.name).joined(separator: ", ")
            return APIService.error(.notFound, "NotFoundException", "no API is named '\(name ?? "")'; this stack serves \(served)")
        }
        return APIService.json(.ok, document)
    }

    private func respondSTS(_ request: Request) async -> Response {
        if let length = request.headers.value(of: .contentLength), let bytes = Int(length), bytes > Self.maximumSTSBodySize {
            return Self.bodyTooLarge()
        }
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: Self.maximumSTSBodySize)
        } catch is NIOTooManyBytesError {
            return Self.bodyTooLarge()
        } catch {
            return AWSErrorResponse("IncompleteBody", "the request body could not be read").stsResponse(requestId: RequestID.make())
        }
        return await self.sts.respond(to: request, body: body)
    }

    private func respondCognitoIdentity(_ request: Request) async -> Response {
        let limit = CognitoIdentityService.maximumBodySize
        let tooLarge = AWSErrorResponse("InvalidParameterException", "the request body is larger than \(limit) bytes", status: .contentTooLarge)
        if let length = request.headers.value(of: .contentLength), let bytes = Int(length), bytes > limit {
            return tooLarge.cognitoResponse(requestId: RequestID.make())
        }
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: limit)
        } catch is NIOTooManyBytesError {
            return tooLarge.cognitoResponse(requestId: RequestID.make())
        } catch {
            return AWSErrorResponse("SerializationException", "the request body could not be read").cognitoResponse(requestId: RequestID.make())
        }
        return await self.cognitoIdentity.respond(to: request, body: body)
    }

    private static func bodyTooLarge() -> Response {
        AWSErrorResponse(
            "ValidationError",
            "the request body is larger than \(Self.maximumSTSBodySize) bytes",
            status: .contentTooLarge
        ).stsResponse(requestId: RequestID.make())
    }

    /// Which service answers a request.
    enum Route: Equatable {
        /// The issuer's paths (`/.well-known/…`, `/oauth2/…`); those it does not know go on to S3.
        case issuer
        case sts
        /// Identity pools: a POST to `/` with `X-Amz-Target: AWSCognitoIdentityService.<Operation>`.
        case cognitoIdentity
        /// The configured APIs, under `/apis/`.
        case api
        case s3
    }

    /// The issuer for its reserved paths; STS when the path is `/` and the query names an `Action`, or the
    /// request is a form POST to `/`; S3 otherwise. S3 never uses form bodies on `/` (its POSTs there are
    /// XML or multipart forms). Only the path's prefix is looked at, so most requests cost no allocation.
    static func route(_ request: Request) -> Route {
        let target = Self.target(of: request)
        if target.path.utf8.starts(with: "/.well-known/".utf8) || target.path.utf8.starts(with: "/oauth2/".utf8) {
            return .issuer
        }
        if target.path.utf8.starts(with: APIService.prefix.utf8) { return .api }
        guard target.path == "/" else { return .s3 }
        if CognitoIdentityService.isCall(request) { return .cognitoIdentity }
        if let query = target.query, Self.namesAction(query) { return .sts }
        if request.method == .post, let type = request.headers.value(of: .contentType), STSParameters.isForm(type) {
            return .sts
        }
        return .s3
    }

    /// The request target split into its path and query, without copying when the target is in origin form.
    static func target(of request: Request) -> (path: Substring, query: Substring?) {
        guard let target = request.head.path, target.utf8.first == UInt8(ascii: "/") else {
            // Absolute form (`http://host/path?query`) or none: let the URI parser find the parts.
            let path = request.uri.path
            return (Substring(path), request.uri.query.map { Substring($0) })
        }
        guard let mark = target.utf8.firstIndex(of: UInt8(ascii: "?")) else {
            return (Substring(target), nil)
        }
        return (target[..<mark], target[target.index(after: mark)...])
    }

    /// Whether a query string has a parameter named exactly `Action`.
    static func namesAction(_ query: Substring) -> Bool {
        let name = "Action=".utf8
        var atStart = true
        var utf8 = query.utf8[...]
        while !utf8.isEmpty {
            if atStart, utf8.starts(with: name) { return true }
            atStart = utf8.first == UInt8(ascii: "&")
            utf8 = utf8.dropFirst()
        }
        return false
    }
}

/// The request context of the local stack: Hummingbird's core context, the client's address and the
/// connection.
struct LocalRequestContext: RequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    /// The connected client, `nil` when the channel no longer knows it.
    let remoteAddress: SocketAddress?
    /// The connection the request came on, for the interim `100 Continue`.
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        self.coreContext = CoreRequestContextStorage(source: source)
        self.remoteAddress = source.channel.remoteAddress
        self.channel = source.channel
    }
}

/// A request body that asks its connection for the owed `100 Continue` (``ExpectContinueHandler``) when
/// it is first read.
struct ContinuingBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    let base: RequestBody
    let channel: any Channel

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: self.base.makeAsyncIterator(), channel: self.channel)
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: RequestBody.AsyncIterator
        let channel: any Channel
        var asked = false

        mutating func next() async throws -> ByteBuffer? {
            if !self.asked {
                self.asked = true
                // A connection that has gone away fails the read below with its own error.
                try? await self.channel.triggerUserOutboundEvent(ExpectContinueHandler.ContinueRequest()).get()
            }
            return try await self.base.next()
        }
    }
}
