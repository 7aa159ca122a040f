import Foundation

extension SecretStore {
    /// The passphrase the store needs.
    public enum PassphraseQuestion: Sendable, Equatable {
        /// The passphrase of the existing store at this file.
        case existing(store: URL)
        /// A new passphrase for the store about to be created at this file, to be typed twice.
        case new(store: URL)
    }

    /// What the store asks of the person using it and tells them: a front end (a terminal, a dialog)
    /// supplies both; a library caller that has neither uses ``silent``.
    public struct Interaction: Sendable {
        /// Returns the passphrase asked for, or `nil` when nobody can be asked; it may throw to give up.
        public var askPassphrase: @Sendable (PassphraseQuestion) throws -> String?
        /// Shows a notice, such as that a new store is protected by file permissions only.
        public var notice: @Sendable (String) -> Void

        /// Creates an interaction.
        /// - Parameters:
        ///   - askPassphrase: Returns the passphrase asked for, or `nil` when nobody can be asked.
        ///   - notice: Shows a notice to the user.
        public init(
            askPassphrase: @escaping @Sendable (PassphraseQuestion) throws -> String?,
            notice: @escaping @Sendable (String) -> Void
        ) {
            self.askPassphrase = askPassphrase
            self.notice = notice
        }

        /// Asks nothing (a passphrase comes from `WIF_PASSPHRASE` or not at all) and says nothing.
        public static let silent = Interaction(askPassphrase: { _ in nil }, notice: { _ in })
    }
}
