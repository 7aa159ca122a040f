import ArgumentParser
import Foundation
import WIFLocal

extension WIFTool.Local {
    /// `wif-tool local token`: a development token for a user.
    struct Token: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "token",
            abstract: "Print a development token of the local stack for a user.",
            discussion: """
                Signs with the data directory's keys, so the stack need not run (it accepts the token once it \
                does). Prints the token alone; with --json, an object with token, provider, user, providerId \
                (for the opaque-token providers facebook and amazon, to send as ProviderId), roleArn, bucket, \
                prefix (the user's private folder) and expiration (ISO 8601): what the user federates into. \
                --tag sub=alice puts a session tag in the ID token's https://aws.amazon.com/tags claim, which STS \
                turns into aws:PrincipalTag/sub (repeat it for more tags or values).

                --count N prints N tokens, one a line (with --json, one object a line), for the users \
                USER-1 to USER-N: distinct tokens for load tests of STS, where a token seen before is not \
                verified again.
                """
        )

        @OptionGroup var options: GlobalOptions
        @OptionGroup var local: LocalOptions

        @Option(name: .long, help: "The provider profile: facebook, amazon, google, cognito, oidc, or one from the configuration.")
        var provider: String

        @Option(name: .long, help: "The user id the token carries (the sub, Facebook id, …).")
        var user: String

        @Option(name: .long, help: "The client id the token is for (default: the profile's first client id).")
        var audience: String?

        @Option(name: .long, help: "The token's lifetime in seconds, 1 to \(LocalFederation.maximumTokenLifetime) (default 3600).")
        var ttl: Int = 3600

        @Option(name: .customLong("group"), help: "A group for the cognito:groups claim of a Cognito user pool profile's token (cognito-idp); repeat for more.")
        var groups: [String] = []

        @Option(name: .customLong("token-use"), help: "For a Cognito user pool profile (cognito-idp): id (the default) or access, the access token APIs in user pool mode take.")
        var tokenUse: String = TokenUse.id.rawValue

        @Option(name: .long, help: "Print this many tokens, for the users USER-1 to USER-N, one a line (1 to \(Self.maximumCount)).")
        var count: Int?

        /// The most tokens one `--count` prints.
        static let maximumCount = 100_000

        @Option(name: .customLong("tag"), help: "A session tag KEY=VALUE for the token's https://aws.amazon.com/tags claim; repeat for more.")
        var tags: [String] = []

        /// The `--tag` values by key, in the order given.
        var principalTags: [String: [String]] {
            var tags: [String: [String]] = [:]
            for tag in self.tags {
                guard let equals = tag.firstIndex(of: "=") else { continue }
                tags[String(tag[..<equals]), default: []].append(String(tag[tag.index(after: equals)...]))
            }
            return tags
        }

        func validate() throws {
            if !(1...LocalFederation.maximumTokenLifetime).contains(self.ttl) {
                throw ValidationError("--ttl must be 1 to \(LocalFederation.maximumTokenLifetime) seconds, not \(self.ttl)")
            }
            if self.user.isEmpty || self.user.utf8.count > 255 {
                throw ValidationError("--user must be 1 to 255 bytes long")
            }
            if let count = self.count {
                guard (1...Self.maximumCount).contains(count) else {
                    throw ValidationError("--count must be 1 to \(Self.maximumCount), not \(count)")
                }
                guard "\(self.user)-\(count)".utf8.count <= 255 else {
                    throw ValidationError("--user must leave room for '-\(count)' within 255 bytes with --count")
                }
            }
            if self.user.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F || $0 == "/" }) {
                throw ValidationError("--user must not contain '/' or control characters")
            }
            if let audience, audience.isEmpty {
                throw ValidationError("--audience must not be empty")
            }
            for group in self.groups where !(1...128).contains(group.count) || group.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
                // Cognito's bounds for group names.
                throw ValidationError("--group must be 1 to 128 characters without control characters, not '\(group)'")
            }
            for tag in self.tags {
                // STS's bounds for session tags: keys of 1 to 128 characters, values of at most 256.
                guard let equals = tag.firstIndex(of: "="), (1...128).contains(tag[..<equals].count),
                    tag[tag.index(after: equals)...].count <= 256,
                    !tag.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
                else {
                    throw ValidationError("--tag must be KEY=VALUE with a key of 1 to 128 characters and a value of at most 256, not '\(tag)'")
                }
            }
        }

        struct Output: Encodable {
            var token: String
            var provider: String
            var user: String
            var providerId: String?
            var roleArn: String?
            var bucket: String?
            var prefix: String?
            var expiration: String
        }

        func run() async throws {
            try await reportingErrors {
                let configuration = try self.local.configuration(environment: self.options.environment)
                guard let profile = configuration.provider(named: self.provider) else {
                    let names = configuration.providers.map(\.name).joined(separator: ", ")
                    throw CommandFailure(status: .usage, message: "unknown provider '\(self.provider)'; the configuration has \(names)")
                }
                guard let tokenUse = TokenUse(rawValue: self.tokenUse) else {
                    throw CommandFailure(status: .usage, message: "--token-use must be id or access, not '\(self.tokenUse)'")
                }
                if tokenUse == .access, !profile.isCognitoUserPool {
                    throw CommandFailure(status: .usage, message: "--token-use access needs a Cognito user pool profile such as cognito-idp, not \(self.provider)")
                }
                if !self.groups.isEmpty, !profile.isCognitoUserPool {
                    throw CommandFailure(status: .usage, message: "--group needs a Cognito user pool profile such as cognito-idp, not \(self.provider)")
                }
                if !self.tags.isEmpty, let providerId = profile.providerId {
                    throw CommandFailure(
                        status: .usage, message: "--tag needs an ID-token provider; \(self.provider) tokens are \(providerId) access tokens, which carry no claims")
                }
                let federation: LocalFederation
                do throws(LocalStackError) {
                    try configuration.validate()
                } catch {
                    throw CommandFailure(status: .usage, message: error.message)
                }
                do throws(LocalStackError) {
                    federation = try LocalFederation(configuration: configuration, logger: self.options.makeLogger())
                } catch {
                    throw CommandFailure(status: .io, message: error.message)
                }
                let users = self.count.map { count in (1...count).map { "\(self.user)-\($0)" } } ?? [self.user]
                let encoder = JSONEncoder()
                encoder.outputFormatting = self.count == nil ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
                var lines = ""
                for user in users {
                    let issued: DevelopmentToken
                    do throws(LocalStackError) {
                        issued = try federation.developmentToken(
                            provider: self.provider, user: user, audience: self.audience, ttl: self.ttl, principalTags: self.principalTags,
                            groups: self.groups, tokenUse: tokenUse)
                    } catch {
                        // The arguments were checked in validate(): what is left is the data directory and its keys.
                        throw CommandFailure(status: .io, message: error.message)
                    }
                    guard self.options.json else {
                        lines += issued.token + "\n"
                        continue
                    }
                    let output = Output(
                        token: issued.token,
                        provider: issued.provider,
                        user: issued.user,
                        providerId: issued.providerId,
                        roleArn: issued.roleArn,
                        bucket: issued.bucket,
                        prefix: issued.prefix,
                        expiration: issued.expiration.formatted(.iso8601)
                    )
                    lines += String(decoding: try encoder.encode(output), as: UTF8.self) + "\n"
                }
                printRaw(lines)
            }
        }
    }
}
