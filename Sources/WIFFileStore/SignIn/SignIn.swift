import AsyncHTTPClient
import Foundation
import Logging
import WIFCredentials

/// Federation as the file-store commands use it: a web-identity token traded for temporary
/// credentials through STS `AssumeRoleWithWebIdentity`.
enum SignIn {
    /// The provider used by `login --dev` when `--provider` is not given.
    static let defaultDevelopmentProvider = "google"

    /// The lifetime of the development tokens `login --dev` mints: long enough that credentials renew
    /// for a working day without signing in again.
    static let developmentTokenLifetime = 12 * 3600

    /// The `ProviderId` STS needs with a provider's tokens: Facebook and Login with Amazon send opaque
    /// access tokens and must name themselves; OpenID Connect ID tokens carry their issuer.
    static func providerId(for provider: String) -> String? {
        switch provider.lowercased() {
        case "facebook", "graph.facebook.com": "graph.facebook.com"
        case "amazon", "www.amazon.com": "www.amazon.com"
        default: nil
        }
    }

    /// A role session name STS accepts (2–64 of `[\w+=,.@-]`) that shows whose session it is.
    static func sessionName(for user: String) -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_+=,.@-".unicodeScalars)
        let cleaned = String(String.UnicodeScalarView(user.unicodeScalars.map { allowed.contains($0) ? $0 : "-" }))
        return String(("wif-" + cleaned).prefix(64))
    }

    /// Trades a token for credentials.
    /// - Throws: `WIFCredentialsError` from STS (its code decides the exit status).
    static func federate(
        token: String,
        providerId: String?,
        roleArn: String,
        sessionName: String,
        sts: URL,
        region: String,
        httpClient: HTTPClient,
        logger: Logger
    ) async throws -> AssumeRoleWithWebIdentityResult {
        let client = try STSClient(
            configuration: STSClient.Configuration(region: region, endpoint: sts.absoluteString),
            environment: [:],
            httpClient: httpClient
        )
        let request = AssumeRoleWithWebIdentityRequest(roleArn: roleArn, roleSessionName: sessionName, providerId: providerId)
        return try await client.assumeRoleWithWebIdentity(request, webIdentityToken: token, logger: logger)
    }

    /// Reads a token file, trimmed.
    static func readTokenFile(_ path: String) throws(CommandFailure) -> String {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw CommandFailure(status: .io, message: "cannot read the token file \(path): \(error.localizedDescription)")
        }
        let token = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !token.isEmpty else {
            throw CommandFailure(status: .auth, message: "the token file \(path) is empty")
        }
        return token
    }

    /// The command that signs a session's user in again.
    static func loginHint(for session: StoredSession, account: String?) -> String {
        let accountFlag = account.map { " --account \($0)" } ?? ""
        switch session.token.kind {
        case .development:
            return "wif-tool login --dev \(session.subject) --provider \(session.provider)\(accountFlag)"
        case .token:
            return "wif-tool login --token TOKEN --provider \(session.provider)\(accountFlag)"
        case .file:
            return "wif-tool login --token-file \(session.token.path ?? "FILE") --provider \(session.provider)\(accountFlag)"
        case .oidc:
            return "wif-tool login --issuer URL --client-id ID\(accountFlag)"
        }
    }
}

/// Credentials of the stored sign-in, renewed when they are about to expire by sending the stored token
/// (or the token file's current contents) to STS again; each renewal is saved.
///
/// When the token itself has expired or STS refuses it, the error says to sign in again.
actor SessionCredentials: CredentialProvider {
    /// Credentials closer than this to their expiry are renewed before use.
    static let renewalMargin: TimeInterval = 120

    private(set) var session: StoredSession
    private let store: SessionStore
    private let account: String?
    private let sts: URL
    private let httpClient: HTTPClient
    private let now: @Sendable () -> Date
    private var rejectedKeyId: String?
    private var renewal: Task<AWSCredentials, any Error>?

    init(
        session: StoredSession, store: SessionStore, account: String?, sts: URL, httpClient: HTTPClient,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.session = session
        self.store = store
        self.account = account
        self.sts = sts
        self.httpClient = httpClient
        self.now = now
    }

    func getCredentials(logger: Logger) async throws -> AWSCredentials {
        let current = self.session.credentials
        let rejected = self.rejectedKeyId == current.accessKeyId
        if !rejected, !Self.needsRenewal(current.expiration, now: self.now()) {
            return current.credentials
        }
        if let renewal { return try await renewal.value }
        let task = Task { try await self.renew(logger: logger) }
        self.renewal = task
        defer { self.renewal = nil }
        return try await task.value
    }

    func invalidate(accessKeyId: String) async {
        self.rejectedKeyId = accessKeyId
    }

    /// Whether credentials expiring at `expiration` should be renewed at `now`.
    static func needsRenewal(_ expiration: Date?, now: Date) -> Bool {
        guard let expiration else { return false }
        return expiration.timeIntervalSince(now) < Self.renewalMargin
    }

    private func renew(logger: Logger) async throws -> AWSCredentials {
        let hint = SignIn.loginHint(for: self.session, account: self.account)
        var token: String
        let now = self.now()
        switch self.session.token.kind {
        case .development, .token:
            guard let value = self.session.token.value else {
                throw WIFCredentialsError.tokenUnavailable("the stored sign-in has no token; sign in again: \(hint)")
            }
            if let expiration = self.session.token.expiration, expiration <= now {
                throw WIFCredentialsError.tokenExpired(
                    "the sign-in of \(self.session.subject) expired at \(Self.format(expiration)); sign in again: \(hint)")
            }
            token = value
        case .oidc:
            token = try await OIDCSignIn.idToken(
                for: self.session, secrets: self.store.secrets, httpClient: self.httpClient, hint: hint, logger: logger)
        case .file:
            guard let path = self.session.token.path else {
                throw WIFCredentialsError.tokenUnavailable("the stored sign-in names no token file; sign in again: \(hint)")
            }
            do {
                token = try SignIn.readTokenFile(path)
            } catch {
                throw WIFCredentialsError.tokenUnavailable("\(error.message); sign in again: \(hint)")
            }
            if let expiration = UnverifiedJWTClaims(token: token)?.expiration, expiration <= now {
                throw WIFCredentialsError.tokenExpired(
                    "the token in \(path) expired at \(Self.format(expiration)); put a fresh token there, or sign in again: \(hint)")
            }
        }
        logger.debug("renewing the temporary credentials", metadata: ["wif.tool.subject": "\(self.session.subject)"])
        let result: AssumeRoleWithWebIdentityResult
        // An OpenID Connect sign-in whose ID token STS refuses (revoked key, clock skew) gets one renewed
        // ID token and one more try before the user is told to sign in again.
        var retries = self.session.token.kind == .oidc ? 1 : 0
        while true {
            do {
                result = try await SignIn.federate(
                    token: token, providerId: self.session.providerId, roleArn: self.session.roleArn,
                    sessionName: self.session.roleSessionName, sts: self.sts, region: self.session.region,
                    httpClient: self.httpClient, logger: logger)
                break
            } catch let error as WIFCredentialsError where ExitStatus.classify(error) == .auth {
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
        do {
            try self.store.save(session)
        } catch {
            // The renewed credentials still serve this command; the next one renews again.
            logger.warning("cannot save the renewed credentials", metadata: ["wif.tool.reason": "\(error.message)"])
        }
        self.session = session
        self.rejectedKeyId = nil
        return result.credentials
    }

    static func format(_ date: Date) -> String { date.formatted(.iso8601) }
}
