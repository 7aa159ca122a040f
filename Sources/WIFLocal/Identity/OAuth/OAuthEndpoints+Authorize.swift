import Hummingbird

extension OAuthEndpoints {
    /// The parameters of an authorization request that it reads.
    static let authorizeParameters = [
        "response_type", "client_id", "redirect_uri", "scope", "state", "nonce", "code_challenge", "code_challenge_method",
        "login_hint", "prompt", "response_mode",
    ]

    /// `GET|POST /oauth2/authorize`.
    ///
    /// A missing or unknown client, or a redirect URI the client did not register, is answered here with
    /// a 400 page and never redirected (RFC 6749 §4.1.2.1), so the endpoint cannot send users to an
    /// attacker. Every other problem goes back to the client's redirect URI as `error`,
    /// `error_description`, `state` and `iss` (RFC 9207). With a valid `login_hint` the user is approved at
    /// once; without one an HTML form asks for the user name and sends the same request again with it (its
    /// page's `form-action` names the redirect URI's origin, or a browser would block the redirect).
    func authorize(_ request: Request) async -> Response {
        let form: OAuthForm
        switch await self.parameters(of: request) {
        case .success(let parameters): form = parameters
        case .failure(let error): return Self.html(OAuthPages.message(title: "Bad request", text: error.message), status: .badRequest)
        }
        if let error = form.repetition(among: ["client_id", "redirect_uri"]) {
            return Self.html(OAuthPages.message(title: "Bad request", text: error.message), status: .badRequest)
        }
        guard let clientId = form["client_id"] else {
            return Self.html(OAuthPages.message(title: "Bad request", text: "client_id is missing"), status: .badRequest)
        }
        guard let client = self.clients[clientId] else {
            return Self.html(OAuthPages.message(title: "Unknown client", text: "No client has the id '\(clientId)'."), status: .badRequest)
        }
        guard let redirectText = form["redirect_uri"] else {
            return Self.html(OAuthPages.message(title: "Bad request", text: "redirect_uri is missing"), status: .badRequest)
        }
        guard case .success(let redirect) = RedirectURI.parse(redirectText), redirect.isRegistered(for: client) else {
            return Self.html(
                OAuthPages.message(title: "Unregistered redirect URI", text: "This redirect_uri is not registered for the client '\(clientId)'."),
                status: .badRequest
            )
        }

        let state = form["state"]
        func fail(_ error: OAuthError) -> Response {
            var parameters = [("error", error.code.rawValue), ("error_description", error.message)]
            if let state, state.utf8.count <= Self.maximumStateLength { parameters.append(("state", state)) }
            parameters.append(("iss", self.issuer))
            return Self.redirect(to: redirect.adding(parameters))
        }

        if let error = form.repetition(among: Self.authorizeParameters) { return fail(error) }
        guard let responseType = form["response_type"] else { return fail(.invalidRequest("response_type is missing")) }
        guard responseType == "code" else {
            return fail(OAuthError(.unsupportedResponseType, "response_type must be code, not '\(responseType)'"))
        }
        if let mode = form["response_mode"], mode != "query" {
            return fail(.invalidRequest("response_mode must be query, not '\(mode)'"))
        }
        if let state, state.utf8.count > Self.maximumStateLength {
            return fail(.invalidRequest("state is longer than \(Self.maximumStateLength) bytes"))
        }
        let scopes: [String]
        switch Self.scopes(form["scope"]) {
        case .success(let value): scopes = value
        case .failure(let error): return fail(error)
        }
        let challenge = form["code_challenge"]
        switch (challenge, form["code_challenge_method"]) {
        case (.none, .none):
            if !client.isConfidential {
                return fail(.invalidRequest("code_challenge is missing; public clients must use PKCE with S256"))
            }
        case (.none, .some):
            return fail(.invalidRequest("code_challenge is missing"))
        case (.some, .none):
            return fail(.invalidRequest("code_challenge_method is missing; it must be S256 (plain is not supported)"))
        case (.some(let value), .some(let method)):
            guard method == PKCE.method else {
                return fail(.invalidRequest("code_challenge_method must be S256, not '\(method)'"))
            }
            guard value.utf8.count == 43, PKCE.isWellFormed(value) else {
                return fail(.invalidRequest("code_challenge must be the 43-character base64url SHA-256 of the code_verifier"))
            }
        }
        if let nonce = form["nonce"], nonce.utf8.count > Self.maximumNonceLength {
            return fail(.invalidRequest("nonce is longer than \(Self.maximumNonceLength) bytes"))
        }

        // The form's submission is answered with a redirect to the client, which the page's policy must allow.
        let formRedirects = [redirect.policySource].compactMap { $0 }
        guard let user = form["login_hint"] else {
            if let prompt = form["prompt"], prompt.split(separator: " ").contains("none") {
                return fail(OAuthError(.loginRequired, "prompt=none needs a login_hint naming the user"))
            }
            return Self.html(
                OAuthPages.authorizeForm(form: form, clientId: clientId, scopes: scopes, problem: nil), formRedirects: formRedirects)
        }
        if let problem = Self.userProblem(user) {
            return Self.html(
                OAuthPages.authorizeForm(form: form, clientId: clientId, scopes: scopes, problem: problem), status: .badRequest,
                formRedirects: formRedirects)
        }
        let code = await self.server.issueCode(
            clientId: clientId, subject: user, scopes: scopes, nonce: form["nonce"], redirectURI: redirectText, codeChallenge: challenge)
        var parameters = [("code", code)]
        if let state { parameters.append(("state", state)) }
        parameters.append(("iss", self.issuer))
        return Self.redirect(to: redirect.adding(parameters))
    }
}
