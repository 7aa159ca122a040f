import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import WIFFoundation
import WIFAPIServer

/// The HTTP endpoints of the development authorization server, under `/oauth2/`:
///
/// | path | what |
/// | --- | --- |
/// | `GET/POST /oauth2/authorize` | authorization code with PKCE S256; `login_hint` approves at once, else an HTML form asks for the user |
/// | `POST /oauth2/token` | `authorization_code`, `refresh_token` (rotation, reuse detection), device code |
/// | `POST /oauth2/device_authorization` | starts a device authorization (RFC 8628) |
/// | `GET/POST /oauth2/device` | the verification page: approve (`login_hint`) or deny (`action=deny`) a user code |
/// | `POST /oauth2/revoke` | RFC 7009; a refresh token's whole family is revoked |
///
/// Token-endpoint errors are `{"error","error_description"}` with 400 (401 `invalid_client`), and every
/// answer that carries tokens or codes says `Cache-Control: no-store`.
struct OAuthEndpoints: Sendable {
    static let authorizePath = "/oauth2/authorize"
    static let tokenPath = "/oauth2/token"
    static let deviceAuthorizationPath = "/oauth2/device_authorization"
    static let devicePath = "/oauth2/device"
    static let revokePath = "/oauth2/revoke"

    /// The device-code grant type (RFC 8628 §3.4).
    static let deviceCodeGrantType = "urn:ietf:params:oauth:grant-type:device_code"
    /// The scopes the server knows.
    static let supportedScopes = ["openid", "profile", "email", "offline_access"]
    /// The largest form body read.
    static let maximumBodySize = 64 * 1024
    /// The longest `nonce` and `state` accepted.
    static let maximumNonceLength = 512
    static let maximumStateLength = 2048

    let issuer: String
    let clients: [String: OAuthClient]
    let server: OAuthAuthorizationServer

    /// Builds the endpoints of a stack.
    /// - Throws: ``LocalStackError`` when the signing key or the refresh-token file cannot be used.
    init(state: LocalState) throws(LocalStackError) {
        self.issuer = state.configuration.issuer
        var clients: [String: OAuthClient] = [:]
        for client in state.configuration.oauthClients where clients[client.clientId] == nil {
            clients[client.clientId] = client
        }
        self.clients = clients
        self.server = try OAuthAuthorizationServer(state: state)
    }

    /// Answers a request for one of the endpoints.
    /// - Parameters:
    ///   - request: The request.
    ///   - baseURL: The server's URL as the client reached it (`http://127.0.0.1:PORT`).
    ///   - sourceIp: The client's address, which the verification page counts wrong user codes by.
    /// - Returns: The response, or `nil` when the path is not an endpoint.
    func respond(to request: Request, baseURL: String, sourceIp: String? = nil) async -> Response? {
        switch request.uri.path {
        case Self.authorizePath:
            guard request.method == .get || request.method == .post else { return Self.methodNotAllowed("GET, POST") }
            return await self.authorize(request)
        case Self.tokenPath:
            guard request.method == .post else { return Self.methodNotAllowed("POST") }
            return await self.token(request)
        case Self.deviceAuthorizationPath:
            guard request.method == .post else { return Self.methodNotAllowed("POST") }
            return await self.deviceAuthorization(request, baseURL: baseURL)
        case Self.devicePath:
            guard request.method == .get || request.method == .post else { return Self.methodNotAllowed("GET, POST") }
            return await self.verificationPage(request, sourceIp: sourceIp)
        case Self.revokePath:
            guard request.method == .post else { return Self.methodNotAllowed("POST") }
            return await self.revoke(request)
        default:
            return nil
        }
    }

    // MARK: Requests

    /// The parameters of a request: the query of a GET, the form body of a POST.
    func parameters(of request: Request) async -> Result<OAuthForm, OAuthError> {
        if request.method != .post {
            return .success(OAuthForm(encoded: request.uri.query ?? ""))
        }
        guard STSParameters.isForm(request.headers.value(of: .contentType)) else {
            return .failure(.invalidRequest("the body must be application/x-www-form-urlencoded"))
        }
        if let length = request.headers.value(of: .contentLength), let bytes = Int(length), bytes > Self.maximumBodySize {
            return .failure(.invalidRequest("the body is larger than \(Self.maximumBodySize) bytes"))
        }
        do {
            let body = try await request.body.collect(upTo: Self.maximumBodySize)
            return .success(OAuthForm(encoded: String(buffer: body)))
        } catch is NIOTooManyBytesError {
            return .failure(.invalidRequest("the body is larger than \(Self.maximumBodySize) bytes"))
        } catch {
            return .failure(.invalidRequest("the body could not be read"))
        }
    }

    /// Authenticates the client of a token, device-authorization or revocation request: a public client by
    /// its `client_id`; a confidential one with HTTP Basic or `client_secret` in the form, not both.
    func authenticateClient(_ request: Request, form: OAuthForm) -> Result<OAuthClient, OAuthError> {
        var basic: (id: String, secret: String)?
        if let header = request.headers.value(of: .authorization) {
            guard header.count > 6, header.prefix(6).lowercased() == "basic ",
                let decoded = Data(base64Encoded: String(header.dropFirst(6)).trimming(.whitespaces)),
                let text = String(data: decoded, encoding: .utf8), let colon = text.firstIndex(of: ":")
            else {
                return .failure(.invalidClient("the Authorization header must be Basic base64(client_id:client_secret)"))
            }
            basic = (
                PercentEncoding.decode(text[..<colon].utf8, plusIsSpace: true),
                PercentEncoding.decode(text[text.index(after: colon)...].utf8, plusIsSpace: true)
            )
        }
        if basic != nil, form["client_secret"] != nil {
            return .failure(.invalidRequest("use one client authentication method: HTTP Basic or client_secret, not both"))
        }
        if let basic, let formId = form["client_id"], formId != basic.id {
            return .failure(.invalidRequest("client_id differs from the client of the Authorization header"))
        }
        guard let clientId = basic?.id ?? form["client_id"] else {
            return .failure(.invalidRequest("client_id is missing"))
        }
        guard let client = self.clients[clientId] else {
            return .failure(.invalidClient("no client has the id '\(clientId)'"))
        }
        let secret = basic?.secret ?? form["client_secret"]
        switch (client.clientSecret, secret) {
        case (.none, .none):
            return .success(client)
        case (.none, .some):
            return .failure(.invalidClient("'\(clientId)' is a public client; it has no secret to send"))
        case (.some, .none):
            return .failure(.invalidClient("'\(clientId)' is a confidential client; authenticate with HTTP Basic or client_secret"))
        case (.some(let expected), .some(let given)):
            guard OAuthSecrets.constantTimeEqual(expected, given) else {
                return .failure(.invalidClient("the client secret of '\(clientId)' is wrong"))
            }
            return .success(client)
        }
    }

    /// The scopes of a `scope` parameter: known ones, `openid` among them, duplicates dropped.
    static func scopes(_ text: String?) -> Result<[String], OAuthError> {
        guard let text else {
            return .failure(.invalidScope("scope is missing; it must include openid"))
        }
        var scopes: [String] = []
        for scope in text.split(separator: " ").map(String.init) where !scopes.contains(scope) {
            guard Self.supportedScopes.contains(scope) else {
                return .failure(.invalidScope("the scope '\(scope)' is not supported; use \(Self.supportedScopes.joined(separator: ", "))"))
            }
            scopes.append(scope)
        }
        guard scopes.contains("openid") else {
            return .failure(.invalidScope("scope must include openid"))
        }
        return .success(scopes)
    }

    /// Why a development user name cannot be used, or `nil`.
    static func userProblem(_ user: String) -> String? {
        let allowed = user.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "@"), UInt8(ascii: "+"), UInt8(ascii: "-"):
                true
            default:
                false
            }
        }
        guard (1...128).contains(user.utf8.count), allowed else {
            return "the user name (login_hint) must be 1 to 128 letters, digits, '.', '_', '@', '+' or '-'"
        }
        return nil
    }

    // MARK: Responses

    /// A JSON answer that is never cached.
    static func json(_ body: String, status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[.cacheControl] = "no-store"
        headers[HTTPField.Name("Pragma")!] = "no-cache"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }

    /// A token-endpoint error; 401 answers name the Basic scheme (RFC 6749 §5.2).
    static func error(_ error: OAuthError) -> Response {
        var response = Self.json(error.json, status: error.status)
        if error.status == .unauthorized {
            response.headers[.wwwAuthenticate] = #"Basic realm="wif-local""#
        }
        return response
    }

    /// An HTML page that is never cached and cannot be framed; its forms go to this server, and their
    /// redirects nowhere but `formRedirects` (Content-Security-Policy sources).
    static func html(_ body: String, status: HTTPResponse.Status = .ok, formRedirects: [String] = []) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        let formAction = (["'self'"] + formRedirects).joined(separator: " ")
        headers[.contentSecurityPolicy] = "default-src 'none'; style-src 'unsafe-inline'; form-action \(formAction); frame-ancestors 'none'"
        headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }

    /// A redirect of the user agent.
    static func redirect(to location: String) -> Response {
        var headers = HTTPFields()
        headers[.location] = location
        headers[.cacheControl] = "no-store"
        return Response(status: .found, headers: headers)
    }

    static func methodNotAllowed(_ allowed: String) -> Response {
        var response = Self.json(OAuthError.invalidRequest("use \(allowed)").json, status: .methodNotAllowed)
        response.headers[.allow] = allowed
        return response
    }
}
