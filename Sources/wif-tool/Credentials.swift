import ArgumentParser
import Foundation
import Logging
import WIFCredentials
import WIFFileStore

extension WIFTool {
    /// `wif-tool credentials`: AWS `credential_process` output.
    struct Credentials: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "credentials",
            abstract: "Print credentials in the AWS credential_process format.",
            discussion: """
                Resolves credentials from the environment (AWS_ACCESS_KEY_ID…), web identity \
                (AWS_ROLE_ARN with AWS_WEB_IDENTITY_TOKEN_FILE) or the selected profile, and prints \
                them as credential_process JSON, so the aws CLI and the SDKs can use swift-wif as a \
                credential source:

                  [profile wif]
                  credential_process = wif-tool credentials --profile federated

                When none of these is set, the session of 'wif-tool login' answers: the default sign-in, \
                or with --account NAME (or WIF_ACCOUNT) that sign-in whatever the environment holds. So \
                after signing in, 'credential_process = wif-tool credentials' gives the aws CLI, boto3, \
                s5cmd and rclone the session the file commands use, at the endpoint it was signed in \
                with (give the programs that endpoint too, e.g. aws --endpoint-url URL). The sign-in's \
                credentials are renewed from its token when they have 15 minutes or less left, and saved \
                with it. A sign-in on the embedded local stack gets credentials too, but nothing answers \
                for that stack between commands: they work against 'wif-tool local serve --data-dir \
                $WIF_HOME/local' while it runs.

                Credentials from web identity are cached in the encrypted store $WIF_HOME/secrets.enc \
                (default ~/.wif) and reused while they have more than 15 minutes left, so repeated calls do \
                not call STS each time; a rotated token file, another role or other settings miss the \
                cache. The store's key: WIF_PASSPHRASE, a key file (--key-file, WIF_KEY_FILE), or by \
                default $WIF_HOME/secrets.key (protection by file permissions only).

                Exit status: 0 printed; 3 no credentials, not signed in, a refused or expired token, or the \
                store's passphrase or key file is wrong; 4 access denied; 6 the store cannot be read or \
                written; 7 STS could not be reached; 8 the store is damaged, truncated, not a store, or from \
                a newer wif-tool (it is left untouched); 64 bad settings.
                """
        )

        @OptionGroup var options: GlobalOptions

        @Option(name: .long, help: "The key file of the encrypted store that caches credentials (default: WIF_KEY_FILE, else $WIF_HOME/secrets.key).")
        var keyFile: String?

        @Option(name: .long, help: "Print the credentials of this sign-in of 'wif-tool login' (default: WIF_ACCOUNT; else the default sign-in when the environment and profile hold none).")
        var account: String?

        func validate() throws {
            if self.account != nil && self.options.profile != nil {
                throw ValidationError("give --account (a sign-in of 'wif-tool login') or --profile (an AWS profile), not both")
            }
        }

        func run() async throws {
            try await reportingErrors {
                try printJSON(CredentialProcessOutput(try await self.resolve()))
            }
        }

        /// The selected sign-in's credentials; else the chain's (for web identity, the cached ones while
        /// they last), or the default sign-in's when the chain has nothing to go on.
        private func resolve() async throws -> AWSCredentials {
            let logger = self.options.makeLogger()
            let environment = self.options.credentialEnvironment()
            // --account, or WIF_ACCOUNT unless --profile asks for an AWS profile, selects a sign-in outright.
            if self.account != nil || (self.options.profile == nil && !(environment["WIF_ACCOUNT"] ?? "").isEmpty) {
                return try await SignedInCredentials.get(try self.signInConfiguration(), environment: self.options.environment, logger: logger)
            }
            do {
                return try await self.fromChain(environment: environment, logger: logger)
            } catch let error as WIFCredentialsError
                where error.code == .noCredentials && self.options.profile == nil
                && SignedInCredentials.chainHasNoSource(environment: environment, profile: nil)
            {
                do {
                    return try await SignedInCredentials.get(try self.signInConfiguration(), environment: self.options.environment, logger: logger)
                } catch let failure as FileStoreError where failure.code == .signInRequired {
                    throw FileStoreError(.signInRequired, "\(error.reason); and \(failure.message)")
                }
            }
        }

        /// The settings that select a sign-in: the account and the store's key file.
        private func signInConfiguration() throws(FileStoreError) -> ToolConfiguration {
            var configuration = try ToolConfiguration.resolve(
                ToolConfiguration.Flags(account: self.account, keyFile: self.keyFile), environment: self.options.environment)
            configuration.interaction = .terminal
            return configuration
        }

        /// The chain's credentials; for web identity, the cached ones while they last.
        private func fromChain(environment: [String: String], logger: Logger) async throws -> AWSCredentials {
            let provider = self.options.credentialProvider()
            guard let key = await CredentialCache.key(environment: environment, profile: self.options.profile, logger: logger) else {
                return try await provider.getCredentials(logger: logger)
            }
            let secrets = try SecretStore.open(
                home: ToolConfiguration.home(environment: environment), keyFile: self.keyFile, environment: environment,
                interaction: .terminal)
            if let cached = CredentialCache.usable(try secrets.load(), key: key, now: Date()) {
                logger.debug("using cached credentials", metadata: ["wif.tool.access_key_id": "\(cached.accessKeyId)"])
                return cached
            }
            let credentials = try await provider.getCredentials(logger: logger)
            // Only what a web-identity step returned is cached (steps 1 and 2 of the chain).
            guard let step = provider.selectedIndex, step >= 1, credentials.expiration != nil else { return credentials }
            try secrets.update { document in
                try CredentialCache.store(credentials, key: key, in: &document, now: Date())
            }
            return credentials
        }
    }
}
