import ArgumentParser
import AsyncHTTPClient
import Foundation
import Logging
import S3Partition
import WIFCredentials
import WIFEngines
import WIFLocal
import WIFFileStore

extension WIFTool.Engine {
    /// `wif-tool engine seaweedfs`: SeaweedFS, through its IAM config file.
    struct SeaweedFS: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "seaweedfs",
            abstract: "Federate SeaweedFS with an OpenID Connect issuer and give each user a folder.",
            subcommands: [Setup.self]
        )
    }
}

extension WIFTool.Engine.SeaweedFS {
    /// `wif-tool engine seaweedfs setup`: write the IAM config and create the bucket.
    struct Setup: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "setup",
            abstract: "Write SeaweedFS's IAM config (issuer, role, policies) and create the shared bucket.",
            discussion: """
                Writes the file SeaweedFS reads with -s3.iam.config (--iam-config FILE): STS trusting the \
                issuer as the OIDC provider --provider-name (default \(SeaweedFSIAMConfig.defaultProviderName)) \
                for tokens whose aud is --client-id (default \(ProviderProfile.developmentClientId(for: .oidc)), \
                the development issuer's); the role --role-arn (default \(SeaweedFSIAMConfig.defaultRoleArn)) \
                whose trust policy names that provider; and its permission policy, which lets each user read, \
                write, delete and list only under --partition-template (default {id}/) with {id} as \
                ${jwt:sub}, the token's sub. The same policies are in policies/seaweedfs/. The file is \
                replaced; only its STS signing key is kept, so sessions stay valid across restarts. It is \
                written only when its contents change, readable by you only.

                The issuer comes from --issuer-url URL (its /.well-known/openid-configuration names the \
                issuer and the JWKS), such as the endpoint of 'wif-tool local serve', or from --issuer ISS \
                and --jwks-uri URL. SeaweedFS must be able to reach the JWKS address.

                Then the bucket --bucket (default wif-personal) is created at --endpoint with credentials from \
                the environment or --profile: use SeaweedFS's admin identity (scripts/seaweedfs writes its \
                keys to DIR/admin.env). A bucket you already own is fine. --skip-bucket leaves it out.

                SeaweedFS reads the IAM config when it starts: restart it afterwards ('scripts/seaweedfs \
                start DIR' restarts it when the file changed). Then sign in with 'wif-tool login --endpoint \
                URL --token-file FILE --role-arn ARN --bucket NAME'.

                Exit status: 0 done; 3 no credentials or SeaweedFS does not know them; 4 they may not create \
                buckets; 6 the IAM config cannot be read or written; 7 the issuer or SeaweedFS cannot be \
                reached; 1 an answer that is not what an issuer or SeaweedFS gives; 64 bad options.
                """
        )

        @OptionGroup var options: GlobalOptions

        @Option(name: .long, help: "SeaweedFS's S3 endpoint, such as http://127.0.0.1:8333 (not needed with --skip-bucket).")
        var endpoint: String?

        @Option(name: .long, help: "The IAM config file to write: the one SeaweedFS reads with -s3.iam.config.")
        var iamConfig: String

        @Option(name: .long, help: "The issuer's base URL, whose /.well-known/openid-configuration names the issuer and its keys.")
        var issuerUrl: String?

        @Option(name: .long, help: "The tokens' iss, with --jwks-uri instead of --issuer-url.")
        var issuer: String?

        @Option(name: .long, help: "Where SeaweedFS fetches the issuer's keys, with --issuer.")
        var jwksUri: String?

        @Option(name: .long, help: "The aud the tokens must carry (default: \(ProviderProfile.developmentClientId(for: .oidc))).")
        var clientId: String = ProviderProfile.developmentClientId(for: .oidc)

        @Option(name: .long, help: "The provider's name in SeaweedFS, which the trust policy names (default: \(SeaweedFSIAMConfig.defaultProviderName)).")
        var providerName: String = SeaweedFSIAMConfig.defaultProviderName

        @Option(name: .long, help: "The shared bucket (default: wif-personal).")
        var bucket: String = LocalConfiguration.defaultBucket

        @Option(name: .long, help: "The role users assume (default: \(SeaweedFSIAMConfig.defaultRoleArn)).")
        var roleArn: String = SeaweedFSIAMConfig.defaultRoleArn

        @Option(name: .long, help: "Each user's folder, with {id} for the token's sub (default: {id}/).")
        var partitionTemplate: String = PartitionPrefix.defaultTemplate

        @Flag(name: .long, help: "Only write the IAM config; do not create the bucket.")
        var skipBucket = false

        func validate() throws {
            switch (self.issuerUrl, self.issuer, self.jwksUri) {
            case (.some, nil, nil), (nil, .some, .some): break
            case (.some, _, _): throw ValidationError("give --issuer-url, or --issuer with --jwks-uri, not both")
            default: throw ValidationError("give the issuer: --issuer-url URL, or --issuer ISS with --jwks-uri URL")
            }
            if self.endpoint == nil && !self.skipBucket {
                throw ValidationError("give SeaweedFS's --endpoint to create the bucket at, or --skip-bucket")
            }
            if self.iamConfig.isEmpty { throw ValidationError("--iam-config must not be empty") }
        }

        struct Output: Encodable {
            var iamConfig: String
            var iamConfigChanged: Bool
            var provider: String
            var issuer: String
            var jwksUri: String
            var clientId: String
            var roleArn: String
            var bucket: String
            var bucketCreated: Bool?
            var partitionTemplate: String
            var folderPattern: String
        }

        func run() async throws {
            try await reportingErrors {
                let endpoint = try self.endpoint.map { text throws(CommandFailure) in
                    try ToolConfiguration.endpointURL(ToolConfiguration.Setting(value: text, origin: "--endpoint"))
                }
                let issuerURL = try self.issuerUrl.map { text throws(CommandFailure) in
                    try ToolConfiguration.endpointURL(ToolConfiguration.Setting(value: text, origin: "--issuer-url"))
                }
                let file = URL(fileURLWithPath: self.iamConfig).standardizedFileURL
                let logger = self.options.makeLogger()
                let output = try await StoreRuntime.withHTTPClient { httpClient in
                    do {
                        return try await self.setUp(endpoint: endpoint, issuerURL: issuerURL, file: file, httpClient: httpClient, logger: logger)
                    } catch let error as EngineSetupError {
                        throw Self.failure(error)
                    }
                }
                if self.options.json {
                    try printJSON(output)
                } else {
                    printRaw(Self.text(output, endpoint: endpoint))
                }
            }
        }

        /// Discovers the issuer (with --issuer-url), writes the IAM config and creates the bucket.
        private func setUp(endpoint: URL?, issuerURL: URL?, file: URL, httpClient: HTTPClient, logger: Logger) async throws -> Output {
            let issuer: SeaweedFSIAMConfig.Issuer
            if let issuerURL {
                let found = try await SeaweedFSSetup.discover(issuerURL: issuerURL, httpClient: httpClient, logger: logger)
                issuer = .init(issuer: found.issuer, jwksURI: found.jwksURI, clientId: self.clientId)
            } else {
                issuer = .init(issuer: self.issuer ?? "", jwksURI: self.jwksUri ?? "", clientId: self.clientId)
            }
            let config = SeaweedFSIAMConfig(
                providerName: self.providerName, issuer: issuer, bucket: self.bucket, roleArn: self.roleArn,
                partitionTemplate: self.partitionTemplate, signingKey: try SeaweedFSSetup.signingKey(keptIn: file))
            try config.checkPolicies()
            let contents = try config.fileContents()
            let changed = try SeaweedFSSetup.write(contents, to: file)
            logger.debug("wrote the IAM config", metadata: ["wif.seaweedfs.iam_config": "\(file.path)", "wif.seaweedfs.changed": "\(changed)"])

            var created: Bool?
            if let endpoint, !self.skipBucket {
                let credentials: AWSCredentials
                do {
                    credentials = try await self.options.credentialProvider().getCredentials(logger: logger)
                } catch let error as WIFCredentialsError {
                    throw CommandFailure(
                        status: .auth,
                        message: "no credentials to create the bucket with (\(error.reason)); set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY to SeaweedFS's admin identity, or give --skip-bucket")
                }
                let outcome = try await SeaweedFSSetup.createBucket(
                    self.bucket, endpoint: endpoint, credentials: credentials, region: self.options.resolvedRegion(),
                    httpClient: httpClient, logger: logger)
                created = outcome == .created
            }
            return Output(
                iamConfig: file.path, iamConfigChanged: changed, provider: config.providerName, issuer: issuer.issuer,
                jwksUri: issuer.jwksURI, clientId: issuer.clientId, roleArn: config.roleArn, bucket: config.bucket,
                bucketCreated: created, partitionTemplate: config.partitionTemplate,
                folderPattern: (try? SeaweedFSIAMConfig.folderPattern(config.partitionTemplate)) ?? "")
        }

        /// The exit status and message of a failed step: the settings are a usage error, the files I/O,
        /// an unreachable issuer or SeaweedFS the network, refused credentials auth or denied, and any
        /// other answer a failure.
        static func failure(_ error: EngineSetupError) -> CommandFailure {
            switch error.code {
            case .invalidConfiguration:
                return CommandFailure(status: .usage, message: error.reason)
            case .fileError:
                return CommandFailure(status: .io, message: error.reason)
            case .network:
                return CommandFailure(status: .network, message: error.reason)
            case .invalidAccessKeyId, .signatureDoesNotMatch:
                return CommandFailure(status: .auth, message: error.reason + " (scripts/seaweedfs writes them to DIR/admin.env)")
            case .credentialsUnavailable:
                return CommandFailure(status: .auth, message: error.reason)
            case .accessDenied:
                return CommandFailure(status: .denied, message: error.reason)
            case .bucketAlreadyExists:
                return CommandFailure(status: .failure, message: error.reason + "; choose another --bucket")
            default:
                return CommandFailure(status: .failure, message: error.reason)
            }
        }

        /// The human-readable report of a set-up.
        static func text(_ output: Output, endpoint: URL?) -> String {
            var lines = [
                "IAM config   \(output.iamConfig) (\(output.iamConfigChanged ? "written" : "unchanged"))",
                "provider     \(output.provider): issuer \(output.issuer), client id \(output.clientId), keys at \(output.jwksUri)",
                "role         \(output.roleArn)",
                "bucket       \(output.bucket)\(output.bucketCreated.map { $0 ? " (created)" : " (already there)" } ?? " (not created: --skip-bucket)")",
                "folders      \(output.partitionTemplate) with {id} the token's sub (policy: \(output.folderPattern))",
            ]
            if output.iamConfigChanged {
                lines.append("SeaweedFS reads the IAM config when it starts: restart it to use this one.")
            }
            var login = "wif-tool login --endpoint \(endpoint?.absoluteString ?? "URL") --token-file FILE --role-arn \(output.roleArn) --bucket \(output.bucket)"
            if output.partitionTemplate != PartitionPrefix.defaultTemplate { login += " --partition-template '\(output.partitionTemplate)'" }
            lines.append("Sign in with: \(login)")
            return lines.joined(separator: "\n") + "\n"
        }
    }
}
