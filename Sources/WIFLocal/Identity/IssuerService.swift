import Foundation
import HTTPTypes
import Hummingbird
import PolicyEngine
import WIFFoundation

/// The development OpenID Connect issuer's discovery endpoints.
///
/// - `GET /.well-known/openid-configuration`: the discovery document. `issuer` is the configured issuer
///   (`https://wif.localhost` by default, the `iss` of the tokens); `jwks_uri` is built from the request's
///   `Host`, so it points back at this server whatever address the client used.
/// - `GET /.well-known/jwks.json`: one RSA key with `kty`, `use`, `alg` (`RS256`), `kid`, `n`, `e` and
///   `x5c` (the key's self-signed certificate), which covers peers that read the modulus and exponent
///   (SeaweedFS) and peers that read the certificate (Ceph RGW).
/// - `/oauth2/…`: the authorization server (``OAuthEndpoints``): authorization code with PKCE, refresh
///   tokens with rotation, device authorization and revocation, for the configured OAuth clients.
struct IssuerService: Sendable {
    /// The discovery document's path.
    static let discoveryPath = "/.well-known/openid-configuration"
    /// The JWKS path.
    static let jwksPath = "/.well-known/jwks.json"

    private let issuer: String
    private let fallbackAuthority: String
    /// The JWKS document of the issuer's key.
    let jwks: ByteBuffer
    private let oauth: OAuthEndpoints

    /// Loads the issuer's key and certificate, creating them in the data directory when missing.
    /// - Throws: ``LocalStackError`` when the key or certificate cannot be loaded or created.
    init(state: LocalState) throws(LocalStackError) {
        let configuration = state.configuration
        let key = try IssuerSigningKey.load(
            from: state.data, now: state.timeSource.now(), subject: ProviderProfile.keyPrefix(ofIssuer: configuration.issuer)
        )
        self.issuer = configuration.issuer
        let host = configuration.host.contains(":") && !configuration.host.hasPrefix("[") ? "[\(configuration.host)]" : configuration.host
        self.fallbackAuthority = "\(host):\(configuration.port)"
        self.jwks = ByteBuffer(string: #"{"keys":[\#(key.jwkJSON)]}"#)
        self.oauth = try OAuthEndpoints(state: state)
    }

    /// Answers the issuer's paths.
    /// - Parameters:
    ///   - request: The request.
    ///   - sourceIp: The client's address, which the verification page counts wrong user codes by.
    /// - Returns: The response, or `nil` when the path is not one of the issuer's.
    func respond(to request: Request, sourceIp: String? = nil) async -> Response? {
        let path = request.uri.path
        if path.hasPrefix("/oauth2/") {
            return await self.oauth.respond(to: request, baseURL: "http://" + self.authority(of: request), sourceIp: sourceIp)
        }
        guard path == Self.discoveryPath || path == Self.jwksPath else { return nil }
        guard request.method == .get || request.method == .head else {
            var headers = HTTPFields()
            headers[.allow] = "GET, HEAD"
            headers[.contentType] = "application/json"
            let body = #"{"error":"method_not_allowed","error_description":"use GET"}"#
            return Response(status: .methodNotAllowed, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
        }
        let body = path == Self.jwksPath ? self.jwks : ByteBuffer(string: self.discoveryDocument(baseURL: "http://" + self.authority(of: request)))
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[.cacheControl] = "public, max-age=60"
        headers[.contentLength] = String(body.readableBytes)
        return Response(status: .ok, headers: headers, body: request.method == .head ? ResponseBody() : ResponseBody(byteBuffer: body))
    }

    /// The discovery document for a server reached at `baseURL` (`http://127.0.0.1:PORT`).
    func discoveryDocument(baseURL: String) -> String {
        let claims = [
            "iss", "sub", "aud", "exp", "iat", "nbf", "azp", "amr", "email", "email_verified", "nonce", "auth_time",
            "name", "preferred_username", TokenVerifier.tagsClaim, TokenVerifier.sourceIdentityClaim,
        ]
        func list(_ values: [String]) -> String { "[" + values.map(JSONWriter.quoted).joined(separator: ",") + "]" }
        return """
            {"issuer":\(JSONWriter.quoted(self.issuer)),\
            "jwks_uri":\(JSONWriter.quoted(baseURL + Self.jwksPath)),\
            "authorization_endpoint":\(JSONWriter.quoted(baseURL + OAuthEndpoints.authorizePath)),\
            "token_endpoint":\(JSONWriter.quoted(baseURL + OAuthEndpoints.tokenPath)),\
            "device_authorization_endpoint":\(JSONWriter.quoted(baseURL + OAuthEndpoints.deviceAuthorizationPath)),\
            "revocation_endpoint":\(JSONWriter.quoted(baseURL + OAuthEndpoints.revokePath)),\
            "response_types_supported":["code"],\
            "response_modes_supported":["query"],\
            "grant_types_supported":\(list(["authorization_code", "refresh_token", OAuthEndpoints.deviceCodeGrantType])),\
            "code_challenge_methods_supported":["S256"],\
            "token_endpoint_auth_methods_supported":["none","client_secret_basic","client_secret_post"],\
            "revocation_endpoint_auth_methods_supported":["none","client_secret_basic","client_secret_post"],\
            "authorization_response_iss_parameter_supported":true,\
            "subject_types_supported":["public"],\
            "id_token_signing_alg_values_supported":["RS256"],\
            "scopes_supported":\(list(OAuthEndpoints.supportedScopes)),\
            "claims_supported":\(list(claims))}
            """
    }

    /// The request's `Host` when it is a plausible host and port, else the configured address.
    func authority(of request: Request) -> String {
        guard let authority = request.head.authority, !authority.isEmpty, authority.utf8.count <= 255,
            authority.utf8.allSatisfy({ byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                    UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: ":"), UInt8(ascii: "["), UInt8(ascii: "]"):
                    true
                default:
                    false
                }
            })
        else { return self.fallbackAuthority }
        return authority
    }
}
