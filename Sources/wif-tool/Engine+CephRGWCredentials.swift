import ArgumentParser
import Foundation
import S3Partition
import WIFCredentials
import WIFEngines
import WIFFileStore

extension WIFTool.Engine.CephRGW {
    /// `wif-tool engine ceph-rgw credentials`: the trusted server's side of the session-policy strategy.
    struct Credentials: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "credentials",
            abstract: "As the trusted server, trade a token for credentials limited to its user's folder.",
            discussion: """
                For the session-policy strategy: assumes the shared role --role-arn with the token and a \
                session policy that allows only the folder <sub>/ of --bucket, where sub is the token's \
                subject, and prints the credentials in the credential_process format (with the folder as \
                Prefix). RGW intersects the session policy with the role's, so the credentials reach that \
                folder only. Run it on the server, never hand the role's tokens to users: a token the role \
                accepts, used without the session policy, reaches every user's folder.

                The token comes from --token-file FILE or --token TOKEN ('-' reads standard input). When STS \
                names the token's subject (SubjectFromWebIdentityToken) and it differs from the sub the \
                policy was built for, the credentials are discarded.

                Exit status: 0 done; 3 the token was refused or has no sub; 4 the role's trust policy refused \
                it; 7 RGW cannot be reached; 64 bad options.
                """
        )

        @OptionGroup var options: GlobalOptions

        @Option(name: .long, help: "The gateway's URL (default: WIF_CEPH_RGW_ENDPOINT).")
        var endpoint: String?

        @Option(name: .long, help: "The web-identity token, or '-' to read it from standard input.")
        var token: String?

        @Option(name: .long, help: "A file holding the web-identity token.")
        var tokenFile: String?

        @Option(name: .long, help: "The shared role of the session-policy strategy.")
        var roleArn: String

        @Option(name: .long, help: "The shared bucket (default: wif-personal).")
        var bucket: String = "wif-personal"

        @Option(name: .long, help: "The credentials' lifetime in seconds, 900 to 43200 (default: the role's).")
        var duration: Int?

        func validate() throws {
            guard (self.token == nil) != (self.tokenFile == nil) else {
                throw ValidationError("give the token with --token TOKEN or --token-file FILE (one of them)")
            }
            if let duration, !AssumeRoleWithWebIdentityRequest.durationSecondsRange.contains(duration) {
                throw ValidationError("--duration must be 900 to 43200 seconds, not \(duration)")
            }
            if let problem = S3BucketName.awsRuleProblem(self.bucket) {
                throw ValidationError("--bucket '\(self.bucket)' is not a bucket name: \(problem)")
            }
        }

        func run() async throws {
            try await reportingEngineErrors {
                let gateway = try CephRGWAdmin.gateway(flag: self.endpoint, environment: self.options.environment)
                let token = try self.readToken()
                guard let subject = UnverifiedJWTClaims(token: token)?.subject, !subject.isEmpty else {
                    throw CommandFailure(status: .auth, message: "the token is not a JWT with a sub claim, so its user's folder is unknown")
                }
                try CephRGWFederationPlan.checkUserId(subject)
                var request = AssumeRoleWithWebIdentityRequest(
                    roleArn: self.roleArn, roleSessionName: SignIn.sessionName(for: subject),
                    policy: CephRGWFederationPlan.personalStorePolicy(bucket: self.bucket, user: subject))
                request.durationSeconds = self.duration
                let logger = self.options.makeLogger()
                let result = try await StoreRuntime.withHTTPClient { httpClient in
                    let client = try STSClient(
                        configuration: STSClient.Configuration(region: self.options.resolvedRegion(), endpoint: gateway.absoluteString),
                        environment: [:], httpClient: httpClient)
                    do {
                        return try await client.assumeRoleWithWebIdentity(request, webIdentityToken: token, logger: logger)
                    } catch let error as WIFCredentialsError {
                        throw await TokenRefusalCheck.refine(error, token: token, httpClient: httpClient, logger: logger)
                    }
                }
                if let named = result.subjectFromWebIdentityToken, named != subject {
                    throw CommandFailure(
                        status: .auth, message: "STS says the token is '\(named)''s, not '\(subject)''s as its sub claims; the credentials were discarded")
                }
                try printJSON(CredentialProcessOutput(result.credentials, prefix: subject + "/"))
            }
        }

        private func readToken() throws(CommandFailure) -> String {
            if let tokenFile {
                return try SignIn.readTokenFile(tokenFile)
            }
            return try SignIn.readToken(self.token ?? "-", option: "--token")
        }
    }
}
