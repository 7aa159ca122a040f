import Foundation

/// The authorization server's grants: authorization codes, device authorizations and refresh-token
/// families. A value type with no I/O and no clock: every operation takes the time and the new secrets'
/// digests, changes the state and says what happened, so each rule is tested directly.
///
/// Codes and device codes live in memory only (they last a minute or ten); families are persisted by
/// the caller whenever an operation reports that they changed.
struct OAuthGrants: Sendable {
    /// An authorization code waiting to be redeemed, or redeemed and remembered until it expires so that
    /// a second use is detected.
    struct AuthorizationCode: Sendable {
        var authorization: OAuthAuthorization
        var nonce: String?
        var redirectURI: String
        var codeChallenge: String?
        var expiresAt: Date
        var spent = false
        /// The family of the refresh tokens issued for it.
        var familyId: String?
    }

    /// A device authorization (RFC 8628).
    struct DeviceAuthorization: Sendable {
        enum Decision: Sendable, Equatable {
            case pending
            case approved(subject: String, authTime: Int64)
            case denied
        }

        var clientId: String
        var scopes: [String]
        var userCode: String
        var expiresAt: Date
        /// Seconds the client must wait between polls; grows by 5 at each `slow_down`.
        var interval: Int
        var lastPoll: Date?
        var decision: Decision = .pending
        var redeemed = false
    }

    /// What a user's visit to the verification page did.
    enum DeviceDecisionOutcome: Sendable, Equatable {
        case approved
        case denied
        /// No pending authorization has that user code (unknown, expired or already decided).
        case unknown
        case alreadyDecided
        case expired
    }

    private(set) var codes: [String: AuthorizationCode] = [:]
    private(set) var devices: [String: DeviceAuthorization] = [:]
    private var deviceByUserCode: [String: String] = [:]
    private(set) var families: [String: RefreshTokenFamily] = [:]
    private var familyByDigest: [String: String] = [:]

    /// A state with persisted families.
    init(families: [RefreshTokenFamily] = []) {
        for family in families {
            self.families[family.id] = family
            self.index(family)
        }
    }

    /// Every family, ordered by creation, for saving.
    var familyList: [RefreshTokenFamily] {
        self.families.values.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
    }

    private mutating func index(_ family: RefreshTokenFamily) {
        if let current = family.currentDigest { self.familyByDigest[current] = family.id }
        for digest in family.spentDigests { self.familyByDigest[digest] = family.id }
    }

    // MARK: Authorization codes

    /// Remembers a new code.
    mutating func addCode(digest: String, _ code: AuthorizationCode) {
        self.codes[digest] = code
    }

    /// Redeems a code at the token endpoint.
    ///
    /// The checks run in this order: the code exists and has not expired; a code already redeemed is
    /// refused and the refresh tokens issued for it are revoked (RFC 6749 §4.1.2); a code of another
    /// client is refused and left for its own client; otherwise the code is spent, whatever follows, so
    /// that a wrong `redirect_uri` or `code_verifier` cannot be retried.
    /// - Returns: The sign-in and its nonce, or the error, with whether families changed.
    mutating func redeemCode(
        digest: String, clientId: String, redirectURI: String, verifier: String?, now: Date
    ) -> (result: Result<(OAuthAuthorization, nonce: String?), OAuthError>, familiesChanged: Bool) {
        guard var code = self.codes[digest] else {
            return (.failure(.invalidGrant("the authorization code is unknown or has expired")), false)
        }
        guard now < code.expiresAt else {
            self.codes[digest] = nil
            return (.failure(.invalidGrant("the authorization code has expired")), false)
        }
        if code.spent {
            let revoked = code.familyId.map { self.revokeFamily(id: $0, now: now) } ?? false
            return (.failure(.invalidGrant("the authorization code was already used; the tokens issued for it are revoked")), revoked)
        }
        guard code.authorization.clientId == clientId else {
            return (.failure(.invalidGrant("the authorization code was issued to another client")), false)
        }
        code.spent = true
        self.codes[digest] = code
        guard code.redirectURI == redirectURI else {
            return (.failure(.invalidGrant("redirect_uri is not the one of the authorization request")), false)
        }
        switch (code.codeChallenge, verifier) {
        case (.some, .none):
            return (.failure(.invalidGrant("code_verifier is missing; the authorization request had a code_challenge")), false)
        case (.none, .some):
            return (.failure(.invalidGrant("code_verifier was given but the authorization request had no code_challenge")), false)
        case (.some(let challenge), .some(let verifier)):
            guard PKCE.isWellFormed(verifier) else {
                return (.failure(.invalidGrant("code_verifier must be 43 to 128 characters of A-Z, a-z, 0-9, '-', '.', '_' and '~'")), false)
            }
            guard PKCE.verify(verifier, challenge: challenge) else {
                return (.failure(.invalidGrant("code_verifier does not match the code_challenge of the authorization request")), false)
            }
        case (.none, .none):
            break
        }
        return (.success((code.authorization, code.nonce)), false)
    }

    /// Records the family of the refresh tokens issued for a code, so a second use of the code revokes it.
    mutating func attach(familyId: String, toCode digest: String) {
        self.codes[digest]?.familyId = familyId
    }

    // MARK: Refresh tokens

    /// Starts a family with its first token.
    mutating func createFamily(id: String, authorization: OAuthAuthorization, tokenDigest: String, now: Date, lifetime: Int) {
        let seconds = Self.seconds(now)
        let family = RefreshTokenFamily(
            id: id, authorization: authorization, createdAt: seconds, currentDigest: tokenDigest,
            expiresAt: seconds + Int64(lifetime), spentDigests: [], revokedAt: nil
        )
        self.families[id] = family
        self.familyByDigest[tokenDigest] = id
    }

    /// Replaces a refresh token with a new one.
    ///
    /// A token that is not its family's current one but was once is reuse: the family is revoked. A
    /// revoked, expired or unknown token, or one of another client, is refused.
    /// - Parameters:
    ///   - scopes: The scopes asked for, which must have been granted; `nil` for all of them.
    /// - Returns: The sign-in with the scopes of the new tokens, or the error; and whether families changed.
    mutating func rotate(
        digest: String, clientId: String, newDigest: String, scopes: [String]?, now: Date, lifetime: Int
    ) -> (result: Result<OAuthAuthorization, OAuthError>, familiesChanged: Bool) {
        guard let id = self.familyByDigest[digest], var family = self.families[id] else {
            return (.failure(.invalidGrant("the refresh token is unknown, expired or revoked")), false)
        }
        guard family.authorization.clientId == clientId else {
            return (.failure(.invalidGrant("the refresh token was issued to another client")), false)
        }
        guard family.revokedAt == nil else {
            return (.failure(.invalidGrant("the refresh token was revoked; sign in again")), false)
        }
        guard family.currentDigest == digest else {
            let changed = self.revokeFamily(id: id, now: now)
            return (.failure(.invalidGrant("the refresh token was already used; every token of this sign-in is revoked, sign in again")), changed)
        }
        let seconds = Self.seconds(now)
        guard seconds < family.expiresAt else {
            return (.failure(.invalidGrant("the refresh token has expired; sign in again")), false)
        }
        var authorization = family.authorization
        if let scopes {
            if let extra = scopes.first(where: { !family.authorization.scopes.contains($0) }) {
                return (.failure(.invalidScope("the scope \(extra) was not granted to this refresh token")), false)
            }
            authorization.scopes = scopes
        }
        family.spentDigests.append(digest)
        if family.spentDigests.count > RefreshTokenFamily.maximumSpentTokens {
            let dropped = family.spentDigests.removeFirst()
            self.familyByDigest[dropped] = nil
        }
        family.currentDigest = newDigest
        family.expiresAt = seconds + Int64(lifetime)
        self.families[id] = family
        self.familyByDigest[newDigest] = id
        return (.success(authorization), true)
    }

    /// Revokes the family of a refresh token, if the token is one of the client's (RFC 7009 §2.1: a token
    /// of another client is left alone, and the answer is the same).
    /// - Returns: Whether families changed.
    mutating func revoke(digest: String, clientId: String, now: Date) -> Bool {
        guard let id = self.familyByDigest[digest], let family = self.families[id], family.authorization.clientId == clientId else {
            return false
        }
        return self.revokeFamily(id: id, now: now)
    }

    /// Revokes a family: its current token stops working. Its digests stay known, so later attempts are
    /// still recognised, until it is pruned.
    private mutating func revokeFamily(id: String, now: Date) -> Bool {
        guard var family = self.families[id], family.revokedAt == nil else { return false }
        if let current = family.currentDigest { family.spentDigests.append(current) }
        family.currentDigest = nil
        family.revokedAt = Self.seconds(now)
        self.families[id] = family
        return true
    }

    /// The family a refresh token belongs to, for tests and logs.
    func family(ofToken digest: String) -> RefreshTokenFamily? {
        self.familyByDigest[digest].flatMap { self.families[$0] }
    }

    // MARK: Device authorizations

    /// Remembers a new device authorization under its device code's digest.
    mutating func addDevice(digest: String, _ device: DeviceAuthorization) {
        self.devices[digest] = device
        self.deviceByUserCode[device.userCode] = digest
    }

    /// Whether a user code names a pending, unexpired device authorization.
    func pendingDevice(userCode: String, now: Date) -> DeviceAuthorization? {
        guard let digest = self.deviceByUserCode[userCode], let device = self.devices[digest],
            device.decision == .pending, now < device.expiresAt
        else { return nil }
        return device
    }

    /// Approves (with a user) or denies the device authorization of a user code.
    mutating func decide(userCode: String, approvingAs subject: String?, now: Date) -> DeviceDecisionOutcome {
        guard let digest = self.deviceByUserCode[userCode], var device = self.devices[digest] else { return .unknown }
        guard now < device.expiresAt else { return .expired }
        guard device.decision == .pending else { return .alreadyDecided }
        if let subject {
            device.decision = .approved(subject: subject, authTime: Self.seconds(now))
        } else {
            device.decision = .denied
        }
        self.devices[digest] = device
        return subject == nil ? .denied : .approved
    }

    /// Answers a poll of the token endpoint with a device code (RFC 8628 §3.5): `expired_token` past the
    /// code's lifetime, `access_denied` once the user denied, `slow_down` (and 5 more seconds of interval)
    /// when polled sooner than the interval, `authorization_pending` while the user has not decided, and
    /// the sign-in once they approved — once only.
    mutating func poll(digest: String, clientId: String, now: Date) -> Result<OAuthAuthorization, OAuthError> {
        guard var device = self.devices[digest] else {
            return .failure(.invalidGrant("the device code is unknown"))
        }
        guard device.clientId == clientId else {
            return .failure(.invalidGrant("the device code was issued to another client"))
        }
        guard now < device.expiresAt else {
            return .failure(OAuthError(.expiredToken, "the device code has expired; start again"))
        }
        guard !device.redeemed else {
            return .failure(.invalidGrant("the device code was already used"))
        }
        switch device.decision {
        case .denied:
            return .failure(OAuthError(.accessDenied, "the user denied the request"))
        case .approved(let subject, let authTime):
            device.redeemed = true
            self.devices[digest] = device
            return .success(OAuthAuthorization(clientId: device.clientId, subject: subject, scopes: device.scopes, authTime: authTime))
        case .pending:
            defer { self.devices[digest] = device }
            if let last = device.lastPoll, now.timeIntervalSince(last) < Double(device.interval) {
                device.interval += 5
                device.lastPoll = now
                return .failure(OAuthError(.slowDown, "polled sooner than the interval; wait \(device.interval) seconds between polls"))
            }
            device.lastPoll = now
            return .failure(OAuthError(.authorizationPending, "the user has not yet approved the request"))
        }
    }

    // MARK: Housekeeping

    /// Forgets codes and device authorizations well past their expiry, and families whose current token
    /// expired.
    /// - Parameter keepExpiredFor: How long an expired device authorization still answers `expired_token`.
    /// - Returns: Whether families changed.
    mutating func prune(now: Date, keepExpiredFor: TimeInterval = 600) -> Bool {
        self.codes = self.codes.filter { now < $0.value.expiresAt }
        for (digest, device) in self.devices where now >= device.expiresAt.addingTimeInterval(keepExpiredFor) {
            self.devices[digest] = nil
            self.deviceByUserCode[device.userCode] = nil
        }
        let seconds = Self.seconds(now)
        let expired = self.families.values.filter { seconds >= $0.expiresAt }
        for family in expired {
            self.families[family.id] = nil
            if let current = family.currentDigest { self.familyByDigest[current] = nil }
            for digest in family.spentDigests { self.familyByDigest[digest] = nil }
        }
        return !expired.isEmpty
    }

    static func seconds(_ date: Date) -> Int64 {
        Int64(date.timeIntervalSince1970.rounded(.down))
    }
}
