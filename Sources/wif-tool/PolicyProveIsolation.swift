import ArgumentParser
import Foundation
import PolicyEngine

extension WIFTool.Policy {
    /// `wif-tool policy prove-isolation`: prove that no user reaches another user's folder, for every id.
    struct ProveIsolation: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "prove-isolation",
            abstract: "Prove that per-user folder policies keep every user out of every other user's folder.",
            discussion: """
                Decides, for every pair of distinct ids, whether one user's session may read, write, delete, \
                tag, change the ACL of, or clean up multipart uploads of an object in the other's folder, or \
                list the bucket (ListBucket, ListBucketVersions, ListBucketMultipartUploads, with any \
                s3:prefix, present or absent, and any s3:delimiter) so as to reveal the other's keys, or \
                change the bucket so that it hands out every folder (PutBucketPolicy, DeleteBucketPolicy, \
                PutBucketAcl, PutInventoryConfiguration, PutReplicationConfiguration, PutBucketLogging). The \
                folder of the user with id ID is the --template with {id} replaced by ID; the id is the value \
                of the context key --id-key. Ids are any non-empty string unless --id-chars narrows them \
                (a character class such as [0-9] or [^/]); the answer states the alphabet assumed.

                The answer is 'proved' (with the actions covered and why each is safe), 'counterexample' \
                (two ids, the request, and the statements that allow it: the request was replayed through \
                the policy simulator), or 'undecided' naming the statement or construct the prover could \
                not settle; it never claims a proof it did not make. --role NAME=FILE (repeatable; one \
                role may have several files) proves each role's identity policies in turn, together with \
                the shared --session-policy, --boundary and --resource-policy. --context KEY=VALUE gives a \
                context key every session carries with the same value (a tag, aws:userid, a fixed audience). \
                A condition on a key the prover is not given is assumed to hold in an Allow and not to hold \
                in a Deny, the cautious reading; a variable of such a key leaves the answer undecided. The \
                linter's warnings about \
                the policies are printed on standard error; with --trust-policy F they include variables of \
                providers the role's trust policy F does not trust.

                --json prints {"result": "proved"|"counterexample"|"undecided", ...details} (with --role, \
                {"result", "roles": [{"role", "result", ...details}]}).

                Exit status: 0 proved, 1 counterexample, \(ExitStatus.undecided.rawValue) undecided (for \
                several roles: 1 if any has a counterexample, else \(ExitStatus.undecided.rawValue) if any is \
                undecided), 64 for invalid policies or options, \(ExitStatus.io.rawValue) when a file \
                cannot be read.
                """
        )

        @OptionGroup var options: GlobalOptions

        @Option(name: .customLong("policy"), help: "An identity policy file of the role; repeat for more.")
        var policies: [String] = []

        @Option(name: .customLong("session-policy"), help: "A session policy file; repeat for more.")
        var sessionPolicies: [String] = []

        @Option(name: .long, help: "A permissions boundary file.")
        var boundary: String?

        @Option(name: .long, help: "A resource policy file: the bucket policy.")
        var resourcePolicy: String?

        @Option(name: .long, help: "The bucket holding the folders.")
        var bucket: String

        @Option(name: .long, help: "Each user's folder, with {id} for the id, such as '{id}/' or 'private/{id}/'.")
        var template: String

        @Option(name: .long, help: "The context key that carries the id, such as graph.facebook.com:id.")
        var idKey: String

        @Option(name: .long, help: "The characters ids may contain, as a class such as [0-9] (default: any).")
        var idChars: String?

        @Option(name: .long, help: "A role's identity policy file, NAME=FILE; repeat for more roles or files.")
        var role: [String] = []

        @Option(name: .long, help: "The role's trust policy: also warn where an identity policy uses a variable of a provider it does not trust.")
        var trustPolicy: String?

        @Option(name: .long, help: "A context key every session carries with the same value, KEY=VALUE (repeat a key for several values).")
        var context: [String] = []

        func validate() throws {
            if self.policies.isEmpty && self.role.isEmpty {
                throw ValidationError("give the role's identity policies with --policy FILE or --role NAME=FILE")
            }
            if !self.policies.isEmpty && !self.role.isEmpty {
                throw ValidationError("give --policy or --role, not both: --role NAME=FILE names each role's files")
            }
            for entry in self.role where Self.splitRole(entry) == nil {
                throw ValidationError("--role must be NAME=FILE, not '\(entry)'")
            }
            if self.bucket.isEmpty { throw ValidationError("--bucket must name a bucket") }
            do throws(PolicyEngineError) {
                _ = try PartitionTemplate(self.template)
                if let idChars { _ = try IdentifierAlphabet(idChars) }
            } catch {
                throw ValidationError(error.reason)
            }
            if self.idKey.isEmpty { throw ValidationError("--id-key must name a context key, such as graph.facebook.com:id") }
            for entry in self.context {
                guard let (key, _) = Self.splitRole(entry), key.contains(":") else {
                    throw ValidationError("--context must be KEY=VALUE with a context key such as aws:PrincipalTag/team, not '\(entry)'")
                }
                if key.lowercased() == self.idKey.lowercased() {
                    throw ValidationError("--context \(key) is the --id-key, which the prover ranges over every id")
                }
            }
        }

        /// The `--context` values by key; a key given several times has several values.
        var fixedContext: [String: ContextValue] {
            var values: [String: [String]] = [:]
            var order: [String] = []
            for entry in self.context {
                guard let (key, value) = Self.splitRole(entry) else { continue }
                if values[key] == nil { order.append(key) }
                values[key, default: []].append(value)
            }
            var context: [String: ContextValue] = [:]
            for key in order {
                let list = values[key] ?? []
                context[key] = list.count == 1 ? ContextValue(list[0]) : ContextValue(multiple: list)
            }
            return context
        }

        static func splitRole(_ entry: String) -> (name: String, file: String)? {
            guard let equals = entry.firstIndex(of: "="), equals != entry.startIndex, entry.index(after: equals) != entry.endIndex
            else { return nil }
            return (String(entry[..<equals]), String(entry[entry.index(after: equals)...]))
        }

        func run() async throws {
            try await reportingErrors {
                let template: PartitionTemplate
                var alphabet = IdentifierAlphabet.any
                do throws(PolicyEngineError) {
                    template = try PartitionTemplate(self.template)
                    if let idChars { alphabet = try IdentifierAlphabet(idChars) }
                } catch {
                    throw CommandFailure(status: .usage, message: error.reason)
                }
                let trusted = try self.trustPolicy.map { path throws(CommandFailure) in try PolicyInputs.trustedProviders(file: path) }
                var sessions: [PolicyEngine.Policy] = []
                for file in self.sessionPolicies { sessions.append(try Self.load(file, kind: .session)) }
                let boundary = try self.boundary.map { file throws(CommandFailure) in
                    try Self.load(file, kind: .permissionsBoundary)
                }
                let resource = try self.resourcePolicy.map { file throws(CommandFailure) in
                    try Self.load(file, kind: .resource)
                }
                var roles: [(name: String?, files: [String])] = []
                if self.role.isEmpty {
                    roles = [(nil, self.policies)]
                } else {
                    for entry in self.role.compactMap(Self.splitRole) {
                        if let index = roles.firstIndex(where: { $0.name == entry.name }) {
                            roles[index].files.append(entry.file)
                        } else {
                            roles.append((entry.name, [entry.file]))
                        }
                    }
                }
                self.warnWhenNoPolicyUsesTheIdKey(roles.flatMap(\.files) + self.sessionPolicies + [self.boundary, self.resourcePolicy].compactMap { $0 })
                let prover = PolicyProver(bucket: self.bucket, alphabet: alphabet, fixedContext: self.fixedContext)
                var results: [(name: String?, result: IsolationResult)] = []
                for role in roles {
                    var identity: [PolicyEngine.Policy] = []
                    for file in role.files { identity.append(try Self.load(file, kind: .identity, trusted: trusted)) }
                    let result = prover.proveIsolation(
                        identityPolicies: identity, resourcePolicy: resource, sessionPolicies: sessions,
                        permissionsBoundary: boundary, template: template, idKey: self.idKey)
                    results.append((role.name, result))
                }
                try self.report(results)
                if results.contains(where: { $0.result.name == "counterexample" }) { throw ExitStatus.failure.exitCode }
                if results.contains(where: { $0.result.name == "undecided" }) { throw ExitStatus.undecided.exitCode }
            }
        }

        /// Reads a policy and prints its warnings (with their JSON paths) on standard error, where the
        /// linter says a policy cannot do what its author meant, such as a variable no provider issues.
        /// With `trusted`, an identity policy is also checked against the providers the role trusts.
        private static func load(_ file: String, kind: PolicyKind, trusted: Set<String>? = nil) throws(CommandFailure) -> PolicyEngine.Policy {
            let bytes = try PolicyInputs.read(file)
            let policy = try PolicyInputs.policy(bytes, kind: kind, name: file)
            var warnings = policy.warnings
            if let trusted, kind == .identity {
                warnings = PolicyEngine.Policy.validate(bytes: bytes, trustedProviders: trusted, kind: kind, name: file).warnings
            }
            for warning in warnings {
                printError("\(warning.formatted(sourceName: file))\n")
            }
            return policy
        }

        /// A mistyped `--id-key` makes every per-user statement look unconfined: say so, with the keys the
        /// policies do use, rather than leave the user with an unexplained `undecided`.
        private func warnWhenNoPolicyUsesTheIdKey(_ files: [String]) {
            var used: [String] = []
            for file in files {
                guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { continue }
                var rest = Substring(text)
                while let start = rest.range(of: "${") {
                    rest = rest[start.upperBound...]
                    guard let end = rest.firstIndex(of: "}") else { break }
                    let key = String(rest[..<end])
                    if !used.contains(key) { used.append(key) }
                    rest = rest[end...]
                }
            }
            guard !used.contains(where: { $0.lowercased() == self.idKey.lowercased() }) else { return }
            let listed = used.isEmpty ? "no policy variables at all" : used.map { "${\($0)}" }.joined(separator: ", ")
            printError("warning: no policy uses ${\(self.idKey)}, the --id-key; they use \(listed)\n")
        }

        private func report(_ results: [(name: String?, result: IsolationResult)]) throws {
            if self.options.json {
                let reports = results.map { IsolationReport($0.result, role: $0.name) }
                if reports.count == 1, results[0].name == nil {
                    try printJSON(reports[0])
                } else {
                    let overall = results.contains { $0.result.name == "counterexample" } ? "counterexample"
                        : results.contains { $0.result.name == "undecided" } ? "undecided" : "proved"
                    try printJSON(RolesReport(result: overall, roles: reports))
                }
                return
            }
            for (name, result) in results {
                printRaw(IsolationReport.text(result, role: name))
            }
        }
    }
}
