import AsyncHTTPClient
import Foundation
import Logging
import WIFCredentials

/// OpenID Connect sign-in for `login --issuer`: the browser or device flow of ``OAuth2Client``, the
/// account kept by ``OAuthAccounts`` in the encrypted store (``EncryptedStore`` is its storage), and
/// the renewed ID token when the sign-in's credentials need renewing.
enum OIDCSignIn {
    /// The variable naming the browser command; `none` opens nothing (the address is printed anyway).
    static let browserVariable = "BROWSER"

    /// How the user approves the sign-in.
    enum Flow: Sendable {
        case browser
        case device
    }

    /// The OAuth account name of a wif-tool account (`default` without `--account`).
    static func accountName(_ account: String?) -> String {
        account ?? "default"
    }

    /// The accounts kept in the encrypted store.
    static func accounts(_ secrets: SecretStore, httpClient: HTTPClient) -> OAuthAccounts {
        OAuthAccounts(storage: secrets.store, httpClient: httpClient)
    }

    /// The client configuration for `--issuer URL --client-id ID`: discovery at the URL's
    /// `/.well-known/openid-configuration`; the issuer identifier (`iss`) expected is `expectedIssuer`,
    /// or the one the discovery document names.
    static func clientConfiguration(issuer: String, clientId: String, expectedIssuer: String?) throws(CommandFailure) -> OAuth2ClientConfiguration {
        let base = issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer
        guard let url = URL(string: base + "/.well-known/openid-configuration"), let scheme = url.scheme?.lowercased(),
            scheme == "https" || scheme == "http", url.host != nil
        else {
            throw CommandFailure(status: .usage, message: "--issuer must be an http or https URL, not '\(issuer)'")
        }
        let configuration = OAuth2ClientConfiguration(issuer: expectedIssuer, discoveryURL: url, clientId: clientId)
        do {
            try configuration.validate()
        } catch {
            throw CommandFailure(status: .usage, message: error.reason)
        }
        return configuration
    }

    /// Signs in at the issuer, printing where the user approves it (never a token).
    /// - Throws: `WIFCredentialsError` from the client; `CommandFailure` for an unusable configuration.
    static func authorize(
        _ configuration: OAuth2ClientConfiguration,
        flow: Flow,
        httpClient: HTTPClient,
        environment: [String: String],
        logger: Logger
    ) async throws -> OAuth2Tokens {
        let client = try OAuth2Client(configuration: configuration, httpClient: httpClient)
        switch flow {
        case .device:
            return try await client.authorizeWithDevice(logger: logger) { authorization in
                printOut("To sign in, open \(authorization.verificationURI.absoluteString) and enter the code \(authorization.userCode)\n")
                if let complete = authorization.verificationURIComplete {
                    printOut("Or open \(complete.absoluteString)\n")
                }
                printOut("Waiting for the sign-in to be approved…\n")
            }
        case .browser:
            let browser = environment[Self.browserVariable]
            return try await client.authorizeWithBrowser(logger: logger) { url in
                printOut("To sign in, open \(url.absoluteString)\n")
                Self.open(url, browser: browser)
                printOut("Waiting for the browser to come back…\n")
            }
        }
    }

    /// Opens `url` with `$BROWSER`, `xdg-open` or `open`, whichever is found first; does nothing when
    /// none is, or when `$BROWSER` is `none` (the address has been printed).
    static func open(_ url: URL, browser: String?) {
        if browser == "none" { return }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let candidates = [browser].compactMap { $0 }.filter { !$0.isEmpty } + ["xdg-open", "open"]
        for name in candidates {
            let executable =
                name.contains("/")
                ? name
                : path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
            guard let executable, FileManager.default.isExecutableFile(atPath: executable) else { continue }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = [url.absoluteString]
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            if (try? process.run()) != nil { return }
        }
    }

    /// The sign-in's ID token, renewed with the refresh token when it is within its refresh window
    /// (or, with `rejected`, when that is the stored ID token STS refused); renewed tokens are written
    /// back to the store.
    /// - Throws: `WIFCredentialsError` `tokenExpired` saying to sign in again when the account is gone
    ///   or its refresh token is refused; the client's other errors.
    static func idToken(
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
