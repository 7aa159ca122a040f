import ArgumentParser
import Foundation
import S3Partition
import WIFCredentials
import WIFFileStore
import WIFLocal
import WIFTerminal

extension WIFTool {
    /// `wif-tool login`: trade a web-identity token for temporary credentials and keep the sign-in.
    struct Login: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "login",
            abstract: "Sign in with a web identity and keep the session for the file commands.",
            discussion: """
                On the embedded local stack (no endpoint configured), --dev USER mints a development token \
                for USER from --provider (default \(SignIn.defaultDevelopmentProvider); also facebook, amazon, \
                cognito, oidc) and signs in with it: nothing to start by hand.

                With a real identity provider, give the token with --token TOKEN (--token - reads standard \
                input) or --token-file FILE (read again whenever credentials are renewed, so a rotated file \
                keeps working), the --provider (facebook and amazon tokens need it; ID tokens default to \
                oidc), the --role-arn to assume and the --bucket. The user's folder is \
                --partition-template with {id} replaced by STS's SubjectFromWebIdentityToken (default \
                {id}/; the embedded stack's roles use <provider>/{id}/).

                With an OpenID Connect issuer, --issuer URL --client-id ID signs in with --device (the \
                default: a verification address and a user code are printed, then the issuer is polled until \
                the sign-in is approved) or --browser (the authorization address is printed and opened with \
                $BROWSER, xdg-open or open when one is found; the browser comes back to a listener on \
                127.0.0.1). The ID token, and the refresh token that renews it silently whenever credentials \
                are renewed, are kept as an OAuth account in the encrypted store ('wif-tool accounts' lists \
                them; 'wif-tool logout --revoke' revokes the refresh token at the issuer).

                With an identity pool (Amazon Cognito Identity, or the embedded stack's pool \
                us-east-1:00000000-0000-4000-8000-000000000001), --identity-pool ID signs in through the pool: \
                --guest as a guest with its unauthenticated role, or with the token of --dev, --token, \
                --token-file or --issuer, sent as the login of its provider (accounts.google.com, \
                graph.facebook.com, www.amazon.com, else the token issuer's host and path). The pool chooses \
                the role (its authenticated role, a rule of its role mapping such as a group claim, or the \
                token's cognito:preferred_role); with --role-arn the basic flow assumes that role instead. \
                The identity id is kept and sent again at every renewal, and a guest who signs in keeps it. \
                The folders are Amplify's: private/IDENTITY/ (the default), protected/IDENTITY/ and public/, \
                chosen with --level on put, list, get and rm. 'whoami' shows the identity, the role and why \
                the pool chose it. The Cognito Identity endpoint is --cognito-endpoint, WIF_COGNITO_ENDPOINT, \
                the STS endpoint when it is not AWS's ('wif-tool local serve' answers both), else the pool \
                region's.

                The session (token source, role, temporary credentials and their expiry) is kept in the \
                encrypted store $WIF_HOME/secrets.enc (default ~/.wif; one entry per --account), AES-GCM, \
                mode 0600; nothing secret is written in the clear. Its key: a passphrase from WIF_PASSPHRASE \
                or, with --passphrase, asked on the terminal when the store is created (and asked again \
                later when WIF_PASSPHRASE is not set); or a key file (--key-file, WIF_KEY_FILE); by default \
                a random key in $WIF_HOME/secrets.key, which protects the store only by file permissions. \
                Expired credentials are renewed on use while the token is valid.

                Exit status: 0 signed in; 3 the token was refused or has expired, or the store's passphrase \
                or key file is wrong; 4 the role's trust policy refused the identity, or the identity pool \
                refused a guest or has no role it may give; 6 a file could not be read or written; 7 STS or \
                the identity pool could not be reached; 8 the encrypted store is damaged, truncated, \
                not a store, or from a newer wif-tool (it is left untouched); 64 bad options, or no such \
                identity pool.
                """
        )

        @OptionGroup var options: GlobalOptions
        @OptionGroup var store: StoreOptions

        @Option(name: .long, help: "Sign in as this development user on the embedded local stack.")
        var dev: String?

        @Option(name: .long, help: "The web-identity token, or '-' to read it from standard input.")
        var token: String?

        @Option(name: .long, help: "A file holding the web-identity token; read again at every renewal.")
        var tokenFile: String?

        @OptionGroup var federation: FederationTargetOptions

        @Flag(name: .long, help: "Protect a new encrypted store with a passphrase asked on the terminal (or set WIF_PASSPHRASE).")
        var passphrase = false

        @OptionGroup var oidc: OIDCIssuerOptions

        @Option(name: .long, help: "Sign in through this identity pool (REGION:UUID): a guest with --guest, else with the token of --dev, --token, --token-file or --issuer.")
        var identityPool: String?

        @Flag(name: .long, help: "With --identity-pool: sign in as a guest of the pool, with its unauthenticated role.")
        var guest = false

        @Option(name: .long, help: "With --identity-pool: the Cognito Identity endpoint (default: WIF_COGNITO_ENDPOINT; the STS endpoint when it is not AWS's; else the pool region's).")
        var cognitoEndpoint: String?

        func validate() throws {
            if self.guest || self.cognitoEndpoint != nil {
                guard self.identityPool != nil else { throw ValidationError("--guest and --cognito-endpoint go with --identity-pool ID") }
            }
            if let identityPool {
                do {
                    try CognitoIdentityClient.checkId(identityPool, name: "--identity-pool")
                } catch {
                    throw ValidationError("\(error.reason); an identity pool id looks like us-east-1:00000000-0000-4000-8000-000000000001")
                }
            }
            if self.federation.partitionTemplate != nil && self.identityPool != nil {
                throw ValidationError("--partition-template does not go with --identity-pool: its folders are private/, protected/ and public/ (see --level)")
            }
            let given = [self.dev != nil, self.token != nil, self.tokenFile != nil, self.oidc.issuer != nil, self.guest].filter { $0 }.count
            if self.guest {
                guard given == 1 else { throw ValidationError("--guest signs in without a token; give none of --dev, --token, --token-file and --issuer") }
            }
            guard given == 1 else {
                throw ValidationError(
                    given == 0
                        ? "give --dev USER (embedded stack), --token TOKEN or --token-file FILE, or sign in at an OpenID Connect issuer with --issuer URL --client-id ID"
                        : "give only one of --dev, --token and --token-file, or --issuer alone")
            }
            if let dev, dev.isEmpty { throw ValidationError("--dev needs a user name, such as --dev alice") }
            if let token, token.isEmpty { throw ValidationError("--token must not be empty") }
        }

        func run() async throws {
            try await reportingStoreErrors {
                let configuration = try ToolConfiguration.resolve(
                    store: self.store, region: self.options.region, roleArn: self.federation.roleArn, provider: self.federation.provider,
                    partitionTemplate: self.federation.partitionTemplate, environment: self.options.environment)
                if self.dev != nil, case .remote(let s3, _) = configuration.target {
                    throw CommandFailure(
                        status: .usage,
                        message: "--dev signs in on the embedded local stack, but the endpoint is \(s3.absoluteString); use --token or --token-file there (for a stack started with 'wif-tool local serve', 'wif-tool local token' prints one)")
                }
                let inputToken = try self.readGivenToken()
                // Open the store before signing in, so a wrong passphrase or a damaged store stops here.
                let store = try configuration.sessionStore(environment: self.options.environment, newPassphrase: self.passphrase)
                _ = try store.secrets.load()
                // A guest who signs in keeps their identity when the pool links the login to it.
                let kept = self.identityPool == nil ? nil : try? store.load()
                let (session, note) = try await StoreRuntime.withTarget(configuration, logger: self.options.makeLogger()) { context in
                    if let poolId = self.identityPool {
                        let obtained = self.guest ? nil : try await self.obtainToken(context, givenToken: inputToken, secrets: store.secrets)
                        return (try await self.signIn(toPool: poolId, context, obtained: obtained, kept: kept), nil as String?)
                    }
                    let session = try await self.signIn(context, givenToken: inputToken, secrets: store.secrets)
                    guard case .remote = configuration.target else { return (session, nil) }
                    return (session, await Self.folderProblem(session, context: context))
                }
                try store.save(session)
                let summary = SessionSummary(session, account: configuration.account, now: Date())
                if self.options.json {
                    try printJSON(summary)
                } else if !self.store.quiet {
                    let who = session.identityPool == nil ? "\(session.subject) (\(session.provider))" : session.token.kind == .guest ? "a guest of \(session.identityPool?.poolId ?? "")" : "identity \(session.subject) (\(session.provider))"
                    printOut("Signed in as \(who).\n\(TerminalText.table(summary.rows))")
                }
                if let note, !self.store.quiet { printError("note: \(note)\n") }
            }
        }

        /// Lists the new folder once, so that a folder the role does not allow (a `--partition-template` other
        /// than the one its policy names) or a bucket that is not there is noticed at sign-in rather than at
        /// the first `put`. Any other failure is left for the file commands to report.
        /// - Returns: What is wrong, or `nil`.
        private static func folderProblem(_ session: StoredSession, context: StoreContext) async -> String? {
            do {
                let federation = try context.federation(
                    roleArn: session.roleArn, bucket: session.bucket, partitionTemplate: session.partitionTemplate, stsRegion: session.region)
                let folder = try federation.folder(
                    subject: session.subject, credentialProvider: StaticCredentialProvider(credentials: session.credentials.credentials))
                _ = try await folder.list(pageSize: 1, logger: context.logger).objects.first { _ in true }
                return nil
            } catch let error as S3Error where error.code == .accessDenied {
                return "the role may not list your folder s3://\(session.bucket)/\(session.prefix) (AccessDenied); if its policy names "
                    + "another folder, sign in again with the --partition-template it expects (the folder is --partition-template "
                    + "with {id} replaced by your subject, \(session.subject))"
            } catch let error as S3Error where error.code == .noSuchBucket {
                return "there is no bucket \(session.bucket) at the endpoint (NoSuchBucket); give the shared bucket's name with --bucket"
            } catch {
                return nil
            }
        }

        /// The token of `--token` or `--token-file`, trimmed; `nil` for `--dev`.
        private func readGivenToken() throws(CommandFailure) -> String? {
            if let tokenFile {
                return try SignIn.readTokenFile(tokenFile)
            }
            guard let token else { return nil }
            return try SignIn.readToken(token, option: "--token")
        }

        /// A token to sign in with, where it comes from, and what the embedded stack suggests for it.
        struct ObtainedToken {
            var token: String
            var provider: String
            var record: StoredSession.TokenRecord
            var suggestedRole: String?
            var suggestedBucket: String?
            var developmentUser: String?
        }

        /// The token of `--dev`, `--issuer`, `--token` or `--token-file`.
        private func obtainToken(_ context: StoreContext, givenToken: String?, secrets: SecretStore) async throws -> ObtainedToken {
            let configuration = context.configuration
            let local = context.local
            let now = Date()
            // The token, its provider, and what the embedded stack says the provider's users get.
            let token: String
            let provider: String
            var record: StoredSession.TokenRecord
            var suggestedRole: String?
            var suggestedBucket: String?
            var developmentUser: String?
            if let user = self.dev, let local {
                provider = configuration.provider ?? SignIn.defaultDevelopmentProvider
                let minted: DevelopmentToken
                do {
                    minted = try local.developmentToken(provider: provider, user: user, ttl: SignIn.developmentTokenLifetime)
                } catch {
                    throw CommandFailure(status: .usage, message: "cannot sign in as development user '\(user)': \(error.message)")
                }
                token = minted.token
                record = StoredSession.TokenRecord(kind: .development, value: minted.token, expiration: minted.expiration)
                suggestedRole = minted.roleArn
                suggestedBucket = minted.bucket
                developmentUser = user
            } else if let issuer = self.oidc.issuer, let clientId = self.oidc.clientId {
                let oauth = try OIDCSignIn.clientConfiguration(issuer: issuer, clientId: clientId, expectedIssuer: self.oidc.expectedIssuer)
                let tokens = try await OIDCSignIn.authorize(
                    oauth, flow: self.oidc.browser ? .browser : .device, httpClient: context.httpClient, logger: context.logger,
                    approve: SignInApproval.terminal(environment: self.options.environment))
                let name = OIDCSignIn.accountName(configuration.account)
                try await OIDCSignIn.accounts(secrets, httpClient: context.httpClient)
                    .save(OAuthAccount(name: name, configuration: oauth, tokens: tokens), makeDefault: configuration.account == nil)
                token = tokens.idToken
                provider = configuration.provider ?? Self.providerName(forIssuer: tokens.issuer, local: local)
                record = StoredSession.TokenRecord(kind: .oidc, account: name, expiration: tokens.idTokenExpiresAt)
                if let local {
                    suggestedRole = local.roleArn(forProvider: provider)
                }
            } else {
                guard let givenToken else {
                    throw CommandFailure(status: .usage, message: "give --dev USER, --token TOKEN or --token-file FILE")
                }
                token = givenToken
                let claims = UnverifiedJWTClaims(token: token)
                if let expiration = claims?.expiration, expiration <= now {
                    throw CommandFailure(
                        status: .auth, message: "the token expired at \(expiration.formatted(.iso8601)); get a fresh one from the identity provider")
                }
                if let configured = configuration.provider {
                    provider = configured
                } else if let claims {
                    provider = Self.providerName(forIssuer: claims.issuer, local: local)
                } else {
                    throw CommandFailure(
                        status: .usage,
                        message: "the token is not a JWT, so give --provider: facebook or amazon for their access tokens")
                }
                if let tokenFile, Self.isRegularFile(tokenFile) {
                    let path = URL(fileURLWithPath: tokenFile).standardizedFileURL.path
                    record = StoredSession.TokenRecord(kind: .file, path: path, expiration: claims?.expiration)
                } else {
                    // A token given by value, or read from a pipe (a shell's `<(command)`), which cannot be
                    // read again at renewal: kept as given, as `--token` keeps it.
                    record = StoredSession.TokenRecord(kind: .token, value: token, expiration: claims?.expiration)
                }
                if let local {
                    suggestedRole = local.roleArn(forProvider: provider)
                }
            }

            return ObtainedToken(
                token: token, provider: provider, record: record, suggestedRole: suggestedRole, suggestedBucket: suggestedBucket,
                developmentUser: developmentUser)
        }

        private func signIn(_ context: StoreContext, givenToken: String?, secrets: SecretStore) async throws -> StoredSession {
            let configuration = context.configuration
            let local = context.local
            let now = Date()
            let obtained = try await self.obtainToken(context, givenToken: givenToken, secrets: secrets)
            let token = obtained.token
            let provider = obtained.provider
            let record = obtained.record
            let suggestedRole = obtained.suggestedRole
            let suggestedBucket = obtained.suggestedBucket
            let developmentUser = obtained.developmentUser

            guard let roleArn = configuration.roleArn ?? suggestedRole else {
                throw CommandFailure(
                    status: .usage, message: "give the role to assume with --role-arn (or WIF_ROLE_ARN, or role_arn in \(configuration.configFile.path))")
            }
            let localRole = local?.configuration.role(arn: roleArn)
            guard let bucket = configuration.bucket ?? suggestedBucket ?? localRole?.bucket else {
                throw CommandFailure(
                    status: .usage, message: "give the shared bucket with --bucket (or WIF_BUCKET, or bucket in \(configuration.configFile.path))")
            }

            let providerId = SignIn.providerId(for: provider)
            let claims = UnverifiedJWTClaims(token: token)
            let sessionName = SignIn.sessionName(for: developmentUser ?? claims?.subject ?? provider)
            let template = configuration.partitionTemplate ?? localRole?.partitionTemplate ?? PartitionPrefix.defaultTemplate
            let federation = try context.federation(
                roleArn: roleArn, bucket: bucket, partitionTemplate: template, durationSeconds: self.federation.duration)
            let user: WebIdentityFederation.FederatedUser
            do {
                user = try await federation.federate(
                    token: token, providerId: providerId, roleSessionName: sessionName, fallbackSubject: claims?.subject ?? developmentUser,
                    logger: context.logger)
            } catch let error as WIFCredentialsError {
                throw Self.explained(error, roleArn: roleArn)
            }
            let result = user.result

            return StoredSession(
                target: configuration.target.identifier,
                stsEndpoint: local == nil ? context.stsEndpoint.absoluteString : nil,
                region: configuration.region,
                provider: provider,
                providerId: providerId,
                subject: user.subject,
                roleArn: roleArn,
                assumedRoleArn: result.assumedRoleUser?.arn,
                roleSessionName: sessionName,
                bucket: bucket,
                prefix: user.folder.prefix.value,
                partitionTemplate: template,
                token: record,
                credentials: StoredSession.CredentialRecord(result.credentials),
                signedInAt: now
            )
        }

        /// A refusal without a message, explained. Ceph RGW answers `AccessDenied` with an empty message
        /// both when it refuses the token (signature, expiry, issuer, audience) and when the role's trust
        /// policy does not admit the identity, so the message names everything to check.
        static func explained(_ error: WIFCredentialsError, roleArn: String) -> any Error {
            guard let service = error.serviceError, service.code == "AccessDenied", (service.message ?? "").isEmpty else { return error }
            let requestId = service.requestId.map { " [request id \($0)]" } ?? ""
            return CommandFailure(
                status: .denied,
                message: "STS refused the sign-in to \(roleArn) with AccessDenied and no reason: either the token was refused (its signature, expiry, issuer or audience) or the role's trust policy does not admit this identity (its sub, aud or tags)\(requestId)")
        }

        /// Whether `path` names a regular file (following links), which renewals can read again.
        static func isRegularFile(_ path: String) -> Bool {
            var info = stat()
            return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
        }

        /// The provider profile whose tokens carry `issuer`, on the embedded stack; `oidc` otherwise.
        static func providerName(forIssuer issuer: String?, local: LocalEndpoint?) -> String {
            guard let issuer else { return "oidc" }
            if let profile = local?.configuration.providers.first(where: { $0.issuer == issuer }) {
                return profile.name
            }
            switch ProviderProfile.keyPrefix(ofIssuer: issuer) {
            case "accounts.google.com": return "google"
            case "cognito-identity.amazonaws.com": return "cognito"
            default: return "oidc"
            }
        }
    }
}
