import ArgumentParser
import Foundation
import WIFCredentials
import WIFFileStore
import WIFTerminal

/// The documented exit codes of `wif-tool`.
enum ExitStatus: Int32 {
    case success = 0
    case failure = 1
    /// `policy prove-isolation` could neither prove isolation nor find a counterexample.
    case undecided = 2
    case auth = 3
    case denied = 4
    case notFound = 5
    case io = 6
    case network = 7
    /// The encrypted store is damaged, truncated, altered, not a store, or from a newer wif-tool.
    case store = 8
    case usage = 64

    var exitCode: ExitCode { ExitCode(self.rawValue) }
}

/// An error a command reports as one line on standard error with a chosen exit status.
struct CommandFailure: Error, CustomStringConvertible {
    var status: ExitStatus
    var message: String

    var description: String { self.message }
}

extension ExitStatus {
    /// The exit status that fits an error raised by the libraries.
    static func classify(_ error: any Error) -> ExitStatus {
        if let failure = error as? CommandFailure { return failure.status }
        if error is SigV4Error { return .usage }
        if let error = error as? FileStoreError { return Self.classify(fileStore: error) }
        guard let error = error as? WIFCredentialsError else { return .failure }
        // A refused or expired token or sign-in, whatever the engine calls it.
        if SignIn.refusesIdentity(error) { return .auth }
        switch error.code {
        case .invalidParameter, .invalidConfiguration, .signing: return .usage
        case .network, .malformedResponse: return .network
        case .profileParse: return .io
        case .service:
            switch error.serviceError?.code {
            case "AccessDenied", "AccessDeniedException": return .denied
            // A parameter the command was given, such as a duration longer than the role allows.
            case "ValidationError": return .usage
            case "NoSuchKey", "NoSuchBucket", "NotFound": return .notFound
            default: return .network
            }
        default: return .failure
        }
    }
}

/// Runs a command body, turning any error into one `error:` line on standard error and the matching
/// exit status, so no command ends with a stack of Swift error text.
func reportingErrors(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let exit as ExitCode {
        throw exit
    } catch {
        let message: String
        if let error = error as? WIFCredentialsError {
            message = error.reason
        } else if let error = error as? SigV4Error {
            message = error.reason
        } else {
            message = String(describing: error)
        }
        // Messages may list problems one a line; everything else in them is escaped.
        printError("error: \(TerminalText.lines(of: message))\n")
        throw ExitStatus.classify(error).exitCode
    }
}

/// Writes text for a person to standard output; its interpolated values are escaped.
func printOut(_ text: TerminalText) {
    FileHandle.standardOutput.write(Data(text.description.utf8))
}

/// Writes text for a person to standard error; its interpolated values are escaped.
func printError(_ text: TerminalText) {
    FileHandle.standardError.write(Data(text.description.utf8))
}

/// Writes text exactly as given to standard output: JSON, tokens, URLs and bodies that programs read.
func printRaw(_ text: String) {
    FileHandle.standardOutput.write(Data(text.utf8))
}

/// Prints a value as one line of JSON: sorted keys, ISO 8601 dates.
func printJSON(_ value: some Encodable) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    encoder.dateEncodingStrategy = .iso8601
    printRaw(String(decoding: try encoder.encode(value), as: UTF8.self) + "\n")
}
