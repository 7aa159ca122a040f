import AccessRules
import ArgumentParser
import Foundation

extension WIFTool.Rules {
    /// `wif-tool rules validate`: every error and warning of schemas and rules files.
    struct Validate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "validate",
            abstract: "Check @auth rules in GraphQL schemas or JSON rules files.",
            discussion: """
                Prints one line per problem, 'FILE:LINE:COLUMN: error: PATH: message' (or 'warning:'), where \
                PATH is the element, such as Todo.@auth.rules[1].allow, then one summary line per file. A file \
                is read as JSON when its first character is '{', as SDL otherwise; a JSON object with "paths" \
                (and no "models") is a storage rules file, checked as 'rules compile' reads it. FILE '-' reads \
                standard input.

                Exit status: 0 when no file has errors (warnings allowed), 1 when any has, \
                \(ExitStatus.io.rawValue) when a file cannot be read. With --json, prints one object: \
                {"files": [{"file", "valid", "models", "errors", "warnings", "diagnostics": [{"severity", \
                "path", "message", "hint"?, "line"?, "column"?}]}], "errors", "warnings"}.
                """
        )

        @OptionGroup var options: GlobalOptions

        @Argument(help: "The schema or rules files to check ('-' for standard input).")
        var files: [String]

        func validate() throws {
            if self.files.isEmpty { throw ValidationError("name at least one schema or rules file") }
        }

        struct FileReport: FileValidationReport {
            var file: String
            var valid: Bool
            var models: [String]
            /// The paths of a storage rules file.
            var paths: [String]? = nil
            var errors: Int
            var warnings: Int
            var diagnostics: [RuleDiagnostic]
            var readError: String?
        }

        func run() async throws {
            try await reportingErrors {
                try FileValidation.run(
                    self.files, json: self.options.json,
                    unreadable: { file, reason in
                        FileReport(file: file, valid: false, models: [], errors: 0, warnings: 0, diagnostics: [], readError: reason)
                    },
                    check: { file, bytes in
                        let report: FileReport
                        if StorageRules.isStorageRules(json: bytes) {
                            let result = StorageRules.read(json: bytes)
                            let errors = result.diagnostics.filter { $0.severity == .error }.count
                            report = FileReport(
                                file: file, valid: errors == 0, models: [], paths: result.rules.paths.map(\.pattern), errors: errors,
                                warnings: result.diagnostics.count - errors, diagnostics: result.diagnostics)
                        } else {
                            let result = RuleSet.read(text: String(decoding: bytes, as: UTF8.self))
                            let errors = result.diagnostics.filter { $0.severity == .error }.count
                            report = FileReport(
                                file: file, valid: errors == 0, models: result.ruleSet.modelNames, errors: errors,
                                warnings: result.diagnostics.count - errors, diagnostics: result.diagnostics)
                        }
                        return (report, Self.text(report))
                    })
            }
        }

        static func text(_ report: FileReport) -> String {
            var text = ""
            for diagnostic in report.diagnostics { text += diagnostic.formatted(sourceName: report.file) + "\n" }
            let count = FileValidation.count
            let models = report.paths.map { count($0.count, "path") } ?? count(report.models.count, "model")
            if report.valid {
                text += "\(report.file): valid, \(models)"
                if report.warnings > 0 { text += ", \(count(report.warnings, "warning"))" }
            } else {
                text += "\(report.file): invalid, \(count(report.errors, "error")), \(count(report.warnings, "warning"))"
            }
            return text + "\n"
        }
    }
}
