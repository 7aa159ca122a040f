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
                the shared --session-policy, --boundary and --resource-policy, and then each role's users \
                against the folders of every other role's users. A role keeps its folders at --template and \
                names its users by --id-key with ids of --id-chars unless --role-template NAME=TEMPLATE, \
                --role-id-key NAME=KEY or --role-id-chars NAME=CLASS say otherwise for it. Roles with the \
                same id key share their users (the same id is the same user: an identity pool's guest, \
                authenticated and group roles); roles with different keys do not, so user 123 of Facebook \
                and user 123 of Google are two users, and two such roles that both keep folders at {id}/ \
                share folders. --context KEY=VALUE gives a \
                context key every session carries with the same value (a tag, aws:userid, a fixed audience). \
                A condition on a key the prover is not given is assumed to hold in an Allow and not to hold \
                in a Deny, the cautious reading; a variable of such a key leaves the answer undecided. The \
                linter's warnings about \
                the policies are printed on standard error; with --trust-policy F they include variables of \
                providers the role's trust policy F does not trust.

                --json prints {"result": "proved"|"counterexample"|"undecided", ...details} (with --role, \
                {"result", "roles": [{"role", "result", ...details}], "pairs": [{"caller", "owner", \
                "result", ...details}]}, roles being each role against its own users and pairs each role \
                against another role's users).

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
        var template: String?

        @Option(name: .long, help: "The context key that carries the id, such as graph.facebook.com:id.")
        var idKey: String?

        @Option(name: .long, help: "The characters ids may contain, as a class such as [0-9] (default: any).")
        var idChars: String?

        @Option(name: .long, help: "A role's identity policy file, NAME=FILE; repeat for more roles or files.")
        var role: [String] = []

        @Option(name: .long, help: "A role's own folder template, NAME=TEMPLATE (default: --template).")
        var roleTemplate: [String] = []

        @Option(name: .long, help: "A role's own id key, NAME=KEY (default: --id-key).")
        var roleIdKey: [String] = []

        @Option(name: .long, help: "A role's own id characters, NAME=CLASS (default: --id-chars).")
        var roleIdChars: [String] = []

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
            let names = Set(self.role.compactMap { Self.splitRole($0)?.name })
            for (option, entries, what) in [
                ("--role-template", self.roleTemplate, "TEMPLATE"), ("--role-id-key", self.roleIdKey, "KEY"),
                ("--role-id-chars", self.roleIdChars, "CLASS"),
            ] {
                var seen: Set<String> = []
                for entry in entries {
                    guard let (name, _) = Self.splitRole(entry) else {
                        throw ValidationError("\(option) must be NAME=\(what), not '\(entry)'")
                    }
                    guard names.contains(name) else {
                        throw ValidationError("\(option) \(entry) names no role given with --role \(name)=FILE")
                    }
                    guard seen.insert(name).inserted else {
                        throw ValidationError("\(option) is given twice for role \(name); give it once")
                    }
                }
            }
            if self.bucket.isEmpty { throw ValidationError("--bucket must name a bucket") }
            let roles = self.role.isEmpty ? [nil] : names.sorted().map { Optional($0) }
            for role in roles {
                let label = role.map { " for role \($0)" } ?? ""
                guard let template = self.setting(self.roleTemplate, self.template, for: role) else {
                    throw ValidationError("give each user's folder with --template (or --role-template NAME=TEMPLATE)\(label)")
                }
                guard let idKey = self.setting(self.roleIdKey, self.idKey, for: role), !idKey.isEmpty else {
                    throw ValidationError(
                        "--id-key must name a context key, such as graph.facebook.com:id (or --role-id-key NAME=KEY)\(label)")
                }
                do throws(PolicyEngineError) {
                    _ = try PartitionTemplate(template)
                    if let idChars = self.setting(self.roleIdChars, self.idChars, for: role) { _ = try IdentifierAlphabet(idChars) }
                } catch {
                    throw ValidationError(error.reason + label)
                }
                for entry in self.context {
                    guard let (key, _) = Self.splitRole(entry), key.contains(":") else {
                        throw ValidationError("--context must be KEY=VALUE with a context key such as aws:PrincipalTag/team, not '\(entry)'")
                    }
                    if key.lowercased() == idKey.lowercased() {
                        let which = role.map { "the id key of role \($0)" } ?? "the --id-key"
                        throw ValidationError("--context \(key) is \(which), which the prover ranges over every id")
                    }
                }
            }
        }

        /// A role's own value of a setting (`NAME=VALUE` entries), or the shared one.
        func setting(_ entries: [String], _ shared: String?, for role: String?) -> String? {
            guard let role else { return shared }
            return entries.compactMap(Self.splitRole).last { $0.name == role }?.file ?? shared
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
                let shared = self.sessionPolicies + [self.boundary, self.resourcePolicy].compactMap { $0 }
                var isolationRoles: [IsolationRole] = []
                for role in roles {
                    let template: PartitionTemplate
                    var alphabet = IdentifierAlphabet.any
                    let idKey = self.setting(self.roleIdKey, self.idKey, for: role.name) ?? ""
                    do throws(PolicyEngineError) {
                        template = try PartitionTemplate(self.setting(self.roleTemplate, self.template, for: role.name) ?? "")
                        if let idChars = self.setting(self.roleIdChars, self.idChars, for: role.name) {
                            alphabet = try IdentifierAlphabet(idChars)
                        }
                    } catch {
                        throw CommandFailure(status: .usage, message: error.reason)
                    }
                    self.warnWhenNoPolicyUsesTheIdKey(idKey, files: role.files + shared, role: role.name)
                    var identity: [PolicyEngine.Policy] = []
                    for file in role.files { identity.append(try Self.load(file, kind: .identity, trusted: trusted)) }
                    let policies = PolicyEvaluator(
                        identityPolicies: identity, resourcePolicy: resource, sessionPolicies: sessions, permissionsBoundary: boundary)
                    isolationRoles.append(
                        IsolationRole(name: role.name ?? "", policies: policies, template: template, idKey: idKey, alphabet: alphabet))
                }
                let prover = PolicyProver(bucket: self.bucket, fixedContext: self.fixedContext)
                let answers = prover.proveIsolation(across: isolationRoles)
                let own = answers.filter { $0.caller == $0.owner }
                let results = own.map { (name: self.role.isEmpty ? nil : $0.caller, result: $0.result) }
                let pairs = answers.filter { $0.caller != $0.owner }
                try self.report(results, pairs: pairs)
                let all = answers.map(\.result.name)
                if all.contains("counterexample") { throw ExitStatus.failure.exitCode }
                if all.contains("undecided") { throw ExitStatus.undecided.exitCode }
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
        private func warnWhenNoPolicyUsesTheIdKey(_ idKey: String, files: [String], role: String?) {
            var used: [String] = []
            for file in files {
                guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { continue }
                // Read as the policy parser reads variables: `${key, 'default'}` uses `key`.
                for key in PolicyVariableScanner.keys(in: text) where !used.contains(key) { used.append(key) }
            }
            guard !used.contains(where: { $0.lowercased() == idKey.lowercased() }) else { return }
            let listed = used.isEmpty ? "no policy variables at all" : used.map { "${\($0)}" }.joined(separator: ", ")
            let subject = role.map { "no policy of role \($0) uses ${\(idKey)}, its id key" } ?? "no policy uses ${\(idKey)}, the --id-key"
            printError("warning: \(subject); they use \(listed)\n")
        }

        private func report(_ results: [(name: String?, result: IsolationResult)], pairs: [RoleIsolationResult]) throws {
            if self.options.json {
                let reports = results.map { IsolationReport($0.result, role: $0.name) }
                if reports.count == 1, results[0].name == nil {
                    try printJSON(reports[0])
                } else {
                    let names = results.map(\.result.name) + pairs.map(\.result.name)
                    let overall = names.contains("counterexample") ? "counterexample"
                        : names.contains("undecided") ? "undecided" : "proved"
                    let pairReports = pairs.map { IsolationReport($0.result, caller: $0.caller, owner: $0.owner) }
                    try printJSON(RolesReport(result: overall, roles: reports, pairs: pairReports.isEmpty ? nil : pairReports))
                }
                return
            }
            for (name, result) in results {
                printRaw(IsolationReport.text(result, role: name))
            }
            for pair in pairs {
                printRaw(IsolationReport.text(pair.result, role: "\(pair.caller) against the users of role \(pair.owner)"))
            }
        }
    }
}
