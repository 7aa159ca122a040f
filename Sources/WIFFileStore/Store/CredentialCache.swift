import Crypto
import Foundation
import Logging
import WIFCredentials
import WIFFoundation

/// The temporary credentials `wif-tool credentials` got from STS, kept in the encrypted store so that
/// the next call — the AWS CLI and SDKs run `credential_process` often — reuses them instead of calling
/// STS again.
///
/// An entry is keyed by a SHA-256 fingerprint of everything that decides what STS would answer: the
/// role, the session name, duration and policies, the region and endpoint, and the token itself. A
/// rotated token file or another role therefore misses the cache. Entries are reused while they have
/// more than ``minimumRemaining`` left, and expired ones are dropped whenever the cache is written.
///
/// A sign-in's credentials are not copied here: its own record in the store caches them, under the same
/// ``minimumRemaining`` rule (see ``SignedInCredentials``).
public enum CredentialCache {
    /// The prefix of the cache entries' keys in the store.
    public static let keyPrefix = "wif-tool.sts-cache."

    /// Cached credentials closer than this to their expiry are renewed: the AWS SDKs ask their
    /// `credential_process` for new credentials 15 minutes before expiry, and should then get new ones.
    public static let minimumRemaining: TimeInterval = 15 * 60

    /// The cache key for the web-identity step the default chain would use with this environment, or
    /// `nil` when it would not call STS (keys in the environment, a static profile) or when the
    /// configuration cannot be read (the chain then reports the problem itself).
    /// - Parameters:
    ///   - environment: The variables the chain reads.
    ///   - profile: `--profile`.
    ///   - logger: Where to log.
    /// - Returns: The cache key, or `nil` when nothing is to be cached.
    public static func key(environment: [String: String], profile: String?, logger: Logger) async -> String? {
        let accessKey = environment[EnvironmentCredentialProvider.Variable.accessKeyId] ?? ""
        let secretKey = environment[EnvironmentCredentialProvider.Variable.secretAccessKey] ?? ""
        if !accessKey.isEmpty && !secretKey.isEmpty { return nil }
        let configuration: WebIdentityConfiguration
        let origin: String
        do {
            if let fromEnvironment = try WebIdentityConfiguration(environment: environment) {
                configuration = fromEnvironment
                origin = "environment"
            } else if let fromProfile = try WebIdentityConfiguration.load(profileName: profile, environment: environment) {
                configuration = fromProfile
                origin = "profile:\(profile ?? environment["AWS_PROFILE"] ?? "default")"
            } else {
                return nil
            }
        } catch {
            return nil
        }
        guard let token = try? await configuration.tokenSource.token(forceRefresh: true, logger: logger) else { return nil }
        let fields: [(String, String)] = [
            ("origin", origin),
            ("role", configuration.roleArn),
            ("session", configuration.roleSessionName ?? ""),
            ("duration", configuration.durationSeconds.map(String.init) ?? ""),
            ("provider", configuration.providerId ?? ""),
            ("policy", configuration.policy ?? ""),
            ("policy-arns", configuration.policyArns.joined(separator: ",")),
            ("region", configuration.region ?? environment["AWS_REGION"] ?? environment["AWS_DEFAULT_REGION"] ?? ""),
            ("sts", configuration.stsEndpoint ?? ""),
            ("token-sha256", Self.hex(SHA256.hash(data: Data(token.value.utf8)))),
        ]
        // Length-prefixed, so no value can imitate another field.
        let canonical = fields.map { "\($0.0)=\($0.1.utf8.count):\($0.1)" }.joined(separator: "\n")
        return Self.keyPrefix + Self.hex(SHA256.hash(data: Data(canonical.utf8)))
    }

    /// The cached credentials under `key` when they have more than ``minimumRemaining`` left at `now`.
    /// - Parameters:
    ///   - document: The encrypted store's contents.
    ///   - key: The entry's key, from ``key(environment:profile:logger:)``.
    ///   - now: The current time.
    /// - Returns: The credentials, or `nil` when there are none, they do not decode or they expire soon.
    public static func usable(_ document: StoreDocument, key: String, now: Date) -> AWSCredentials? {
        let credentials: AWSCredentials?
        do {
            credentials = try document.credentials(forKey: key)
        } catch {
            // An entry that does not decode is only a cache miss; it is replaced below.
            return nil
        }
        guard let credentials, let expiration = credentials.expiration,
            expiration.timeIntervalSince(now) > Self.minimumRemaining
        else { return nil }
        return credentials
    }

    /// Keeps `credentials` under `key` and drops every expired entry.
    /// - Parameters:
    ///   - credentials: What STS returned.
    ///   - key: The entry's key, from ``key(environment:profile:logger:)``.
    ///   - document: The encrypted store's contents, changed in place.
    ///   - now: The current time.
    /// - Throws: ``WIFCredentialsError`` when the credentials cannot be encoded.
    public static func store(_ credentials: AWSCredentials, key: String, in document: inout StoreDocument, now: Date) throws {
        for other in document.keys where other.hasPrefix(Self.keyPrefix) {
            let expiration = (try? document.credentials(forKey: other))?.expiration
            if expiration.map({ $0 <= now }) ?? true {
                document.removeValue(forKey: other)
            }
        }
        try document.setCredentials(credentials, forKey: key)
    }

    static func hex(_ digest: SHA256.Digest) -> String {
        TokenEncoding.hex(Array(digest))
    }
}
