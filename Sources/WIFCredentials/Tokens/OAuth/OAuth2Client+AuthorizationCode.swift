import Foundation
import Logging
import Synchronization
import WIFFoundation
import WIFHTTP
import WIFSigV4

extension OAuth2Client {
    /// The redirect URI used when the configuration has none.
    public static let defaultRedirectURI = "http://127.0.0.1/callback"

    /// Signs in through the user's browser: authorization code with PKCE (S256) and a loopback redirect
    /// (RFC 8252).
    ///
    /// Listens on the configured loopback redirect URI (port 0 picks a free port), calls `openBrowser`
    /// with the authorization URL, takes exactly one redirect, checks its `state` (and `iss`, when
    /// present), shows the browser a short page, stops listening, exchanges the code with the PKCE
    /// verifier, and verifies the ID token including its `nonce`.
    /// - Parameters:
    ///   - timeout: How long to wait for the redirect; five minutes by default.
    ///   - loginHint: A `login_hint` for the issuer (the account to preselect).
    ///   - logger: Where to log (never a code or token).
    ///   - openBrowser: Opens the URL in a browser (or, in tests, follows it with an HTTP client).
    /// - Returns: The verified tokens.
    /// - Throws: ``WIFCredentialsError``: `invalidConfiguration` for a redirect URI that is not loopback
    ///   or an issuer without an authorization endpoint or S256; `authorizationFailed` when the redirect
    ///   does not come in time, does not match the request, or reports a denial; `oauth` for other
    ///   refusals; `invalidIDToken`; `network`; what `openBrowser` throws.
    public func authorizeWithBrowser(
        timeout: Duration = .seconds(300),
        loginHint: String? = nil,
        logger: Logger = .noop,
        openBrowser: @Sendable (URL) async throws -> Void
    ) async throws -> OAuth2Tokens {
        let template = self.configuration.redirectURI ?? URL(string: Self.defaultRedirectURI)
        guard let template else {
            throw WIFCredentialsError.invalidConfiguration("the default redirect URI is not a URL")
        }
        let (host, port, path) = try OAuth2ClientConfiguration.loopbackRedirect(template)
        // Fail on configuration problems before a port is opened.
        _ = try await self.metadata(logger: logger)

        let expected = ExpectedRedirect()
        let listener = try await OAuth2LoopbackListener.start(host: host, port: port, path: path) { parameters in
            Self.redirectPage(parameters, expected: expected.value.withLock { $0 })
        }
        do {
            let request = try await self.authorizationRequest(redirectURI: listener.redirectURI, loginHint: loginHint, logger: logger)
            expected.value.withLock { $0 = (request.state, request.issuer) }
            logger.debug(
                "waiting for the sign-in redirect",
                metadata: ["wif.oauth.redirect_uri": "\(listener.redirectURI)", "wif.oauth.timeout": "\(timeout)"]
            )
            try await openBrowser(request.url)
            let parameters = try await listener.redirect(timeout: timeout, timeSource: self.timeSource)
            await listener.close()
            guard let parameters else {
                throw WIFCredentialsError.authorizationFailed(
                    "the sign-in redirect repeats a parameter or is badly encoded; start the sign-in again")
            }
            return try await self.completeAuthorization(request, callbackParameters: parameters, logger: logger)
        } catch {
            await listener.close()
            throw error
        }
    }

    /// Starts a browser sign-in whose redirect the application receives itself.
    /// - Parameters:
    ///   - redirectURI: The redirect URI, exactly as registered (with its port for loopback URIs).
    ///   - loginHint: A `login_hint` for the issuer.
    ///   - logger: Where to log.
    /// - Returns: The URL to open and what to check the redirect against.
    /// - Throws: ``WIFCredentialsError``: `invalidConfiguration` when the issuer has no authorization
    ///   endpoint or does not offer PKCE S256; what ``metadata(logger:)`` throws.
    public func authorizationRequest(
        redirectURI: String,
        loginHint: String? = nil,
        logger: Logger = .noop
    ) async throws -> OAuth2AuthorizationRequest {
        let metadata = try await self.metadata(logger: logger)
        guard let endpoint = metadata.authorizationEndpoint else {
            throw WIFCredentialsError.invalidConfiguration(
                "the issuer \(metadata.issuer) has no authorization endpoint, so it cannot sign in through a browser; use the device flow")
        }
        if let methods = metadata.codeChallengeMethodsSupported, !methods.contains("S256") {
            throw WIFCredentialsError.invalidConfiguration(
                "the issuer \(metadata.issuer) offers PKCE methods [\(methods.joined(separator: ", "))] but not S256, which this client requires")
        }
        let pkce = OAuth2PKCE.generate()
        let state = OAuth2Random.token()
        let nonce = OAuth2Random.token()
        var parameters: [(name: String, value: String)] = [
            ("response_type", "code"),
            ("client_id", self.configuration.clientId),
            ("redirect_uri", redirectURI),
            ("scope", self.configuration.scopes.joined(separator: " ")),
            ("state", state),
            ("nonce", nonce),
            ("code_challenge", pkce.challenge),
            ("code_challenge_method", pkce.method),
        ]
        if let loginHint { parameters.append(("login_hint", loginHint)) }
        let base = endpoint.absoluteString
        let separator = endpoint.query == nil ? "?" : "&"
        guard let url = URL(string: base + separator + PercentEncoding.form(parameters)) else {
            throw WIFCredentialsError.invalidConfiguration("cannot build an authorization URL from \(base)")
        }
        return OAuth2AuthorizationRequest(url: url, redirectURI: redirectURI, state: state, nonce: nonce, pkce: pkce, issuer: metadata.issuer)
    }

    /// Completes a browser sign-in with the redirect's URL.
    /// - Parameters:
    ///   - request: The request the sign-in started with.
    ///   - callbackURL: The URL the browser was redirected to.
    ///   - logger: Where to log.
    /// - Returns: The verified tokens.
    /// - Throws: See ``completeAuthorization(_:callbackParameters:logger:)``.
    public func completeAuthorization(
        _ request: OAuth2AuthorizationRequest,
        callbackURL: URL,
        logger: Logger = .noop
    ) async throws -> OAuth2Tokens {
        guard let parameters = OAuth2FormDecoding.parameters(of: callbackURL) else {
            throw WIFCredentialsError.authorizationFailed("the sign-in redirect repeats a parameter or is badly encoded")
        }
        return try await self.completeAuthorization(request, callbackParameters: parameters, logger: logger)
    }

    /// Completes a browser sign-in with the redirect's query parameters: checks `state` (and `iss`,
    /// RFC 9207), then exchanges the code with the PKCE verifier and verifies the ID token and its
    /// `nonce`.
    /// - Parameters:
    ///   - request: The request the sign-in started with.
    ///   - callbackParameters: The redirect's query parameters.
    ///   - logger: Where to log.
    /// - Returns: The verified tokens.
    /// - Throws: ``WIFCredentialsError``: `authorizationFailed` for a missing or different `state` or
    ///   `iss`, a redirect without code, or a denial (`access_denied`); `oauth` for another error in
    ///   the redirect or from the token endpoint; `invalidIDToken`; `network`; `malformedResponse`.
    public func completeAuthorization(
        _ request: OAuth2AuthorizationRequest,
        callbackParameters parameters: [String: String],
        logger: Logger = .noop
    ) async throws -> OAuth2Tokens {
        if let problem = Self.redirectProblem(parameters, state: request.state, issuer: request.issuer) {
            throw problem
        }
        guard let code = parameters["code"] else {
            // redirectProblem has already reported redirects with neither a code nor an error.
            throw WIFCredentialsError.authorizationFailed("the sign-in redirect carries no code")
        }
        let outcome = try await self.requestTokens(
            [
                ("grant_type", "authorization_code"),
                ("code", code),
                ("redirect_uri", request.redirectURI),
                ("code_verifier", request.pkce.verifier),
            ],
            secrets: [code, request.pkce.verifier],
            logger: logger
        )
        switch outcome {
        case .failure(let error):
            throw WIFCredentialsError.oauth("the issuer refused to exchange the sign-in code for tokens: \(error)", error: error)
        case .success(let answer):
            let tokens = try await self.tokens(from: answer, nonce: request.nonce, previous: nil, logger: logger)
            logger.debug("signed in through the browser", metadata: Self.metadata(tokens))
            return tokens
        }
    }

    /// What is wrong with a redirect, checked in this order: `state`, `iss`, an error, a code.
    static func redirectProblem(_ parameters: [String: String], state: String, issuer: String) -> WIFCredentialsError? {
        guard let returned = parameters["state"] else {
            return .authorizationFailed("the sign-in redirect has no state, so it cannot be matched to this sign-in; start again")
        }
        guard SigV4Canonical.constantTimeEquals(returned, state) else {
            return .authorizationFailed(
                "the sign-in redirect's state does not match this sign-in: it answers another request (or was forged); start again")
        }
        if let returnedIssuer = parameters["iss"], returnedIssuer != issuer {
            return .authorizationFailed(
                "the sign-in redirect comes from issuer '\(returnedIssuer.prefix(200))', not '\(issuer)' (RFC 9207)")
        }
        if let error = OAuth2ErrorResponse.from(parameters, httpStatus: nil, redacting: []) {
            if error.error == "access_denied" {
                return .authorizationFailed("the sign-in was denied at the issuer: \(error)", error: error)
            }
            return .oauth("the issuer refused the sign-in request: \(error)", error: error)
        }
        if parameters["code"]?.isEmpty ?? true {
            return .authorizationFailed("the sign-in redirect carries neither a code nor an error")
        }
        return nil
    }

    /// The page the browser gets for a redirect.
    static func redirectPage(_ parameters: [String: String]?, expected: (state: String, issuer: String)?) -> OAuth2LoopbackListener.Page {
        guard let parameters, let expected else {
            return .init(status: 400, title: "Sign-in failed", message: "The sign-in answer was malformed. Return to the application and try again.")
        }
        guard let problem = Self.redirectProblem(parameters, state: expected.state, issuer: expected.issuer) else {
            return .init(status: 200, title: "Signed in", message: "You can close this window and return to the application.")
        }
        if problem.oauthError?.error == "access_denied" {
            return .init(status: 200, title: "Sign-in denied", message: "The sign-in was denied. You can close this window.")
        }
        return .init(status: 400, title: "Sign-in failed", message: "The sign-in did not complete. Return to the application for details.")
    }

    /// Log metadata describing tokens without any of them.
    static func metadata(_ tokens: OAuth2Tokens) -> Logger.Metadata {
        var metadata: Logger.Metadata = [
            "wif.oauth.id_token_expiration": "\(tokens.idTokenExpiresAt.formatted(.iso8601))",
            "wif.oauth.refresh_token": "\(tokens.refreshToken == nil ? "none" : "present")",
        ]
        if let subject = tokens.subject { metadata["wif.oauth.subject"] = "\(subject)" }
        if let scope = tokens.scope { metadata["wif.oauth.scope"] = "\(scope)" }
        return metadata
    }
}

/// The state and issuer the loopback listener's page checks, known once the request is built.
private final class ExpectedRedirect: Sendable {
    let value = Mutex<(state: String, issuer: String)?>(nil)
}
