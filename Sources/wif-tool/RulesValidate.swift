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

        struct FileReport: Encodable {
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

        struct Report: Encodable {
            var files: [FileReport]
            var errors: Int
            var warnings: Int
        }

        func run() async throws {
            try await reportingErrors {
                var reports: [FileReport] = []
                var unreadable = false
                for file in self.files {
                    let bytes: [UInt8]
                    do throws(CommandFailure) {
                        bytes = try PolicyInputs.read(file)
                    } catch {
                        unreadable = true
                        printError("error: \(error.message)\n")
                        reports.append(FileReport(
                            file: file, valid: false, models: [], errors: 0, warnings: 0, diagnostics: [], readError: error.message))
                        continue
                    }
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
                    reports.append(report)
                    if !self.options.json { printRaw(Self.text(report)) }
                }
                if self.options.json {
                    let report = Report(
                        files: reports, errors: reports.reduce(0) { $0 + $1.errors }, warnings: reports.reduce(0) { $0 + $1.warnings })
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
                    printRaw(String(decoding: try encoder.encode(report), as: UTF8.self) + "\n")
                }
                if unreadable { throw ExitStatus.io.exitCode }
                if reports.contains(where: { !$0.valid }) { throw ExitStatus.failure.exitCode }
            }
        }

        static func text(_ report: FileReport) -> String {
            var text = ""
            for diagnostic in report.diagnostics { text += diagnostic.formatted(sourceName: report.file) + "\n" }
            func count(_ number: Int, _ noun: String) -> String { "\(number) \(noun)\(number == 1 ? "" : "s")" }
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
