import Foundation
import WIFFoundation

extension WebIdentityToken {
    /// The fewest bytes STS accepts as a `WebIdentityToken`.
    public static let minimumLength = 4
    /// The most bytes STS accepts as a `WebIdentityToken`.
    public static let maximumLength = 20_000

    /// Trims surrounding whitespace and newlines from token text, checks it against STS's bounds, and
    /// reads its `exp` claim when it is a JWT.
    /// - Parameters:
    ///   - text: The token as read from its origin.
    ///   - origin: Where the token came from, for error messages (for example
    ///     `web-identity token file '/var/run/token'`). Never the token itself.
    /// - Returns: The token, ready to send.
    /// - Throws: ``WIFCredentialsError`` with code `tokenUnavailable` naming `origin` and the problem.
    package static func validated(_ text: String, origin: String) throws(WIFCredentialsError) -> WebIdentityToken {
        let trimmed = text.trimming(.whitespacesAndNewlines)
        let length = trimmed.utf8.count
        if length == 0 {
            throw .tokenUnavailable("\(origin) is empty")
        }
        if length > Self.maximumLength {
            throw .tokenUnavailable(
                "\(origin) is \(length) bytes after trimming whitespace; STS accepts at most \(Self.maximumLength)"
            )
        }
        if length < Self.minimumLength {
            throw .tokenUnavailable(
                "\(origin) is \(length) bytes after trimming whitespace; STS requires at least \(Self.minimumLength)"
            )
        }
        // JWTs and provider access tokens are single words; a space or a line break inside means the
        // source holds something else (two tokens, a key=value file, a pasted HTTP header).
        if trimmed.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.properties.generalCategory == .control }) {
            throw .tokenUnavailable("\(origin) contains whitespace or control characters inside the token")
        }
        return WebIdentityToken(inspecting: trimmed)
    }
}
