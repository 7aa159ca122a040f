import AsyncHTTPClient
import Foundation
import Logging
import WIFCredentials

/// OpenID Connect sign-in for `login --issuer`: the browser or device flow of `OAuth2Client`, the
/// account kept by `OAuthAccounts` in the encrypted store (`EncryptedStore` is its storage), and
/// the renewed ID token when the sign-in's credentials need renewing.
public enum OIDCSignIn {
    /// How the user approves the sign-in.
    public enum Flow: Sendable {
        /// In a browser, which comes back to a loopback listener.
        case browser
        /// On another device, with a user code.
        case device
    }

    /// The OAuth account name of a wif-tool account (`default` without `--account`).
    /// - Parameter account: The account name, `nil` for the default one.
    /// - Returns: The OAuth account's name.
    public static func accountName(_ account: String?) -> String {
        account ?? "default"
    }

    /// The accounts kept in the encrypted store.
    /// - Parameters:
    ///   - secrets: The encrypted store.
    ///   - httpClient: The HTTP client of token renewals and revocations.
    /// - Returns: The accounts.
    public static func accounts(_ secrets: SecretStore, httpClient: HTTPClient) -> OAuthAccounts {
        OAuthAccounts(storage: secrets.store, httpClient: httpClient)
    }

    /// The client configuration for `--issuer URL --client-id ID`: discovery at the URL's
    /// `/.well-known/openid-configuration`; the issuer identifier (`iss`) expected is `expectedIssuer`,
    /// or the one the discovery document names.
    /// - Parameters:
    ///   - issuer: The issuer's URL.
    ///   - clientId: The OAuth client id.
    ///   - expectedIssuer: The `iss` the ID tokens must carry, or `nil` for the discovered one.
    /// - Returns: The configuration.
    /// - Throws: ``FileStoreError`` `invalidSetting` for an unusable URL or client id.
    public static func clientConfiguration(
        issuer: String, clientId: String, expectedIssuer: String?
    ) throws(FileStoreError) -> OAuth2ClientConfiguration {
        let base = issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer
        guard let url = URL(string: base + "/.well-known/openid-configuration"), let scheme = url.scheme?.lowercased(),
            scheme == "https" || scheme == "http", url.host != nil
        else {
            throw FileStoreError.invalidSetting("--issuer must be an http or https URL, not '\(issuer)'")
        }
        let configuration = OAuth2ClientConfiguration(issuer: expectedIssuer, discoveryURL: url, clientId: clientId)
        do {
            try configuration.validate()
        } catch {
            throw FileStoreError.invalidSetting(error.reason)
        }
        return configuration
    }

    /// Where the user approves a sign-in: what a front end shows them.
    public enum Approval: Sendable {
        /// The device flow: open the verification address and enter the code.
        case device(OAuth2DeviceAuthorization)
        /// The browser flow: open this authorization address; the browser comes back to a loopback listener.
        case browser(URL)
    }

    /// Signs in at the issuer, handing where the user approves it (never a token) to `approve`.
    /// - Parameters:
    ///   - configuration: The issuer and client.
    ///   - flow: How the user approves the sign-in.
    ///   - httpClient: The HTTP client of the issuer's requests.
    ///   - logger: Where to log; never a code or a token.
    ///   - approve: Shows the user where to approve the sign-in (and may open a browser); called once.
    /// - Returns: The verified tokens.
    /// - Throws: `WIFCredentialsError` from the client; what `approve` throws.
    public static func authorize(
        _ configuration: OAuth2ClientConfiguration,
        flow: Flow,
        httpClient: HTTPClient,
        logger: Logger,
        approve: @escaping @Sendable (Approval) async throws -> Void
    ) async throws -> OAuth2Tokens {
        let client = try OAuth2Client(configuration: configuration, httpClient: httpClient)
        switch flow {
        case .device:
            return try await client.authorizeWithDevice(logger: logger) { authorization in
                try await approve(.device(authorization))
            }
        case .browser:
            return try await client.authorizeWithBrowser(logger: logger) { url in
                try await approve(.browser(url))
            }
        }
    }

    /// The sign-in's ID token, renewed with the refresh token when it is within its refresh window
    /// (or, with `rejected`, when that is the stored ID token STS refused); renewed tokens are written
    /// back to the store.
    /// - Throws: `WIFCredentialsError` `tokenExpired` saying to sign in again when the account is gone
    ///   or its refresh token is refused; the client's other errors.
    package static func idToken(
        for session: StoredSession,
        secrets: SecretStore,
        httpClient: HTTPClient,
        hint: String,
        replacing rejected: String? = nil,
        logger: Logger
    ) async throws -> String {
        guard let name = session.token.account else {
            throw WIFCredentialsError.tokenUnavailable("the stored sign-in names no OAuth account; sign in again: \(hint)")
        }
        let accounts = Self.accounts(secrets, httpClient: httpClient)
        do {
            let source = try await accounts.tokenSource(for: name)
            if let rejected {
                return try await source.token(replacing: WebIdentityToken(value: rejected), logger: logger).value
            }
            return try await source.token(forceRefresh: false, logger: logger).value
        } catch let error as WIFCredentialsError where error.code == .signInRequired || error.code == .noCredentials {
            throw WIFCredentialsError.tokenExpired("\(error.reason); sign in again: \(hint)")
        }
    }
}
