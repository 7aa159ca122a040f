import Foundation
import S3Partition
import WIFFileStore
import WIFFoundation
import WIFLocal
import WIFTerminal

/// Runs a file-store command body, turning library errors into one-line messages with the documented
/// exit status.
func reportingStoreErrors(_ body: () async throws -> Void) async throws {
    try await reportingErrors {
        do {
            try await body()
        } catch let error as S3Error {
            throw CommandFailure(status: ExitStatus.classify(s3: error), message: ExitStatus.message(s3: error))
        } catch let error as LocalStackError {
            throw CommandFailure(status: .failure, message: "local stack: \(error)")
        }
    }
}

extension CommandFailure {
    /// A file-store error with the exit status that fits it.
    init(_ error: FileStoreError) {
        self.init(status: ExitStatus.classify(fileStore: error), message: error.message)
    }
}

extension ExitStatus {
    /// The exit status that fits a file-store error.
    static func classify(fileStore error: FileStoreError) -> ExitStatus {
        switch error.code {
        case .invalidSetting: return .usage
        case .signInRequired, .invalidToken, .keyUnavailable: return .auth
        case .storeDamaged: return .store
        case .fileError: return .io
        case .noSuchFile: return .notFound
        case .unreachable: return .network
        case .folderRefused: return error.s3Error.map { Self.classify(s3: $0) } ?? .usage
        case .credentials: return error.credentialsError.map { Self.classify($0) } ?? .failure
        default: return .failure
        }
    }

    /// The exit status that fits an S3Partition error.
    static func classify(s3 error: S3Error) -> ExitStatus {
        switch error.code {
        case .invalidObjectName, .invalidUserId, .invalidPrefixTemplate, .invalidConfiguration, .invalidBucketName,
            .keyTooLong, .invalidArgument:
            return .usage
        case .accessDenied, .preflightDenied:
            return .denied
        case .noSuchKey, .noSuchBucket, .notFound:
            return .notFound
        case .invalidAccessKeyId, .expiredToken, .invalidToken, .signatureDoesNotMatch:
            return .auth
        case .credentialsUnavailable:
            return error.credentialsError.map { ExitStatus.classify($0) } ?? .auth
        case .fileError:
            return .io
        default:
            return .network
        }
    }

    /// The message for an S3Partition error: the refused name's rule, the credential problem, or S3's
    /// code and message with the request id.
    static func message(s3 error: S3Error) -> String {
        switch error.code {
        case .invalidObjectName, .invalidUserId, .invalidPrefixTemplate, .fileError, .invalidConfiguration:
            return error.message
        case .credentialsUnavailable:
            return error.credentialsError?.reason ?? error.message
        default:
            let text = error.description
            return text.hasPrefix("S3Error.") ? String(text.dropFirst("S3Error.".count)) : text
        }
    }
}

extension SecretStore.Interaction {
    /// A passphrase asked on the terminal with echo off (when standard input is one), notices on
    /// standard error.
    static var terminal: Self {
        Self(
            askPassphrase: { question in
                switch question {
                case .existing(let file): return try PassphrasePrompt.ask(("Passphrase for \(file.path): " as TerminalText).description)
                case .new(let file): return try PassphrasePrompt.askNew(for: file.path)
                }
            },
            notice: { notice in printError("note: \(notice)\n") })
    }
}

extension SignIn {
    /// ``SignIn/token(fromFile:)`` with the tool's exit status.
    static func readTokenFile(_ path: String) throws(CommandFailure) -> String {
        do {
            return try Self.token(fromFile: path)
        } catch {
            throw CommandFailure(error)
        }
    }

    /// A token given on the command line, trimmed; `-` reads it from standard input.
    /// - Parameters:
    ///   - value: The option's value.
    ///   - option: The option's name, for the message when standard input holds nothing.
    static func readToken(_ value: String, option: String) throws(CommandFailure) -> String {
        guard value == "-" else { return value.trimming(.whitespacesAndNewlines) }
        let data: [UInt8]
        do throws(FileContents.Failure) {
            data = try FileContents.readStandardInput(limit: SignIn.maximumTokenInputSize)
        } catch {
            throw CommandFailure(status: .io, message: "\(option) -: cannot read standard input: \(error.reason)")
        }
        let text = String(decoding: data, as: UTF8.self).trimming(.whitespacesAndNewlines)
        guard !text.isEmpty else { throw CommandFailure(status: .usage, message: "\(option) - read nothing from standard input") }
        return text
    }
}
