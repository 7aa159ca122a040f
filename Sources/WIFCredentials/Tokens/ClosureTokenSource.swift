import Logging

/// A token source that asks the application for the token, for apps that sign their users in
/// themselves and hold the token in memory.
///
/// The closure is called on every ``token(forceRefresh:logger:)``; cache in the closure if fetching is
/// costly. Whatever it returns is trimmed and checked like any other token.
public struct ClosureTokenSource: WebIdentityTokenSource, CustomStringConvertible {
    private let body: @Sendable (Bool) async throws -> String

    /// Creates a source that calls `body`.
    /// - Parameter body: Returns the current token. Its argument is `forceRefresh`: `true` after STS
    ///   rejected the previous token, when the closure should fetch a fresh one rather than return a
    ///   cached one.
    public init(_ body: @escaping @Sendable (_ forceRefresh: Bool) async throws -> String) {
        self.body = body
    }

    /// Calls the closure and checks its answer.
    /// - Throws: ``WIFCredentialsError`` thrown by the closure unchanged; `CancellationError` unchanged;
    ///   any other error of the closure as `tokenUnavailable` quoting it; `tokenUnavailable` when the
    ///   returned token is empty, too long or contains whitespace.
    public func token(forceRefresh: Bool, logger: Logger) async throws -> WebIdentityToken {
        let text: String
        do {
            text = try await self.body(forceRefresh)
        } catch let error as WIFCredentialsError {
            throw error
        } catch let error as CancellationError {
            throw error
        } catch {
            throw WIFCredentialsError.tokenUnavailable("web-identity token closure failed: \(error)")
        }
        return try WebIdentityToken.validated(text, origin: "web-identity token returned by the closure")
    }

    /// The type name only; the closure and its tokens are not described.
    public var description: String { "ClosureTokenSource" }
}

extension WebIdentityTokenSource where Self == ClosureTokenSource {
    /// A source that calls `body` for each token.
    /// - Parameter body: Returns the current token; its argument is `forceRefresh`.
    /// - Returns: A ``ClosureTokenSource``.
    public static func closure(_ body: @escaping @Sendable (_ forceRefresh: Bool) async throws -> String) -> ClosureTokenSource {
        ClosureTokenSource(body)
    }
}
