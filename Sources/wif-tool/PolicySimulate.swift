import ArgumentParser
import Foundation
import PolicyEngine

extension WIFTool.Policy {
    /// `wif-tool policy simulate`: decide a request, or a batch of cases, against policies.
    struct Simulate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "simulate",
            abstract: "Decide whether a request is allowed by a set of policies.",
            discussion: """
                Evaluates one request the way IAM combines identity policies (--policy, repeatable), a \
                resource or trust policy, session policies and a permissions boundary, and prints the \
                decision: Allow, ExplicitDeny or ImplicitDeny. --explain adds, statement by statement, what \
                matched; --json prints {"decision", "statements", "explanation"?}.

                Context keys: --context KEY=VALUE, repeat a key for a multi-valued key (a set); \
                --context-json '{"KEY": ["a", "b"]}' for sets of any size, including the empty set []. A key \
                not given is absent: S3 sends s3:prefix as "" for a ListBucket without a prefix, so pass \
                --context s3:prefix= to simulate that. The principal defaults to \
                \(PolicyInputs.defaultPrincipal); for a trust policy, name the identity provider \
                (--principal graph.facebook.com, or an oidc-provider ARN). The time defaults to \
                2024-05-01T12:00:00Z.

                Batch: --cases FILE.json runs {"cases": [{"name", "policies": [POLICY…], "sessionPolicy"?, \
                "permissionsBoundary"?, "resourcePolicy"?, "trustPolicy"?, "request": {"principal"?, \
                "action", "resource", "context"?: {KEY: "v" | ["v", …]}, "time"?}, "expected"?}]}, where \
                POLICY is an inline policy object or a path relative to the case file. "description", "note", \
                "source" and "category" document the file and each case. It prints one JSON line per case \
                ({"name", its documentation, "decision", "expected"?, "ok"?}; a case that cannot run, such as \
                one with an invalid policy, gets {"name", "error", "ok": false} and counts as failed), then \
                'N passed, N failed' (cases without "expected" count as neither).

                With no policy at all (or only session policies or a boundary), nothing allows the request: \
                the answer is ImplicitDeny.

                Exit status: 0 whatever the decision, since the decision is the output; 1 when --expect \
                does not match or a batch case fails or cannot run; 64 for invalid policies or options, or a \
                case file that is not JSON or whose top level is wrong; \
                \(ExitStatus.io.rawValue) when a file cannot be read.
                """
        )

        @OptionGroup var options: GlobalOptions

        @Option(name: .customLong("policy"), help: "An identity policy file; repeat for more.")
        var policies: [String] = []

        @Option(name: .customLong("session-policy"), help: "A session policy file; repeat for more.")
        var sessionPolicies: [String] = []

        @Option(name: .long, help: "A permissions boundary file.")
        var boundary: String?

        @Option(name: .long, help: "A resource policy file, such as a bucket policy.")
        var resourcePolicy: String?

        @Option(name: .long, help: "A role trust policy file (for sts:AssumeRoleWithWebIdentity requests).")
        var trustPolicy: String?

        @Option(name: .long, help: "The action, such as s3:GetObject.")
        var action: String?

        @Option(name: .long, help: "The resource ARN, such as arn:aws:s3:::bucket/key.")
        var resource: String?

        @Option(name: .long, help: "The caller: an ARN, an identity provider, a service, or 'anonymous'.")
        var principal: String?

        @Option(name: .long, help: "A context key, KEY=VALUE; repeat a key for a multi-valued key.")
        var context: [String] = []

        @Option(name: .long, help: "Context keys as a JSON object of KEY to \"value\" or [\"values\"].")
        var contextJson: String?

        @Option(name: .long, help: "The time of the request, ISO 8601 or epoch seconds.")
        var time: String?

        @Flag(name: .long, help: "Explain the decision statement by statement.")
        var explain = false

        @Option(name: .long, help: "Exit 1 unless the decision is this: Allow, ExplicitDeny or ImplicitDeny.")
        var expect: String?

        @Option(name: .long, help: "Run the cases of a JSON case file instead of one request.")
        var cases: String?

        func validate() throws {
            if self.cases != nil {
                let single: [(String, Bool)] = [
                    ("--policy", !self.policies.isEmpty), ("--session-policy", !self.sessionPolicies.isEmpty),
                    ("--boundary", self.boundary != nil), ("--resource-policy", self.resourcePolicy != nil),
                    ("--trust-policy", self.trustPolicy != nil), ("--action", self.action != nil),
                    ("--resource", self.resource != nil), ("--principal", self.principal != nil),
                    ("--context", !self.context.isEmpty), ("--context-json", self.contextJson != nil),
                    ("--time", self.time != nil), ("--expect", self.expect != nil),
                ]
                try FileValidation.refuseBesideCases(single)
                return
            }
            if self.resourcePolicy != nil && self.trustPolicy != nil {
                throw ValidationError("give --resource-policy or --trust-policy, not both")
            }
            if self.trustPolicy != nil && self.principal == nil {
                throw ValidationError("--trust-policy needs --principal: the identity provider, such as graph.facebook.com")
            }
            guard let action, !action.isEmpty else { throw ValidationError("--action is required, such as s3:GetObject") }
            guard let resource, !resource.isEmpty else {
                throw ValidationError("--resource is required, such as arn:aws:s3:::bucket/key (or * for actions without one)")
            }
            if let time, Timestamp(time) == nil {
                throw ValidationError("--time must be ISO 8601 (2024-05-01T12:00:00Z) or epoch seconds, not '\(time)'")
            }
            if let expect, PolicyInputs.outcome(expect) == nil {
                throw ValidationError("--expect must be \(PolicyInputs.outcomeNames), not '\(expect)'")
            }
        }

        func run() async throws {
            try await reportingErrors {
                if let cases {
                    try self.runBatch(PolicyCaseFile(path: cases))
                } else {
                    try self.runSingle()
                }
            }
        }

        // MARK: One request

        private func runSingle() throws {
            // Decided as given, but a request no policy can match is most likely a mistake: said on
            // standard error, where it does not change the answer a script reads.
            if let action, action != "*", !action.contains(":") {
                printError("warning: --action '\(action)' has no service prefix; IAM actions are written SERVICE:ACTION, such as s3:\(action)\n")
            }
            if let resource, resource != "*", !resource.hasPrefix("arn:") {
                printError("warning: --resource '\(resource)' is not an ARN such as arn:aws:s3:::bucket/key, nor *\n")
            }
            var identity: [PolicyEngine.Policy] = []
            for file in self.policies { identity.append(try PolicyInputs.policy(file: file, kind: .identity)) }
            var session: [PolicyEngine.Policy] = []
            for file in self.sessionPolicies { session.append(try PolicyInputs.policy(file: file, kind: .session)) }
            let boundary = try self.boundary.map { file throws(CommandFailure) in
                try PolicyInputs.policy(file: file, kind: .permissionsBoundary)
            }
            var resourcePolicy = try self.resourcePolicy.map { file throws(CommandFailure) in
                try PolicyInputs.policy(file: file, kind: .resource)
            }
            if let trustPolicy {
                resourcePolicy = try PolicyInputs.policy(file: trustPolicy, kind: .trust)
            }

            var values = try PolicyInputs.context(arguments: self.context)
            if let contextJson {
                for (key, value) in try PolicyInputs.context(json: contextJson) {
                    if values.keys.contains(where: { $0.lowercased() == key.lowercased() }) {
                        throw CommandFailure(status: .usage, message: "context key '\(key)' is given by both --context and --context-json")
                    }
                    values[key] = value
                }
            }
            let principal = try PolicyInputs.principal(self.principal ?? PolicyInputs.defaultPrincipal)
            let time = self.time.flatMap { Timestamp($0) } ?? PolicySimulator.defaultTime
            let simulator = PolicySimulator(
                identityPolicies: identity, resourcePolicy: resourcePolicy, sessionPolicies: session,
                permissionsBoundary: boundary, time: time)
            let request = simulator.request(
                ActionName(self.action ?? ""), self.resource ?? "",
                as: RequestContext(principal: principal, time: time, values: values))

            let decision: Decision
            if self.explain {
                let explanation = simulator.explain(request)
                decision = explanation.decision
                if self.options.json {
                    var object = Self.decisionObject(decision)
                    object.add("explanation", json: explanation.json(pretty: false))
                    printRaw(object.text + "\n")
                } else {
                    printRaw("\(PolicyInputs.name(decision.outcome))\n\(explanation.text)\n")
                }
            } else {
                decision = simulator.decide(request)
                printRaw((self.options.json ? Self.decisionObject(decision).text : PolicyInputs.name(decision.outcome)) + "\n")
            }

            if let expect, let expected = PolicyInputs.outcome(expect), expected != decision.outcome {
                throw CommandFailure(
                    status: .failure,
                    message: "expected \(PolicyInputs.name(expected)), got \(PolicyInputs.name(decision.outcome))")
            }
        }

        static func decisionObject(_ decision: Decision) -> PolicyJSONObject {
            var object = PolicyJSONObject()
            object.add("decision", PolicyInputs.name(decision.outcome))
            object.add("statements", json: PolicyJSONObject.array(decision.statements.map(\.policyJSON)))
            return object
        }

        // MARK: Batch

        private func runBatch(_ file: PolicyCaseFile) throws {
            try file.entries.runCases(self.run(_:into:))
        }

        /// Decides one case, adds the decision to its output line, and says whether it met its
        /// expectation (`nil` without one).
        private func run(_ entry: PolicyCaseFile.Case, into object: inout PolicyJSONObject) -> Bool? {
            let request = entry.request
            var explanation: Explanation?
            let decision: Decision
            if self.explain {
                let explained = entry.simulator.explain(request)
                explanation = explained
                decision = explained.decision
            } else {
                decision = entry.simulator.decide(request)
            }
            object.add("decision", PolicyInputs.name(decision.outcome))
            var ok: Bool?
            if let expected = entry.expected {
                ok = expected == decision.outcome
                object.add("expected", PolicyInputs.name(expected))
                object.add("ok", expected == decision.outcome)
            }
            if let explanation {
                object.add("explanation", json: explanation.json(pretty: false))
            }
            return ok
        }
    }
}
