import ArgumentParser
import Foundation
import WIFCredentials

extension WIFTool {
    /// `wif-tool credentials`: AWS `credential_process` output.
    struct Credentials: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print credentials in the AWS credential_process format.",
            discussion: """
                Resolves credentials from the environment (AWS_ACCESS_KEY_ID…), web identity \
                (AWS_ROLE_ARN with AWS_WEB_IDENTITY_TOKEN_FILE) or the selected profile, and prints \
                them as credential_process JSON, so the aws CLI and the SDKs can use swift-wif as a \
                credential source:

                  [profile wif]
                  credential_process = wif-tool credentials --profile federated
                """
        )

        @OptionGroup var options: GlobalOptions

        struct Output: Encodable {
            var Version = 1
            var AccessKeyId: String
            var SecretAccessKey: String
            var SessionToken: String?
            var Expiration: String?
        }

        func run() async throws {
            try await reportingErrors {
                let provider = self.options.credentialProvider()
                let credentials = try await provider.getCredentials(logger: self.options.makeLogger())
                let output = Output(
                    AccessKeyId: credentials.accessKeyId,
                    SecretAccessKey: credentials.secretAccessKey,
                    SessionToken: credentials.sessionToken,
                    Expiration: credentials.expiration.map { $0.formatted(.iso8601) }
                )
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                printOut(String(decoding: try encoder.encode(output), as: UTF8.self) + "\n")
            }
        }
    }
}
