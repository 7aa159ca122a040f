import Foundation
import Logging
import WIFFoundation
import WIFHTTP

extension OAuth2Client {
    /// A successful token endpoint answer (RFC 6749 §5.1, OpenID Connect Core §3.1.3.3).
    struct TokenAnswer: Sendable {
        var accessToken: String
        var tokenType: String
        var expiresIn: Int?
        var refreshToken: String?
        var idToken: String?
        var scope: String?
    }

    /// Posts a form to one of the issuer's endpoints, authenticating the client as configured.
    /// - Parameters:
    ///   - url: The endpoint.
    ///   - parameters: The form parameters, without client authentication.
    ///   - endpoint: The endpoint's name, for messages.
    ///   - logger: Where to log.
    /// - Returns: The answer, whatever its status.
    func postForm(_ url: URL, _ parameters: [(name: String, value: String)], endpoint: String, logger: Logger) async throws -> TransportResponse {
        var form = parameters
        var headers: [(name: String, value: String)] = [
            ("Content-Type", "application/x-www-form-urlencoded"),
            ("Accept", "application/json"),
            ("User-Agent", SwiftWIFVersion.userAgent()),
        ]
        let clientId = self.configuration.clientId
        let secret = self.configuration.clientSecret ?? ""
        switch self.configuration.effectiveClientAuthentication.base {
        case .none:
            form.append(("client_id", clientId))
        case .clientSecretPost:
            form.append(("client_id", clientId))
            form.append(("client_secret", secret))
        case .clientSecretBasic:
            // RFC 6749 §2.3.1: both parts form-encoded before Base64.
            let credentials = PercentEncoding.encode(clientId) + ":" + PercentEncoding.encode(secret)
            headers.append(("Authorization", "Basic " + Data(credentials.utf8).base64EncodedString()))
        }
        let request = TransportRequest(url: url, method: "POST", headers: headers, body: Array(PercentEncoding.form(form).utf8))
        return try await self.send(request, endpoint: endpoint, logger: logger)
    }

    /// Reads a JSON answer: the object on success, the OAuth error otherwise.
    /// - Throws: `malformedResponse` when the body is not a JSON object or an error status carries no
    ///   OAuth error.
    func readJSON(
        _ response: TransportResponse,
        endpoint: String,
        secrets: [String]
    ) throws(WIFCredentialsError) -> Result<[String: JSONNode], OAuth2ErrorResponse> {
        let success = (200..<300).contains(response.status)
        guard let object = (try? JSONParser.parse(response.body))?.objectMembers else {
            let detail = success ? "" : ": " + Self.excerpt(response.body, secrets: secrets)
            throw .malformedResponse("the issuer's \(endpoint) answered HTTP \(response.status) with a body that is not a JSON object\(detail)")
        }
        let strings = object.compactMapValues(\.stringValue)
        if !success || strings["error"] != nil {
            guard let error = OAuth2ErrorResponse.from(strings, httpStatus: response.status, redacting: secrets) else {
                // A successful status may carry tokens the issuer just made, which no list of what was sent
                // can redact: its body is not quoted.
                let detail = success
                    ? ": its 'error' member is empty" : ": " + Self.excerpt(response.body, secrets: secrets)
                throw .malformedResponse("the issuer's \(endpoint) answered HTTP \(response.status) without an OAuth error\(detail)")
            }
            return .failure(error)
        }
        return .success(object)
    }

    /// Sends a token request (any grant) and reads the answer.
    /// - Parameters:
    ///   - parameters: The grant's form parameters.
    ///   - secrets: What the request carries that must not be quoted in errors.
    ///   - logger: Where to log.
    /// - Returns: The tokens, or the issuer's OAuth error for the caller to interpret.
    /// - Throws: `invalidConfiguration` when the issuer has no token endpoint; `network`;
    ///   `malformedResponse`.
    func requestTokens(
        _ parameters: [(name: String, value: String)],
        secrets: [String],
        logger: Logger
    ) async throws -> Result<TokenAnswer, OAuth2ErrorResponse> {
        let metadata = try await self.metadata(logger: logger)
        guard let tokenEndpoint = metadata.tokenEndpoint else {
            throw WIFCredentialsError.invalidConfiguration("the issuer \(metadata.issuer) has no token endpoint")
        }
        let allSecrets = secrets + [self.configuration.clientSecret].compactMap { $0 }
        let response = try await self.postForm(tokenEndpoint, parameters, endpoint: "token endpoint", logger: logger)
        switch try self.readJSON(response, endpoint: "token endpoint", secrets: allSecrets) {
        case .failure(let error):
            logger.debug("the token endpoint answered with an error", metadata: ["wif.oauth.error": "\(error.error)", "wif.oauth.http_status": "\(response.status)"])
            return .failure(error)
        case .success(let object):
            guard let accessToken = object["access_token"]?.stringValue, !accessToken.isEmpty else {
                throw WIFCredentialsError.malformedResponse("the issuer's token endpoint answered without an access_token")
            }
            guard let tokenType = object["token_type"]?.stringValue else {
                throw WIFCredentialsError.malformedResponse("the issuer's token endpoint answered without a token_type")
            }
            return .success(
                TokenAnswer(
                    accessToken: accessToken,
                    tokenType: tokenType,
                    expiresIn: Self.integer(object["expires_in"]),
                    refreshToken: object["refresh_token"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 },
                    idToken: object["id_token"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 },
                    scope: object["scope"]?.stringValue
                )
            )
        }
    }

    /// Turns a token answer into verified tokens.
    /// - Parameters:
    ///   - answer: The token endpoint's answer.
    ///   - nonce: The nonce the ID token must carry, when the authorization request sent one.
    ///   - previous: The tokens being refreshed: their refresh token is kept when none is returned,
    ///     their ID token when the answer has none, and the new ID token must be for the same subject.
    ///   - logger: Where to log.
    /// - Throws: `malformedResponse` when a first sign-in's answer has no ID token; `invalidIDToken`.
    func tokens(from answer: TokenAnswer, nonce: String?, previous: OAuth2Tokens?, logger: Logger) async throws -> OAuth2Tokens {
        let now = self.timeSource.now()
        let accessTokenExpiresAt = answer.expiresIn.map { now.addingTimeInterval(TimeInterval($0)) }
        guard let idToken = answer.idToken else {
            guard var renewed = previous else {
                throw WIFCredentialsError.malformedResponse(
                    "the issuer's token endpoint answered without an id_token; the scopes must include openid and the issuer must support OpenID Connect")
            }
            // OpenID Connect Core §12.2: a refresh may leave the ID token out.
            renewed.accessToken = answer.accessToken
            renewed.tokenType = answer.tokenType
            renewed.accessTokenExpiresAt = accessTokenExpiresAt
            renewed.accessTokenIssuedAt = now
            if let refreshToken = answer.refreshToken { renewed.refreshToken = refreshToken }
            if let scope = answer.scope { renewed.scope = scope }
            return renewed
        }
        let verifier = try await self.idTokenVerifier(logger: logger)
        let claims = try await verifier.verify(idToken, nonce: nonce, logger: logger)
        if let previousSubject = previous?.subject, previousSubject != claims.subject {
            throw WIFCredentialsError.invalidIDToken(
                "the renewed ID token is for subject '\(claims.subject.prefix(200))', not '\(previousSubject)' who signed in (OpenID Connect Core §12.2)")
        }
        return OAuth2Tokens(
            idToken: idToken,
            accessToken: answer.accessToken,
            refreshToken: answer.refreshToken ?? previous?.refreshToken,
            tokenType: answer.tokenType,
            idTokenExpiresAt: claims.expiresAt,
            idTokenIssuedAt: claims.issuedAt,
            accessTokenExpiresAt: accessTokenExpiresAt,
            accessTokenIssuedAt: now,
            scope: answer.scope ?? previous?.scope,
            issuer: claims.issuer,
            subject: claims.subject
        )
    }

    /// The start of a body, printable and with secrets removed, for error messages.
    static func excerpt(_ body: [UInt8], secrets: [String]) -> String {
        if body.isEmpty { return "(empty body)" }
        let text = OAuth2ErrorResponse.clean(String(decoding: body, as: UTF8.self), secrets: secrets, limit: 200)
        return "'\(text)' (\(body.count) bytes)"
    }
}
