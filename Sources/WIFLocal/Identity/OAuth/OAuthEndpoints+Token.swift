import Hummingbird

extension OAuthEndpoints {
    /// `POST /oauth2/token`: the `authorization_code`, `refresh_token` and device-code grants.
    func token(_ request: Request) async -> Response {
        let form: OAuthForm
        let client: OAuthClient
        switch await self.clientRequest(request) {
        case .success(let parameters): (form, client) = parameters
        case .failure(let error): return Self.error(error)
        }
        guard let grantType = form["grant_type"] else {
            return Self.error(.invalidRequest("grant_type is missing"))
        }
        let result: Result<OAuthAuthorizationServer.Tokens, OAuthError>
        switch grantType {
        case "authorization_code":
            guard let code = form["code"] else { return Self.error(.invalidRequest("code is missing")) }
            guard let redirectURI = form["redirect_uri"] else {
                return Self.error(.invalidRequest("redirect_uri is missing; send the one of the authorization request"))
            }
            result = await self.server.exchange(code: code, clientId: client.clientId, redirectURI: redirectURI, verifier: form["code_verifier"])
        case "refresh_token":
            guard let refreshToken = form["refresh_token"] else { return Self.error(.invalidRequest("refresh_token is missing")) }
            var scopes: [String]?
            if let scope = form["scope"] {
                switch Self.scopes(scope) {
                case .success(let value): scopes = value
                case .failure(let error): return Self.error(error)
                }
            }
            result = await self.server.refresh(token: refreshToken, clientId: client.clientId, scopes: scopes)
        case Self.deviceCodeGrantType:
            guard let deviceCode = form["device_code"] else { return Self.error(.invalidRequest("device_code is missing")) }
            result = await self.server.pollDevice(code: deviceCode, clientId: client.clientId)
        default:
            return Self.error(
                OAuthError(
                    .unsupportedGrantType,
                    "grant_type must be authorization_code, refresh_token or \(Self.deviceCodeGrantType), not '\(grantType)'"
                )
            )
        }
        switch result {
        case .success(let tokens): return Self.json(tokens.json)
        case .failure(let error): return Self.error(error)
        }
    }

    /// `POST /oauth2/revoke` (RFC 7009): `200` for any token once the client is authenticated; a refresh
    /// token of the client has its whole family revoked. Access tokens are not accepted anywhere in the
    /// stack, so there is nothing to revoke for them.
    func revoke(_ request: Request) async -> Response {
        let form: OAuthForm
        let client: OAuthClient
        switch await self.clientRequest(request) {
        case .success(let parameters): (form, client) = parameters
        case .failure(let error): return Self.error(error)
        }
        guard let token = form["token"] else { return Self.error(.invalidRequest("token is missing")) }
        if let error = await self.server.revoke(token: token, clientId: client.clientId) {
            return Self.error(error)
        }
        var response = Response(status: .ok)
        response.headers[.cacheControl] = "no-store"
        response.headers[.contentLength] = "0"
        return response
    }

    /// The parameters of a request to a client-authenticated endpoint (token, device authorization,
    /// revocation), each given once, and the client they authenticate.
    func clientRequest(_ request: Request) async -> Result<(OAuthForm, OAuthClient), OAuthError> {
        let form: OAuthForm
        switch await self.parameters(of: request) {
        case .success(let parameters): form = parameters
        case .failure(let error): return .failure(error)
        }
        if let name = form.repeated.first {
            return .failure(.invalidRequest("the parameter \(name) is given more than once"))
        }
        return self.authenticateClient(request, form: form).map { (form, $0) }
    }
}
