import ArgumentParser
import Foundation

/// One file's result in `policy validate` and `rules validate`.
protocol FileValidationReport: Encodable {
    var valid: Bool { get }
    var errors: Int { get }
    var warnings: Int { get }
}

/// The loop `policy validate` and `rules validate` share: each file is read and checked in turn; with
/// `--json` every report is printed at the end as one document, otherwise each file's text as it is
/// checked. The command then exits with 74 if a file could not be read, 1 if one is invalid.
enum FileValidation {
    /// The `--json` document: each file's report and the totals.
    struct Summary<Report: FileValidationReport>: Encodable {
        var files: [Report]
        var errors: Int
        var warnings: Int
    }

    /// Validates files.
    /// - Parameters:
    ///   - files: The paths.
    ///   - json: Whether to print one JSON document instead of text.
    ///   - unreadable: The report of a file that could not be read, from its path and the reason.
    ///   - check: The report of a file's bytes, and its text for people.
    static func run<Report: FileValidationReport>(
        _ files: [String], json: Bool, unreadable: (String, String) -> Report,
        check: (String, [UInt8]) -> (report: Report, text: String)
    ) throws {
        var reports: [Report] = []
        var anyUnreadable = false
        for file in files {
            let bytes: [UInt8]
            do throws(CommandFailure) {
                bytes = try PolicyInputs.read(file)
            } catch {
                anyUnreadable = true
                printError("error: \(error.message)\n")
                reports.append(unreadable(file, error.message))
                continue
            }
            let (report, text) = check(file, bytes)
            reports.append(report)
            if !json { printRaw(text) }
        }
        if json {
            let summary = Summary(
                files: reports, errors: reports.reduce(0) { $0 + $1.errors }, warnings: reports.reduce(0) { $0 + $1.warnings })
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
            printRaw(String(decoding: try encoder.encode(summary), as: UTF8.self) + "\n")
        }
        if anyUnreadable { throw ExitStatus.io.exitCode }
        if reports.contains(where: { !$0.valid }) { throw ExitStatus.failure.exitCode }
    }

    /// `1 error`, `2 warnings`.
    static func count(_ number: Int, _ noun: String) -> String {
        "\(number) \(noun)\(number == 1 ? "" : "s")"
    }

    /// Refuses the options of a single request beside `--cases`, naming the first one given.
    /// - Parameter single: Each option's name and whether it was given.
    static func refuseBesideCases(_ single: [(String, Bool)]) throws {
        if let (name, _) = single.first(where: { $0.1 }) {
            throw ValidationError("\(name) cannot be combined with --cases; put it in the case file")
        }
    }
}
