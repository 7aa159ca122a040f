import Foundation
import Logging
import WIFCredentials

/// The development issuer's authorization server: it keeps the grants, mints tokens and persists
/// refresh-token families. The HTTP endpoints (``OAuthEndpoints``) check requests and clients and call it.
///
/// All times come from the stack's ``LocalState/timeSource``. Codes and device codes are kept in memory
/// only; refresh-token families are saved to the data directory after every change, so signed-in users
/// stay signed in across restarts. Tokens are never logged; only client ids, users and family ids are.
actor OAuthAuthorizationServer {
    /// The tokens of a successful token-endpoint answer.
    struct Tokens: Sendable {
        var accessToken: String
        var idToken: String
        var refreshToken: String?
        var expiresIn: Int
        var scopes: [String]

        /// The RFC 6749 §5.1 answer.
        var json: String {
            var members = [
                #""access_token":"\#(self.accessToken)""#,
                #""token_type":"Bearer""#,
                #""expires_in":\#(self.expiresIn)"#,
                #""id_token":"\#(self.idToken)""#,
            ]
            if let refreshToken = self.refreshToken { members.append(#""refresh_token":"\#(refreshToken)""#) }
            members.append(#""scope":"\#(self.scopes.joined(separator: " "))""#)
            return "{" + members.joined(separator: ",") + "}"
        }
    }

    /// A new device authorization.
    struct DeviceStart: Sendable {
        var deviceCode: String
        var userCode: String
        var expiresIn: Int
        var interval: Int
    }

    /// The letters of user codes: no vowels (no words) and none easily mistaken (RFC 8628 §6.1).
    static let userCodeAlphabet = Array("BCDFGHJKLMNPQRSTVWXZ")

    private let settings: LocalConfiguration.OAuth
    private let timeSource: TimeSource
    private let logger: Logger
    private let store: RefreshTokenStore
    private let minter: OAuthTokenMinter
    private var grants: OAuthGrants
    private var userCodeThrottle: UserCodeThrottle

    /// Opens the server of a stack: loads the signing key and the saved refresh-token families.
    /// - Throws: ``LocalStackError`` when the key or the families file cannot be used.
    init(state: LocalState) throws(LocalStackError) {
        self.settings = state.configuration.oauth
        self.timeSource = state.timeSource
        self.logger = state.logger
        self.store = try RefreshTokenStore(data: state.data)
        self.minter = try OAuthTokenMinter(state: state)
        self.grants = OAuthGrants(families: try self.store.load())
        self.userCodeThrottle = UserCodeThrottle(
            limit: state.configuration.oauth.userCodeGuesses, window: TimeInterval(state.configuration.oauth.userCodeGuessWindow))
    }

    // MARK: Authorization code

    /// Issues an authorization code for an authorization request the user approved now.
    /// - Returns: The code, for the redirect.
    func issueCode(
        clientId: String, subject: String, scopes: [String], nonce: String?, redirectURI: String, codeChallenge: String?
    ) -> String {
        let now = self.timeSource.now()
        self.prune(now: now)
        let authorization = OAuthAuthorization(clientId: clientId, subject: subject, scopes: scopes, authTime: OAuthGrants.seconds(now))
        let code = OAuthSecrets.randomToken()
        self.grants.addCode(
            digest: OAuthSecrets.digest(code),
            OAuthGrants.AuthorizationCode(
                authorization: authorization, nonce: nonce, redirectURI: redirectURI, codeChallenge: codeChallenge,
                expiresAt: now.addingTimeInterval(TimeInterval(self.settings.authorizationCodeLifetime))
            )
        )
        self.logger.debug("authorization code issued", metadata: self.metadata(authorization))
        return code
    }

    /// Redeems an authorization code (the client is already authenticated).
    func exchange(code: String, clientId: String, redirectURI: String, verifier: String?) -> Result<Tokens, OAuthError> {
        let now = self.timeSource.now()
        self.prune(now: now)
        let digest = OAuthSecrets.digest(code)
        let (result, changed) = self.grants.redeemCode(digest: digest, clientId: clientId, redirectURI: redirectURI, verifier: verifier, now: now)
        if changed {
            self.logger.info("an authorization code was used twice; its refresh tokens are revoked", metadata: ["wif.local.oauth.client_id": "\(clientId)"])
            if let error = self.save() { return .failure(error) }
        }
        switch result {
        case .failure(let error):
            return .failure(error)
        case .success(let (authorization, nonce)):
            return self.mint(for: authorization, nonce: nonce, now: now) { familyId in
                self.grants.attach(familyId: familyId, toCode: digest)
            }
        }
    }

    // MARK: Refresh token

    /// Rotates a refresh token and issues new tokens.
    func refresh(token: String, clientId: String, scopes: [String]?) -> Result<Tokens, OAuthError> {
        let now = self.timeSource.now()
        self.prune(now: now)
        let digest = OAuthSecrets.digest(token)
        let newToken = OAuthSecrets.randomToken()
        let familyId = self.grants.family(ofToken: digest)?.id
        let (result, changed) = self.grants.rotate(
            digest: digest, clientId: clientId, newDigest: OAuthSecrets.digest(newToken), scopes: scopes, now: now,
            lifetime: self.settings.refreshTokenLifetime
        )
        if case .failure(let error) = result, changed {
            self.logger.info(
                "a replaced refresh token was presented again; its family is revoked",
                metadata: ["wif.local.oauth.client_id": "\(clientId)", "wif.local.oauth.family": "\(familyId ?? "")", "wif.local.oauth.error": "\(error.code)"]
            )
        }
        if changed, let error = self.save() { return .failure(error) }
        switch result {
        case .failure(let error):
            return .failure(error)
        case .success(let authorization):
            do {
                let idToken = try self.minter.idToken(
                    for: authorization, nonce: nil, issuedAt: OAuthGrants.seconds(now), lifetime: self.settings.idTokenLifetime)
                self.logger.debug("refresh token rotated", metadata: self.metadata(authorization))
                return .success(
                    Tokens(
                        accessToken: OAuthSecrets.randomToken(), idToken: idToken, refreshToken: newToken,
                        expiresIn: self.settings.idTokenLifetime, scopes: authorization.scopes
                    )
                )
            } catch {
                return .failure(.serverError("cannot sign the ID token"))
            }
        }
    }

    /// Revokes the family of a refresh token of the client; anything else is ignored (RFC 7009 §2.2).
    /// - Returns: An error only when the change could not be saved.
    func revoke(token: String, clientId: String) -> OAuthError? {
        let now = self.timeSource.now()
        self.prune(now: now)
        guard self.grants.revoke(digest: OAuthSecrets.digest(token), clientId: clientId, now: now) else { return nil }
        self.logger.info("refresh token family revoked", metadata: ["wif.local.oauth.client_id": "\(clientId)"])
        return self.save()
    }

    // MARK: Device authorization

    /// Starts a device authorization.
    func startDevice(clientId: String, scopes: [String]) -> DeviceStart {
        let now = self.timeSource.now()
        self.prune(now: now)
        let deviceCode = OAuthSecrets.randomToken()
        var userCode: String
        var generator = SystemRandomNumberGenerator()
        repeat {
            userCode = String((0..<8).map { _ in Self.userCodeAlphabet[Int.random(in: 0..<Self.userCodeAlphabet.count, using: &generator)] })
        } while self.grants.pendingDevice(userCode: userCode, now: now) != nil
        self.grants.addDevice(
            digest: OAuthSecrets.digest(deviceCode),
            OAuthGrants.DeviceAuthorization(
                clientId: clientId, scopes: scopes, userCode: userCode,
                expiresAt: now.addingTimeInterval(TimeInterval(self.settings.deviceCodeLifetime)), interval: self.settings.deviceInterval
            )
        )
        self.logger.debug("device authorization started", metadata: ["wif.local.oauth.client_id": "\(clientId)"])
        return DeviceStart(
            deviceCode: deviceCode, userCode: Self.display(userCode), expiresIn: self.settings.deviceCodeLifetime,
            interval: self.settings.deviceInterval
        )
    }

    /// The client and scopes of a pending device authorization, for the verification page.
    func pendingDevice(userCode: String) -> (clientId: String, scopes: [String])? {
        guard let normalized = Self.normalize(userCode: userCode),
            let device = self.grants.pendingDevice(userCode: normalized, now: self.timeSource.now())
        else { return nil }
        return (device.clientId, device.scopes)
    }

    /// What a user code typed on the verification page leads to.
    enum UserCodeLookup: Sendable, Equatable {
        /// A pending authorization: its client and scopes.
        case pending(clientId: String, scopes: [String])
        /// No pending authorization has the code; the wrong code was counted.
        case unknown
        /// Too many wrong codes came from the address (or the stack) lately: not checked.
        case throttled(retryAfter: Int)
    }

    /// Looks up a user code submitted from `address`, unless too many wrong codes came from it (or from
    /// anywhere) within the guess window; a wrong code is counted.
    func lookUpDevice(userCode: String, from address: String) -> UserCodeLookup {
        let now = self.timeSource.now()
        if let retryAfter = self.userCodeThrottle.retryAfter(address: address, now: now) {
            self.logger.debug("user code refused: too many wrong codes", metadata: ["wif.local.oauth.address": "\(address)"])
            return .throttled(retryAfter: retryAfter)
        }
        guard let pending = self.pendingDevice(userCode: userCode) else {
            self.userCodeThrottle.recordWrong(address: address, now: now)
            return .unknown
        }
        return .pending(clientId: pending.clientId, scopes: pending.scopes)
    }

    /// Approves (as a user) or denies (`nil`) a device authorization.
    func decideDevice(userCode: String, approvingAs subject: String?) -> OAuthGrants.DeviceDecisionOutcome {
        guard let normalized = Self.normalize(userCode: userCode) else { return .unknown }
        let outcome = self.grants.decide(userCode: normalized, approvingAs: subject, now: self.timeSource.now())
        self.logger.debug("device authorization decided", metadata: ["wif.local.oauth.outcome": "\(outcome)"])
        return outcome
    }

    /// Answers a poll with a device code.
    func pollDevice(code: String, clientId: String) -> Result<Tokens, OAuthError> {
        let now = self.timeSource.now()
        self.prune(now: now)
        switch self.grants.poll(digest: OAuthSecrets.digest(code), clientId: clientId, now: now) {
        case .failure(let error):
            return .failure(error)
        case .success(let authorization):
            return self.mint(for: authorization, nonce: nil, now: now) { _ in }
        }
    }

    /// A user code as shown: `XXXX-XXXX`.
    static func display(_ userCode: String) -> String {
        String(userCode.prefix(4)) + "-" + String(userCode.dropFirst(4))
    }

    /// A user code as typed, upper-cased without dashes and spaces; `nil` unless 8 letters of the alphabet.
    static func normalize(userCode: String) -> String? {
        let letters = userCode.uppercased().filter { $0 != "-" && $0 != " " }
        guard letters.count == 8, letters.allSatisfy(Self.userCodeAlphabet.contains) else { return nil }
        return letters
    }

    // MARK: Helpers

    /// Mints the tokens of a new sign-in, starting a refresh-token family when `offline_access` was granted.
    private func mint(
        for authorization: OAuthAuthorization, nonce: String?, now: Date, attach: (String) -> Void
    ) -> Result<Tokens, OAuthError> {
        let idToken: String
        do {
            idToken = try self.minter.idToken(
                for: authorization, nonce: nonce, issuedAt: OAuthGrants.seconds(now), lifetime: self.settings.idTokenLifetime)
        } catch {
            return .failure(.serverError("cannot sign the ID token"))
        }
        var refreshToken: String?
        if authorization.offlineAccess {
            let token = OAuthSecrets.randomToken()
            let familyId = OAuthSecrets.randomToken()
            self.grants.createFamily(
                id: familyId, authorization: authorization, tokenDigest: OAuthSecrets.digest(token), now: now,
                lifetime: self.settings.refreshTokenLifetime
            )
            attach(familyId)
            if let error = self.save() { return .failure(error) }
            refreshToken = token
        }
        self.logger.debug("tokens issued", metadata: self.metadata(authorization))
        return .success(
            Tokens(
                accessToken: OAuthSecrets.randomToken(), idToken: idToken, refreshToken: refreshToken,
                expiresIn: self.settings.idTokenLifetime, scopes: authorization.scopes
            )
        )
    }

    private func prune(now: Date) {
        if self.grants.prune(now: now) { _ = self.save() }
    }

    /// Saves the families; the error to answer when that fails.
    private func save() -> OAuthError? {
        do {
            try self.store.save(self.grants.familyList)
            return nil
        } catch {
            self.logger.info("cannot save the refresh tokens", metadata: ["wif.local.oauth.error": "\(error.message)"])
            return .serverError("the authorization server cannot save its refresh tokens")
        }
    }

    private func metadata(_ authorization: OAuthAuthorization) -> Logger.Metadata {
        ["wif.local.oauth.client_id": "\(authorization.clientId)", "wif.local.oauth.user": "\(authorization.subject)"]
    }
}
