import ArgumentParser
import Foundation
import WIFLocal

extension WIFTool.Local {
    /// `wif-tool local serve`: run the stack in the foreground.
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "serve",
            abstract: "Run the local stack in the foreground until SIGINT or SIGTERM.",
            discussion: """
                Prints one line when the stack is ready: its endpoint, such as http://127.0.0.1:4566, to use as \
                AWS_ENDPOINT_URL (with --json, an object with endpoint, issuer, dataDirectory, identityPools, each with its id, \
                name and roles, and apis, each with its name, url, modes and API keys; the stack's amplify_outputs.json is at \
                /.well-known/amplify_outputs.json). Stops \
                gracefully on SIGINT (Ctrl-C) or SIGTERM and exits 0. Warnings (a Lambda authorizer that failed, \
                an issuer's keys that could not be fetched) go to standard error; --verbose adds one line per \
                request. Exit status \(ExitStatus.usage.rawValue) for an invalid configuration, \
                \(ExitStatus.io.rawValue) when the configuration file or data directory cannot be used, \
                \(ExitStatus.network.rawValue) when the address cannot be bound.
                """
        )

        @OptionGroup var options: GlobalOptions
        @OptionGroup var local: LocalOptions

        @Option(name: .long, help: "The port to listen on; 0 picks a free one (default: the configuration's, 0).")
        var port: Int?

        @Option(name: .long, help: "The address to listen on (default: the configuration's, 127.0.0.1).")
        var host: String?

        func validate() throws {
            if let port, !(0...65535).contains(port) {
                throw ValidationError("--port must be 0 to 65535, not \(port)")
            }
            if let host, host.isEmpty {
                throw ValidationError("--host must not be empty")
            }
        }

        struct Ready: Encodable {
            var endpoint: String
            var issuer: String
            var dataDirectory: String
            var identityPools: [Pool]
            var apis: [API]
        }

        /// An API as `--json` lists it: where it is, its modes (the default first) and its keys.
        struct API: Encodable {
            var name: String
            var url: String
            var modes: [String]
            var apiKeys: [String]
            var stage: String

            init(_ api: APIDefinition, endpoint: String) {
                self.name = api.name
                self.url = "\(endpoint)/apis/\(api.name)"
                self.modes = ([api.defaultMode] + api.authorizationModes.filter { $0 != api.defaultMode }).map(\.rawValue)
                self.apiKeys = api.apiKeys.map(\.value)
                self.stage = api.stage
            }
        }

        /// An identity pool as `--json` lists it: its id, name, whether guests are let in, and its roles.
        struct Pool: Encodable {
            var id: String
            var name: String
            var allowUnauthenticatedIdentities: Bool
            var allowClassicFlow: Bool
            var authenticatedRole: String?
            var unauthenticatedRole: String?
            /// The roles a rule of a role mapping may choose.
            var ruleRoles: [String]
            /// Every role the pool may hand out.
            var roles: [String]

            init(_ pool: IdentityPoolDefinition) {
                self.id = pool.id
                self.name = pool.name
                self.allowUnauthenticatedIdentities = pool.allowUnauthenticatedIdentities
                self.allowClassicFlow = pool.allowClassicFlow
                self.authenticatedRole = pool.roles.authenticated
                self.unauthenticatedRole = pool.roles.unauthenticated
                var roles: [String] = []
                for mapping in pool.roleMappings.sorted(by: { $0.key < $1.key }).map(\.value) {
                    for rule in mapping.rules where !roles.contains(rule.roleArn) { roles.append(rule.roleArn) }
                }
                self.ruleRoles = roles
                self.roles = [pool.roles.authenticated, pool.roles.unauthenticated].compactMap { $0 } + roles.filter {
                    $0 != pool.roles.authenticated && $0 != pool.roles.unauthenticated
                }
            }
        }

        func run() async throws {
            try await reportingErrors {
                let environment = self.options.environment
                var configuration = try self.local.configuration(environment: environment)
                if let port { configuration.port = port }
                if let host { configuration.host = host }
                if let region = self.options.region, !region.isEmpty { configuration.region = region }
                do throws(LocalStackError) {
                    try configuration.validate()
                } catch {
                    throw CommandFailure(status: .usage, message: error.message)
                }
                do throws(LocalStackError) {
                    _ = try LocalFederation(configuration: configuration)
                } catch {
                    throw CommandFailure(status: .io, message: error.message)
                }
                let json = self.options.json
                do {
                    try await LocalStack.serve(configuration, logger: self.options.makeServerLogger()) { endpoint in
                        if json {
                            let ready = Ready(
                                endpoint: endpoint.url, issuer: endpoint.issuer, dataDirectory: endpoint.configuration.dataDirectory,
                                identityPools: endpoint.configuration.identityPools.map(Pool.init),
                                apis: endpoint.configuration.apis.map { API($0, endpoint: endpoint.url) })
                            let encoder = JSONEncoder()
                            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                            let line = (try? encoder.encode(ready)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
                            printRaw(line + "\n")
                        } else {
                            printRaw(endpoint.url + "\n")
                        }
                    }
                } catch let error as LocalStackError {
                    // The configuration and data directory were checked above: what is left is the address.
                    throw CommandFailure(status: .network, message: error.message)
                }
            }
        }
    }
}
