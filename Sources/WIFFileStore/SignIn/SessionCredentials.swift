import AsyncHTTPClient
import Foundation
import Logging
import S3Partition
import WIFCredentials

/// Credentials of the stored sign-in, renewed when they are about to expire by sending the stored token
/// (or the token file's current contents) to STS again; each renewal is saved.
///
/// When the token itself has expired or STS refuses it, the error says to sign in again.
public actor SessionCredentials: CredentialProvider {
    /// Credentials closer than this to their expiry are renewed before use, unless another margin is given.
    public static let renewalMargin: TimeInterval = 120

    /// The sign-in, with the latest credentials.
    public private(set) var session: StoredSession
    private let store: SessionStore
    private let account: String?
    private let federation: WebIdentityFederation
    private let httpClient: HTTPClient
    private let now: @Sendable () -> Date
    private let margin: TimeInterval
    private let identityPool: IdentityPoolSignIn.Connection?
    private var rejectedKeyId: String?
    private var renewal: Task<AWSCredentials, any Error>?

    /// Serves the credentials of a stored sign-in.
    /// - Parameters:
    ///   - session: The sign-in.
    ///   - store: Where renewals are saved, and where an OpenID Connect sign-in's account is kept.
    ///   - account: The account name, `nil` for the default one, for the sign-in-again hint.
    ///   - federation: Trades the token for new credentials; its role and session name are the sign-in's.
    ///   - httpClient: The HTTP client of an OpenID Connect issuer's token renewals.
    ///   - now: The clock deciding renewal.
    ///   - renewalMargin: Credentials closer than this to their expiry are renewed; `credentials` hands
    ///     out ones that last at least ``CredentialCache/minimumRemaining``.
    ///   - identityPool: Where an identity-pool sign-in renews its credentials.
    public init(
        session: StoredSession, store: SessionStore, account: String?, federation: WebIdentityFederation, httpClient: HTTPClient,
        now: @escaping @Sendable () -> Date = { Date() }, renewalMargin: TimeInterval = SessionCredentials.renewalMargin,
        identityPool: IdentityPoolSignIn.Connection? = nil
    ) {
        self.identityPool = identityPool
        self.session = session
        self.store = store
        self.account = account
        self.federation = federation
        self.httpClient = httpClient
        self.now = now
        self.margin = renewalMargin
    }

    /// The sign-in's credentials, renewed first when they expire within the renewal margin or S3 refused them.
    /// - Parameter logger: Where to log; never the token or the credentials.
    /// - Returns: Credentials to sign with.
    /// - Throws: ``WIFCredentialsError``: `tokenExpired` or `tokenUnavailable` saying to sign in again;
    ///   STS's other errors.
    public func getCredentials(logger: Logger) async throws -> AWSCredentials {
        let current = self.session.credentials
        let rejected = self.rejectedKeyId == current.accessKeyId
        if !rejected, !Self.needsRenewal(current.expiration, now: self.now(), margin: self.margin) {
            return current.credentials
        }
        if let renewal { return try await renewal.value }
        let task = Task { try await self.renew(logger: logger) }
        self.renewal = task
        defer { self.renewal = nil }
        return try await task.value
    }

    /// Marks credentials S3 refused, so the next call renews them.
    /// - Parameter accessKeyId: The refused credentials' access key id.
    public func invalidate(accessKeyId: String) async {
        self.rejectedKeyId = accessKeyId
    }

    /// Whether credentials expiring at `expiration` should be renewed at `now`.
    package static func needsRenewal(_ expiration: Date?, now: Date, margin: TimeInterval = SessionCredentials.renewalMargin) -> Bool {
        guard let expiration else { return false }
        return expiration.timeIntervalSince(now) < margin
    }

    /// The sign-in's identity token, read again from its source (and renewed, for an OpenID Connect
    /// sign-in): what API calls in a user pool or OIDC mode send. `nil` for a guest.
    /// - Parameter logger: Where to log; never the token.
    /// - Returns: The token.
    /// - Throws: ``WIFCredentialsError`` `tokenExpired` or `tokenUnavailable` saying to sign in again.
    public func webIdentityToken(logger: Logger) async throws -> String? {
        let hint = SignIn.loginHint(for: self.session, account: self.account)
        let now = self.now()
        switch self.session.token.kind {
        case .guest:
            return nil
        case .development, .token:
            guard let value = self.session.token.value else {
                throw WIFCredentialsError.tokenUnavailable("the stored sign-in has no token; sign in again: \(hint)")
            }
            if let expiration = self.session.token.expiration, expiration <= now {
                throw WIFCredentialsError.tokenExpired(
                    "the sign-in of \(self.session.subject) expired at \(Self.format(expiration)); sign in again: \(hint)")
            }
            return value
        case .oidc:
            return try await OIDCSignIn.idToken(
                for: self.session, secrets: self.store.secrets, httpClient: self.httpClient, hint: hint, logger: logger)
        case .file:
            guard let path = self.session.token.path else {
                throw WIFCredentialsError.tokenUnavailable("the stored sign-in names no token file; sign in again: \(hint)")
            }
            let token: String
            do {
                token = try SignIn.token(fromFile: path)
            } catch {
                throw WIFCredentialsError.tokenUnavailable("\(error.message); sign in again: \(hint)")
            }
            if let expiration = UnverifiedJWTClaims(token: token)?.expiration, expiration <= now {
                throw WIFCredentialsError.tokenExpired(
                    "the token in \(path) expired at \(Self.format(expiration)); put a fresh token there, or sign in again: \(hint)")
            }
            return token
        }
    }

    private func renew(logger: Logger) async throws -> AWSCredentials {
        let hint = SignIn.loginHint(for: self.session, account: self.account)
        guard var token = try await self.webIdentityToken(logger: logger) else {
            return try await self.renewIdentity(token: nil, hint: hint, logger: logger)
        }
        if self.session.identityPool != nil {
            return try await self.renewIdentity(token: token, hint: hint, logger: logger)
        }
        logger.debug("renewing the temporary credentials", metadata: ["wif.tool.subject": "\(self.session.subject)"])
        let result: AssumeRoleWithWebIdentityResult
        // An OpenID Connect sign-in whose ID token STS refuses (revoked key, clock skew) gets one renewed
        // ID token and one more try before the user is told to sign in again.
        var retries = self.session.token.kind == .oidc ? 1 : 0
        while true {
            do {
                result = try await self.federation.assumeRole(
                    token: token, providerId: self.session.providerId, roleSessionName: self.session.roleSessionName, logger: logger)
                break
            } catch let error as WIFCredentialsError where SignIn.refusesIdentity(error) {
                if retries > 0 {
                    retries -= 1
                    logger.debug("STS refused the ID token; renewing it once", metadata: ["wif.tool.reason": "\(error.reason)"])
                    token = try await OIDCSignIn.idToken(
                        for: self.session, secrets: self.store.secrets, httpClient: self.httpClient, hint: hint, replacing: token,
                        logger: logger)
                    continue
                }
                throw WIFCredentialsError.tokenExpired(
                    "the identity token was refused while renewing credentials (\(error.reason)); sign in again: \(hint)")
            }
        }
        var session = self.session
        session.credentials = StoredSession.CredentialRecord(result.credentials)
        if session.token.kind == .file || session.token.kind == .oidc {
            session.token.expiration = UnverifiedJWTClaims(token: token)?.expiration
        }
        return self.saving(session, credentials: result.credentials, logger: logger)
    }

    /// Renews an identity-pool sign-in's credentials with its kept identity id; a new identity, given when
    /// the pool no longer knows the kept one, moves the sign-in's folders with it.
    private func renewIdentity(token: String?, hint: String, logger: Logger) async throws -> AWSCredentials {
        guard let pool = self.session.identityPool, let connection = self.identityPool else {
            throw WIFCredentialsError.invalidConfiguration("the identity-pool sign-in cannot be renewed here; sign in again: \(hint)")
        }
        let login: (key: String, token: String)?
        switch (pool.loginsKey, token) {
        case (nil, _): login = nil
        case (let key?, let token?): login = (key, token)
        case (_?, nil): throw WIFCredentialsError.tokenUnavailable("the stored sign-in has no token; sign in again: \(hint)")
        }
        logger.debug("renewing the identity's credentials", metadata: ["wif.tool.identity_id": "\(pool.identityId)"])
        let renewed: (credentials: AWSCredentials, identityId: String)
        do {
            renewed = try await IdentityPoolSignIn.credentials(
                poolId: pool.poolId, login: login, identityId: pool.identityId, basicFlowRoleArn: pool.basicFlowRoleArn, connection: connection,
                logger: logger)
        } catch let error as WIFCredentialsError where SignIn.refusesIdentity(error) {
            throw WIFCredentialsError.tokenExpired(
                "the identity pool refused the sign-in while renewing credentials (\(error.reason)); sign in again: \(hint)")
        }
        var session = self.session
        session.credentials = StoredSession.CredentialRecord(renewed.credentials)
        if renewed.identityId != pool.identityId {
            logger.warning(
                "the identity pool no longer knows the identity; a new one was given, with empty folders",
                metadata: ["wif.tool.identity_id": "\(pool.identityId)", "wif.tool.new_identity_id": "\(renewed.identityId)"])
            session.identityPool?.identityId = renewed.identityId
            session.subject = renewed.identityId
            if let prefix = try? PartitionPrefix.make(template: session.partitionTemplate, userId: renewed.identityId) {
                session.prefix = prefix.value
            }
        }
        if let token, session.token.kind == .file || session.token.kind == .oidc {
            session.token.expiration = UnverifiedJWTClaims(token: token)?.expiration
        }
        return self.saving(session, credentials: renewed.credentials, logger: logger)
    }

    /// Saves a renewed sign-in and serves its credentials.
    private func saving(_ session: StoredSession, credentials: AWSCredentials, logger: Logger) -> AWSCredentials {
        do {
            try self.store.save(session)
        } catch {
            // The renewed credentials still serve this command; the next one renews again.
            logger.warning("cannot save the renewed credentials", metadata: ["wif.tool.reason": "\(error.message)"])
        }
        self.session = session
        self.rejectedKeyId = nil
        return credentials
    }

    static func format(_ date: Date) -> String { date.formatted(.iso8601) }
}
