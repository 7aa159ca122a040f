import Foundation
import WIFCredentials
import WIFFoundation

/// The rules of a file-store sign-in: which `ProviderId` and role session name go to STS, where a
/// token file is read, and how the user signs in again. ``WebIdentityFederation`` does the federating.
public enum SignIn {
    /// The provider used by `login --dev` when `--provider` is not given.
    public static let defaultDevelopmentProvider = "google"

    /// The lifetime of the development tokens `login --dev` mints: long enough that credentials renew
    /// for a working day without signing in again.
    public static let developmentTokenLifetime = 12 * 3600

    /// The `ProviderId` STS needs with a provider's tokens: Facebook and Login with Amazon send opaque
    /// access tokens and must name themselves; OpenID Connect ID tokens carry their issuer.
    /// - Parameter provider: The provider's name.
    /// - Returns: The `ProviderId`, or `nil` for ID-token providers.
    public static func providerId(for provider: String) -> String? {
        switch provider.lowercased() {
        case "facebook", "graph.facebook.com": "graph.facebook.com"
        case "amazon", "www.amazon.com": "www.amazon.com"
        default: nil
        }
    }

    /// A role session name STS accepts (2–64 of `[\w+=,.@-]`) that shows whose session it is.
    /// - Parameter user: The user id or name.
    /// - Returns: `wif-` and the user, other characters replaced by `-`, cut at 64.
    public static func sessionName(for user: String) -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_+=,.@-".unicodeScalars)
        let cleaned = String(String.UnicodeScalarView(user.unicodeScalars.map { allowed.contains($0) ? $0 : "-" }))
        return String(("wif-" + cleaned).prefix(64))
    }

    /// The most bytes read for a token, from a file or standard input: a token is at most 20,000 bytes,
    /// and a megabyte leaves room for any whitespace around it.
    package static let maximumTokenInputSize = 1 << 20

    /// Reads a token file, trimmed.
    /// - Parameter path: The file.
    /// - Returns: The token.
    /// - Throws: ``FileStoreError``: `fileError` when the file cannot be read, `invalidToken` when it is empty.
    public static func token(fromFile path: String) throws(FileStoreError) -> String {
        let data: [UInt8]
        do throws(FileContents.Failure) {
            data = try FileContents.read(path, limit: Self.maximumTokenInputSize)
        } catch {
            throw FileStoreError.fileError("cannot read the token file \(path): \(error.reason)")
        }
        let token = String(decoding: data, as: UTF8.self).trimming(.whitespacesAndNewlines)
        guard !token.isEmpty else {
            throw FileStoreError(.invalidToken, "the token file \(path) is empty")
        }
        return token
    }

    /// The command that signs a session's user in again.
    /// - Parameters:
    ///   - session: The sign-in.
    ///   - account: The account name, `nil` for the default one.
    /// - Returns: A `wif-tool login` command line.
    public static func loginHint(for session: StoredSession, account: String?) -> String {
        var accountFlag = account.map { " --account \($0)" } ?? ""
        if let pool = session.identityPool {
            accountFlag = " --identity-pool \(pool.poolId)" + accountFlag
        }
        switch session.token.kind {
        case .guest:
            return "wif-tool login --guest\(accountFlag)"
        case .development where session.identityPool != nil:
            return "wif-tool login --dev USER --provider \(session.provider)\(accountFlag)"
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

    /// Whether STS or the token source refused the identity itself, or the sign-in can no longer be
    /// used: a fresh token or signing in again helps, not another try.
    /// - Parameter error: What STS, a token source or a credential provider threw.
    /// - Returns: `true` for a refused, expired or missing token or sign-in, and for STS's codes saying so.
    public static func refusesIdentity(_ error: WIFCredentialsError) -> Bool {
        switch error.code {
        case .noCredentials, .tokenUnavailable, .tokenExpired, .signInRequired, .authorizationFailed, .invalidIDToken, .oauth:
            return true
        case .service:
            guard let service = error.serviceError else { return false }
            if ServiceQuirks.refusesToken(code: service.code) { return true }
            return Self.refusedIdentityCodes.contains(service.code)
        default:
            return false
        }
    }

    /// STS's codes for a refused token or refused credentials.
    static let refusedIdentityCodes: Set<String> = [
        "InvalidIdentityToken", "ExpiredTokenException", "ExpiredToken", "InvalidAccessKeyId", "InvalidClientTokenId", "SignatureDoesNotMatch",
        // The identity provider did not recognise the token (Facebook's and Amazon's access tokens).
        "IDPRejectedClaim",
        // Cognito Identity's refusal of a login token, or of a guest where the pool admits none.
        "NotAuthorizedException",
    ]
}
