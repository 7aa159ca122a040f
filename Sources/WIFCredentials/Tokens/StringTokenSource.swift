import Logging

/// A token source that always returns the same token, given in code.
///
/// Use it for a token obtained once (a test, a short-lived command-line run). The token is trimmed
/// and checked when the source is created; a bad token is reported by ``token(forceRefresh:logger:)``.
public struct StringTokenSource: WebIdentityTokenSource, CustomStringConvertible {
    private let result: Result<WebIdentityToken, WIFCredentialsError>

    /// Creates a source for a fixed token.
    /// - Parameter token: The token text; surrounding whitespace and newlines are removed, and the
    ///   `exp` claim is read (without verification) when it is a JWT.
    public init(_ token: String) {
        self.result = Result { () throws(WIFCredentialsError) in
            try WebIdentityToken.validated(token, origin: "web-identity token string")
        }
    }

    /// Returns the fixed token; `forceRefresh` changes nothing since there is nothing to re-read.
    /// - Throws: ``WIFCredentialsError`` with code `tokenUnavailable` when the token is empty, too
    ///   long or contains whitespace.
    public func token(forceRefresh: Bool, logger: Logger) async throws -> WebIdentityToken {
        try self.result.get()
    }

    /// The type name only; never the token.
    public var description: String { "StringTokenSource" }
}

extension WebIdentityTokenSource where Self == StringTokenSource {
    /// A source that always returns `token`.
    /// - Parameter token: The token text.
    /// - Returns: A ``StringTokenSource``.
    public static func string(_ token: String) -> StringTokenSource {
        StringTokenSource(token)
    }
}
