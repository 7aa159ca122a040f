import ArgumentParser
import Foundation
import PolicyEngine
import WIFTerminal

extension WIFTool.Policy {
    /// `wif-tool policy validate`: every error and warning of policy files, with JSON paths.
    struct Validate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "validate",
            abstract: "Check IAM policy files and list every error and warning.",
            discussion: """
                Prints one line per problem, 'FILE:LINE:COLUMN: error: PATH: message' (or 'warning:'), where \
                PATH is the JSON path of the element such as Statement[1].Condition.StringLike, then one \
                summary line per file. The kind of policy decides some rules (an identity policy must not \
                name a Principal, a resource policy must); by default it is inferred: statements naming a \
                Principal make a trust policy when every action is sts:AssumeRole…, a resource policy \
                otherwise, and anything else is an identity policy. FILE '-' reads standard input.

                With --trust-policy F, each permissions policy is also checked against the providers the \
                role's trust policy F trusts (its Federated principals): a variable of another provider, \
                such as ${graph.facebook.com:id} in a role only Google users may assume, is a warning, since \
                the role's sessions never carry that key.

                Exit status: 0 when no file has errors (warnings allowed), 1 when any has, \
                \(ExitStatus.io.rawValue) when a file cannot be read. With --json, prints one object: \
                {"files": [{"file", "kind", "valid", "errors", "warnings", "diagnostics": [{"severity", \
                "path", "message", "hint"?, "line"?, "column"?}]}], "errors", "warnings"}.
                """
        )

        @OptionGroup var options: GlobalOptions

        @Option(
            name: .long,
            help: "Validate as this kind: identity, resource, trust, session or boundary (default: inferred per file).")
        var kind: String?

        @Option(
            name: .long,
            help: "The role's trust policy: also warn where a permissions policy uses a variable of a provider it does not trust.")
        var trustPolicy: String?

        @Argument(help: "The policy files to check ('-' for standard input).")
        var files: [String]

        func validate() throws {
            if self.files.isEmpty {
                throw ValidationError("name at least one policy file")
            }
            if let kind, PolicyKind(kind) == nil {
                throw ValidationError("--kind must be identity, resource, trust, session or boundary, not '\(kind)'")
            }
        }

        struct FileReport: FileValidationReport {
            var file: String
            var kind: String?
            var valid: Bool
            var errors: Int
            var warnings: Int
            var diagnostics: [PolicyDiagnostic]
            var readError: String?
        }

        func run() async throws {
            try await reportingErrors {
                let forcedKind = self.kind.flatMap(PolicyKind.init)
                let trusted = try self.trustPolicy.map { path throws(CommandFailure) in try PolicyInputs.trustedProviders(file: path) }
                try FileValidation.run(
                    self.files, json: self.options.json,
                    unreadable: { file, reason in
                        FileReport(file: file, valid: false, errors: 0, warnings: 0, diagnostics: [], readError: reason)
                    },
                    check: { file, bytes in
                        let kind = forcedKind ?? PolicyInputs.inferKind(bytes)
                        let result: PolicyValidation
                        if let trusted, kind != .trust {
                            result = PolicyEngine.Policy.validate(bytes: bytes, trustedProviders: trusted, kind: kind, name: file)
                        } else {
                            result = PolicyEngine.Policy.validate(bytes: bytes, kind: kind, name: file)
                        }
                        let report = FileReport(
                            file: file, kind: kind?.description, valid: result.isValid, errors: result.errors.count,
                            warnings: result.warnings.count, diagnostics: result.diagnostics)
                        return (report, Self.text(file: file, kind: kind, result: result))
                    })
            }
        }

        private static func text(file: String, kind: PolicyKind?, result: PolicyValidation) -> String {
            var text = ""
            for diagnostic in result.diagnostics {
                text += diagnostic.formatted(sourceName: file) + "\n"
            }
            let count = FileValidation.count
            let what = PolicyInputs.describe(kind)
            if result.isValid {
                text += "\(file): valid \(what)"
                if !result.warnings.isEmpty { text += ", \(count(result.warnings.count, "warning"))" }
            } else {
                text += "\(file): invalid \(what), \(count(result.errors.count, "error")), \(count(result.warnings.count, "warning"))"
            }
            return text + "\n"
        }
    }
}
