import AccessRules
import ArgumentParser
import Foundation
import WIFFoundation

extension WIFTool.Rules {
    /// `wif-tool rules simulate`: decide an operation on a record, or a batch of cases, under @auth rules.
    struct Simulate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "simulate",
            abstract: "Decide whether a caller may perform an operation on a record under @auth rules.",
            discussion: """
                Decides one operation (create, update, delete, get, list, search, sync, listen; read is \
                decided as get) on a model of --schema and prints Allow or Deny; --explain adds the deciding \
                rule and why, with the semantics used; --json prints {"decision", "semantics", "rule", \
                "field"?, "redacted"?, "explanation"?}. The caller is --auth-mode (userPools, oidc, iam, \
                apiKey, function) with --claims and --groups (into cognito:groups) and, for iam, --role; \
                with neither --auth-mode nor --claims it has no credentials at all, and --claims alone means \
                userPools. For create --record is the record to create; for update it is the stored record \
                and --update the fields being changed.

                Batch: --cases FILE.json runs {"cases": [{"name", "model", "operation", "caller": null | \
                {"authMode", "claims"?, "role"?, "groups"?}, "record"?, "update"?, "semantics"?, \
                "expected"?: "Allow" | "Deny"}]} and prints one JSON line per case ({"name", "decision", \
                "semantics", "rule", "expected"?, "ok"?}; a case that cannot run gets {"name", "error", \
                "ok": false} and counts as failed), then 'N passed, N failed'.

                Exit status: 0 whatever the decision; 1 when a batch case fails or cannot run; 64 for invalid \
                rules, options or case files; \(ExitStatus.io.rawValue) when a file cannot be read.
                """
        )

        @OptionGroup var options: GlobalOptions

        @Option(name: .long, help: "The GraphQL schema or JSON rules file.")
        var schema: String

        @Option(name: .long, help: "The model (type) name.")
        var model: String?

        @Option(name: .long, help: "The operation: create, update, delete, read, get, list, search, sync or listen.")
        var operation: String?

        @Option(name: .long, help: "The caller's auth mode: userPools, oidc, iam, apiKey or function.")
        var authMode: String?

        @Option(name: .long, help: "The caller's claims as a JSON object.")
        var claims: String?

        @Option(name: .long, parsing: .upToNextOption, help: "The caller's groups (cognito:groups).")
        var groups: [String] = []

        @Option(name: .long, help: "For iam: authenticated or unauthenticated (default authenticated).")
        var role: String?

        @Option(name: .long, help: "The record as a JSON object: stored, or to create.")
        var record: String?

        @Option(name: .long, help: "For update: the changed fields as a JSON object.")
        var update: String?

        @Option(name: .long, help: "v1 or v2 (default: the rules file's, else v2).")
        var semantics: String?

        @Flag(name: .long, help: "Explain the decision: the deciding rule and why.")
        var explain = false

        @Option(name: .long, help: "Run the cases of a JSON case file instead of one operation.")
        var cases: String?

        func validate() throws {
            if let semantics, RuleSemantics(rawValue: semantics) == nil {
                throw ValidationError("--semantics must be v1 or v2, not '\(semantics)'")
            }
            if self.cases != nil {
                let single: [(String, Bool)] = [
                    ("--model", self.model != nil), ("--operation", self.operation != nil), ("--auth-mode", self.authMode != nil),
                    ("--claims", self.claims != nil), ("--groups", !self.groups.isEmpty), ("--role", self.role != nil),
                    ("--record", self.record != nil), ("--update", self.update != nil),
                ]
                try FileValidation.refuseBesideCases(single)
                return
            }
            guard let model, !model.isEmpty else { throw ValidationError("--model is required, such as Todo") }
            guard let operation else { throw ValidationError("--operation is required, such as get") }
            if RulesInputs.operation(operation) == nil {
                throw ValidationError("--operation must be one of \(RulesInputs.operationNames.joined(separator: ", ")), not '\(operation)'")
            }
            if self.update != nil, operation != "update" { throw ValidationError("--update is only for --operation update") }
        }

        func run() async throws {
            try await reportingErrors {
                var ruleSet = try RulesInputs.ruleSet(file: self.schema)
                if let semantics { ruleSet.semantics = RuleSemantics(rawValue: semantics) ?? ruleSet.semantics }
                if let cases {
                    try self.runBatch(RulesCaseFile(path: cases), ruleSet: ruleSet)
                } else {
                    try self.runSingle(ruleSet)
                }
            }
        }

        private func runSingle(_ ruleSet: RuleSet) throws {
            func object(_ text: String?, _ option: String) throws(CommandFailure) -> JSONNode? {
                guard let text else { return nil }
                do {
                    return try JSONParser.parse(Array(text.utf8))
                } catch {
                    throw CommandFailure(status: .usage, message: "\(option) is not valid JSON: \(error.message)")
                }
            }
            let claimsNode = try object(self.claims, "--claims")
            let recordNode = try object(self.record, "--record")
            let updateNode = try object(self.update, "--update")
            let caller: Caller?
            let record: Record?
            let update: Record?
            do throws(PolicyCaseFile.Problem) {
                let claims = try claimsNode.map { node throws(PolicyCaseFile.Problem) in try RulesInputs.claims(node, path: "--claims") } ?? [:]
                record = try recordNode.map { node throws(PolicyCaseFile.Problem) in try RulesInputs.record(node, path: "--record") }
                update = try updateNode.map { node throws(PolicyCaseFile.Problem) in try RulesInputs.record(node, path: "--update") }
                let mode = self.authMode ?? (self.claims != nil || !self.groups.isEmpty ? "userPools" : nil)
                caller = try RulesInputs.caller(authMode: mode, claims: claims, role: self.role, groups: self.groups, path: "--auth-mode")
            } catch {
                throw CommandFailure(status: .usage, message: error.text)
            }
            // A mistyped model is a mistake in the command, not a decision to deny.
            let model = self.model ?? ""
            guard ruleSet.models[model] != nil else {
                let known = ruleSet.models.keys.sorted().joined(separator: ", ")
                throw CommandFailure(status: .usage, message: "--model: the schema has no model '\(model)'; it has \(known.isEmpty ? "none" : known)")
            }
            let operation = RulesInputs.operation(self.operation ?? "") ?? .get
            let decision = Self.decide(ruleSet, model: self.model ?? "", operation: operation, caller: caller, record: record, update: update)
            if self.options.json {
                printRaw(RulesInputs.decisionObject(decision, explain: self.explain).text + "\n")
            } else {
                printRaw(decision.outcome.rawValue + (self.explain ? "\n\(decision.explanation)" : "") + "\n")
            }
        }

        static func decide(
            _ ruleSet: RuleSet, model: String, operation: ModelOperation, caller: Caller?, record: Record?, update: Record?,
            semantics: RuleSemantics? = nil
        ) -> RuleDecision {
            let evaluator = RuleEvaluator(ruleSet: ruleSet, semantics: semantics)
            if operation == .create {
                return evaluator.decide(model: model, operation: operation, caller: caller, after: record)
            }
            return evaluator.decide(model: model, operation: operation, caller: caller, before: record, after: update)
        }

        private func runBatch(_ file: RulesCaseFile, ruleSet: RuleSet) throws {
            try file.entries.runCases { entry, object in
                let decision = Self.decide(
                    ruleSet, model: entry.model, operation: entry.operation, caller: entry.caller, record: entry.record,
                    update: entry.update, semantics: entry.semantics)
                object.add("decision", decision.outcome.rawValue)
                object.add("semantics", decision.semantics.rawValue)
                if let rule = decision.rule { object.add("rule", rule.summary) } else { object.add("rule", json: "null") }
                var ok: Bool?
                if let expected = entry.expected {
                    ok = expected == decision.outcome
                    object.add("expected", expected.rawValue)
                    object.add("ok", expected == decision.outcome)
                }
                if self.explain { object.add("explanation", decision.explanation) }
                return ok
            }
        }
    }
}
