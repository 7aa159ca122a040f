import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Asks for a passphrase on the terminal with echo turned off (termios), the prompt on standard error so
/// standard output stays clean for `--json` and `credential_process`.
enum PassphrasePrompt {
    /// The longest passphrase read; the rest of a longer line is refused.
    static let maximumLength = 1024

    /// Whether standard input is a terminal, so a prompt can be answered.
    static var canAsk: Bool { isatty(STDIN_FILENO) == 1 }

    /// Asks once.
    /// - Parameter prompt: What to show, such as `Passphrase for ~/.wif/secrets.enc: `.
    /// - Returns: The line typed, without its line break; `nil` when standard input is not a terminal.
    /// - Throws: `CommandFailure` (usage) when the input ends before a line or is too long.
    static func ask(_ prompt: String) throws(CommandFailure) -> String? {
        guard Self.canAsk else { return nil }
        FileHandle.standardError.write(Data(prompt.utf8))
        var original = termios()
        let hasTerminalSettings = tcgetattr(STDIN_FILENO, &original) == 0
        if hasTerminalSettings {
            var silent = original
            silent.c_lflag &= ~tcflag_t(ECHO)
            Self.restoreOnInterrupt(original)
            _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent)
        }
        defer {
            if hasTerminalSettings {
                var restored = original
                _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &restored)
                Self.stopRestoringOnInterrupt()
            }
            // The user's Enter was not echoed: end the prompt's line ourselves.
            FileHandle.standardError.write(Data("\n".utf8))
        }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = read(STDIN_FILENO, &byte, 1)
            if count < 0, errno == EINTR { continue }
            guard count == 1 else {
                throw CommandFailure(status: .usage, message: "no passphrase was entered")
            }
            if byte == UInt8(ascii: "\n") { break }
            if byte == UInt8(ascii: "\r") { continue }
            bytes.append(byte)
            guard bytes.count <= Self.maximumLength else {
                throw CommandFailure(status: .usage, message: "the passphrase is longer than \(Self.maximumLength) bytes")
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Asks for a new passphrase twice and checks that both match.
    /// - Parameter store: The store the passphrase is for, named in the prompt.
    /// - Returns: The passphrase, or `nil` when standard input is not a terminal.
    /// - Throws: `CommandFailure` (usage) when it is empty or the two differ.
    static func askNew(for store: String) throws(CommandFailure) -> String? {
        guard let first = try Self.ask("New passphrase for \(store): ") else { return nil }
        guard !first.isEmpty else {
            throw CommandFailure(status: .usage, message: "the passphrase must not be empty")
        }
        guard let second = try Self.ask("Repeat the passphrase: "), second == first else {
            throw CommandFailure(status: .usage, message: "the two passphrases differ; nothing was changed")
        }
        return first
    }

    // MARK: Restoring echo when interrupted

    /// The terminal settings to put back if Control-C arrives while echo is off.
    nonisolated(unsafe) private static var savedSettings = termios()

    private static func restoreOnInterrupt(_ settings: termios) {
        Self.savedSettings = settings
        signal(SIGINT) { number in
            _ = tcsetattr(STDIN_FILENO, TCSANOW, &PassphrasePrompt.savedSettings)
            signal(number, SIG_DFL)
            raise(number)
        }
    }

    private static func stopRestoringOnInterrupt() {
        signal(SIGINT, SIG_DFL)
    }
}
