/// An error raised while building, signing or presigning a request.
///
/// Errors compare equal by ``code`` alone, so tests can build the expected error with a static
/// factory and compare. The ``reason`` says in words what went wrong and never contains a secret.
public struct SigV4Error: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is. Open-ended: new codes may be added.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        enum Base: String, Sendable, Hashable {
            case signing
        }

        let base: Base

        /// A request could not be signed: a URL without a host, an empty method, a signed header
        /// missing from the request, a date outside 1970–9999, a presigned URL signed twice.
        public static let signing = Code(base: .signing)

        public var description: String { self.base.rawValue }
    }

    /// What kind of failure this is.
    public let code: Code
    /// What went wrong, in words; never a secret.
    public let reason: String
    /// The file that raised the error.
    public let file: String
    /// The line that raised the error.
    public let line: UInt

    /// Creates an error.
    /// - Parameters:
    ///   - code: The kind of failure.
    ///   - reason: What went wrong, without secrets.
    ///   - file: Where it was raised.
    ///   - line: Where it was raised.
    public init(code: Code, reason: String, file: String = #fileID, line: UInt = #line) {
        self.code = code
        self.reason = reason
        self.file = file
        self.line = line
    }

    /// A request could not be signed; `reason` says why.
    public static func signing(_ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .signing, reason: reason, file: file, line: line)
    }

    /// `SigV4Error.signing: reason`.
    public var description: String { "SigV4Error.\(self.code): \(self.reason)" }

    /// Errors are equal when their codes are.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }

    /// Hashes the code.
    public func hash(into hasher: inout Hasher) { hasher.combine(self.code) }
}
