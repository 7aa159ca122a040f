import Foundation
import Logging
import WIFCredentials

/// The credentials of a stored sign-in for the programs `wif-tool credentials` serves through
/// `credential_process` (the AWS CLI, boto3, s5cmd, rclone).
///
/// The sign-in's own record in the encrypted store caches them: its credentials are handed out while
/// they last more than ``CredentialCache/minimumRemaining`` (the AWS SDKs ask again 15 minutes before
/// expiry and must then get new ones), and are otherwise renewed from the stored token source by
/// ``SessionCredentials``, as the file commands renew them, and saved in the sign-in. So the file
/// commands and the programs share one session, and no second copy of it is kept.
///
/// A sign-in on the embedded local stack gets credentials too, renewed by starting the stack for the
/// renewal; they are accepted while a stack with the same data folder runs (`wif-tool local serve
/// --data-dir $WIF_HOME/local`), since nothing else answers for that stack between commands.
public enum SignedInCredentials {
    /// The sign-in's credentials, renewed first when they last no more than
    /// ``CredentialCache/minimumRemaining``.
    /// - Parameters:
    ///   - configuration: The settings: the account, the store's key, and an endpoint of its own if any
    ///     (else the sign-in's is used).
    ///   - environment: The process environment (`WIF_PASSPHRASE`, `WIF_KEY_FILE`).
    ///   - logger: Where to log; never a token or a secret.
    ///   - now: The clock deciding renewal.
    /// - Returns: The credentials.
    /// - Throws: ``FileStoreError`` `signInRequired` when nobody is signed in or the configured endpoint
    ///   is another; what ``SecretStore`` reports; ``WIFCredentialsError`` from the renewal (a token
    ///   that expired or was refused says to sign in again).
    public static func get(
        _ configuration: ToolConfiguration,
        environment: [String: String],
        logger: Logger,
        now: @escaping @Sendable () -> Date = { Date() }
    ) async throws -> AWSCredentials {
        let (session, store, configuration) = try StoreRuntime.signedInSession(configuration, environment: environment)
        let margin = CredentialCache.minimumRemaining
        let metadata: Logger.Metadata = ["wif.tool.account": "\(configuration.account ?? "default")", "wif.tool.subject": "\(session.subject)"]
        if !SessionCredentials.needsRenewal(session.credentials.expiration, now: now(), margin: margin) {
            logger.debug("using the sign-in's credentials", metadata: metadata)
            return session.credentials.credentials
        }
        logger.debug("the sign-in's credentials expire soon; renewing them", metadata: metadata)
        return try await StoreRuntime.withTarget(configuration, logger: logger) { context in
            let federation = try context.federation(
                roleArn: session.roleArn, bucket: session.bucket, partitionTemplate: session.partitionTemplate, stsRegion: session.region)
            let provider = SessionCredentials(
                session: session, store: store, account: configuration.account, federation: federation, httpClient: context.httpClient,
                now: now, renewalMargin: margin,
                identityPool: session.identityPool.map { IdentityPoolSignIn.Connection(context, stored: $0.endpoint) })
            return try await provider.getCredentials(logger: logger)
        }
    }

    /// Whether the AWS credential chain has nothing to go on: no key in the environment and no web
    /// identity in the environment or the profile. A chain that fails then found nothing, and the
    /// default sign-in may answer instead; a source that is set but fails (half a key pair, a refused
    /// token) is reported, never replaced by another identity.
    /// - Parameters:
    ///   - environment: The variables the chain reads.
    ///   - profile: `--profile`, when given.
    /// - Returns: `true` when neither keys nor web identity are configured.
    public static func chainHasNoSource(environment: [String: String], profile: String?) -> Bool {
        let keys = [EnvironmentCredentialProvider.Variable.accessKeyId, EnvironmentCredentialProvider.Variable.secretAccessKey]
        if keys.contains(where: { !(environment[$0] ?? "").isEmpty }) { return false }
        do {
            if try WebIdentityConfiguration(environment: environment) != nil { return false }
            if try WebIdentityConfiguration.load(profileName: profile, environment: environment) != nil { return false }
        } catch {
            return false
        }
        return true
    }
}
