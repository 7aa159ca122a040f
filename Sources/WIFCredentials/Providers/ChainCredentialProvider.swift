import Logging
import Synchronization

/// Tries providers in order and keeps to the first that supplies credentials.
///
/// The first call asks each provider in turn until one succeeds; from then on every call goes
/// straight to that provider, and its failures are reported as they are (falling back would silently
/// switch to another identity). When every provider fails, the error lists each one's reason.
///
/// ```swift
/// let provider: some CredentialProvider = .chain(.environment, .profile())
/// ```
public struct ChainCredentialProvider: CredentialProvider, CustomStringConvertible {
    /// The providers, in the order they are tried.
    public let providers: [any CredentialProvider]
    private let selection: Selection

    /// Creates a chain.
    /// - Parameter providers: The providers, in the order to try them.
    public init(_ providers: [any CredentialProvider]) {
        self.providers = providers
        self.selection = Selection()
    }

    /// The index in ``providers`` of the provider that supplied credentials, once one has.
    public var selectedIndex: Int? {
        self.selection.index.withLock { $0 }
    }

    /// Returns credentials from the remembered provider, or from the first provider that has them.
    /// - Parameter logger: Where to log.
    /// - Returns: The credentials.
    /// - Throws: The remembered provider's error once one has been chosen; before that,
    ///   ``WIFCredentialsError`` with code `noCredentials` listing each provider's reason, or
    ///   `CancellationError` when the task is cancelled.
    public func getCredentials(logger: Logger) async throws -> AWSCredentials {
        if let index = self.selectedIndex {
            return try await self.providers[index].getCredentials(logger: logger)
        }
        var reasons: [String] = []
        for (index, provider) in self.providers.enumerated() {
            try Task.checkCancellation()
            do {
                let credentials = try await provider.getCredentials(logger: logger)
                self.selection.index.withLock { selected in
                    if selected == nil { selected = index }
                }
                logger.debug("credential provider chosen", metadata: ["wif.provider": "\(Self.name(of: provider))"])
                return credentials
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                let reason = Self.reason(for: error)
                logger.debug(
                    "credential provider failed",
                    metadata: ["wif.provider": "\(Self.name(of: provider))", "wif.reason": "\(reason)"]
                )
                reasons.append("\(index + 1). \(Self.name(of: provider)): \(reason)")
            }
        }
        if reasons.isEmpty {
            throw WIFCredentialsError.noCredentials("the credential provider chain is empty")
        }
        throw WIFCredentialsError.noCredentials(
            "no provider in the chain supplied credentials: " + reasons.joined(separator: "; ")
        )
    }

    /// Forwards to the remembered provider, or to every provider when none has been chosen yet.
    /// - Parameter accessKeyId: The key id the service rejected.
    public func invalidate(accessKeyId: String) async {
        if let index = self.selectedIndex {
            await self.providers[index].invalidate(accessKeyId: accessKeyId)
            return
        }
        for provider in self.providers {
            await provider.invalidate(accessKeyId: accessKeyId)
        }
    }

    /// The chain's providers, by their own descriptions.
    public var description: String {
        "ChainCredentialProvider(\(self.providers.map(Self.name(of:)).joined(separator: ", ")))"
    }

    /// A provider's description when it has one (ours name no secrets), else its type.
    private static func name(of provider: any CredentialProvider) -> String {
        if let describable = provider as? any CustomStringConvertible { return describable.description }
        return String(describing: type(of: provider))
    }

    /// Our errors carry secret-free reasons; other errors are named by type only, since their text
    /// is not known to be free of secrets.
    private static func reason(for error: any Error) -> String {
        if let error = error as? WIFCredentialsError { return error.reason }
        return "failed with \(String(describing: type(of: error)))"
    }

    /// The remembered choice, shared by copies of the chain.
    private final class Selection: Sendable {
        let index = Mutex<Int?>(nil)
    }
}
