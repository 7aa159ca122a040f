import Foundation
import Logging
import WIFHTTP

extension OAuth2Client {
    /// Which kind of token a revocation names (RFC 7009 §2.1). Open-ended.
    public struct TokenTypeHint: Sendable, Hashable, CustomStringConvertible {
        /// The hint's wire value.
        public let rawValue: String

        /// A refresh token: revoking it ends the whole sign-in.
        public static let refreshToken = TokenTypeHint(rawValue: "refresh_token")
        /// An access token.
        public static let accessToken = TokenTypeHint(rawValue: "access_token")

        /// Creates a hint from its wire value.
        /// - Parameter rawValue: The value, such as `refresh_token`.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// The wire value.
        public var description: String { self.rawValue }
    }

    /// Renews tokens with their refresh token (RFC 6749 §6).
    ///
    /// When the issuer rotates refresh tokens, the answer's new refresh token replaces the old one,
    /// which stops working: keep the returned tokens. The new ID token is verified and must be for the
    /// same subject; when the answer carries none, the old ID token is kept.
    /// - Parameters:
    ///   - tokens: The current tokens.
    ///   - logger: Where to log (never a token).
    /// - Returns: The renewed tokens.
    /// - Throws: ``WIFCredentialsError``: `signInRequired` when there is no refresh token or the issuer
    ///   rejects it (`invalid_grant`: expired, revoked, or already used); `oauth` for other refusals;
    ///   `invalidIDToken`; `malformedResponse`; `network`.
    public func refresh(
        _ tokens: OAuth2Tokens,
        logger: Logger = .noop
    ) async throws -> OAuth2Tokens {
        guard let refreshToken = tokens.refreshToken else {
            throw WIFCredentialsError.signInRequired(
                "the sign-in\(Self.whose(tokens)) has no refresh token (the issuer did not grant offline_access), so it cannot be renewed; sign in again")
        }
        let outcome = try await self.requestTokens(
            [("grant_type", "refresh_token"), ("refresh_token", refreshToken)],
            secrets: [refreshToken],
            logger: logger
        )
        switch outcome {
        case .failure(let error) where error.error == "invalid_grant":
            throw WIFCredentialsError.signInRequired(
                "the issuer rejected the refresh token\(Self.whose(tokens)) (\(error)): it expired, was revoked, or was already used; sign in again",
                error: error
            )
        case .failure(let error):
            throw WIFCredentialsError.oauth("the issuer refused to renew the tokens: \(error)", error: error)
        case .success(let answer):
            let renewed = try await self.tokens(from: answer, nonce: nil, previous: tokens, logger: logger)
            var metadata = Self.metadata(renewed)
            metadata["wif.oauth.refresh_token_rotated"] = "\(answer.refreshToken != nil && answer.refreshToken != refreshToken)"
            logger.debug("renewed the tokens", metadata: metadata)
            return renewed
        }
    }

    /// Revokes one token (RFC 7009).
    /// - Parameters:
    ///   - token: The token to revoke.
    ///   - hint: Which kind of token it is.
    ///   - logger: Where to log.
    /// - Throws: ``WIFCredentialsError``: `invalidConfiguration` when the issuer has no revocation
    ///   endpoint; `oauth` when it refuses (an unknown or already revoked token is not a refusal);
    ///   `malformedResponse`; `network`.
    public func revoke(
        _ token: String,
        hint: TokenTypeHint,
        logger: Logger = .noop
    ) async throws {
        let metadata = try await self.metadata(logger: logger)
        guard let endpoint = metadata.revocationEndpoint else {
            throw WIFCredentialsError.invalidConfiguration("the issuer \(metadata.issuer) has no revocation endpoint")
        }
        let response = try await self.postForm(
            endpoint, [("token", token), ("token_type_hint", hint.rawValue)], endpoint: "revocation endpoint", logger: logger)
        if response.status == 200 {
            logger.debug("revoked a token", metadata: ["wif.oauth.token_type_hint": "\(hint)"])
            return
        }
        let secrets = [token] + [self.configuration.clientSecret].compactMap { $0 }
        switch try self.readJSON(response, endpoint: "revocation endpoint", secrets: secrets) {
        case .failure(let error):
            throw WIFCredentialsError.oauth("the issuer refused to revoke the \(hint.rawValue.replacingOccurrences(of: "_", with: " ")): \(error)", error: error)
        case .success:
            throw WIFCredentialsError.malformedResponse("the issuer's revocation endpoint answered HTTP \(response.status) instead of 200")
        }
    }

    /// Ends a sign-in at the issuer: revokes the refresh token (which revokes what was issued with it,
    /// RFC 7009 §2.1), or the access token when there is no refresh token.
    /// - Parameters:
    ///   - tokens: The sign-in's tokens.
    ///   - logger: Where to log.
    /// - Throws: See ``revoke(_:hint:logger:)``.
    public func revoke(
        _ tokens: OAuth2Tokens,
        logger: Logger = .noop
    ) async throws {
        if let refreshToken = tokens.refreshToken {
            try await self.revoke(refreshToken, hint: .refreshToken, logger: logger)
        } else {
            try await self.revoke(tokens.accessToken, hint: .accessToken, logger: logger)
        }
    }

    /// ` of <subject>` when the subject is known.
    static func whose(_ tokens: OAuth2Tokens) -> String {
        tokens.subject.map { " of '\($0)'" } ?? ""
    }
}
