extension RefreshingCredentialProvider {
    /// When and how a ``RefreshingCredentialProvider`` refreshes.
    ///
    /// The defaults follow the cross-SDK refresh design: advisory window by credential lifetime,
    /// a 1-minute mandatory window, a 7-minute backoff after a recoverable failure and a 5-second cache
    /// of non-recoverable errors, with callers waiting for an advisory refresh.
    public struct Configuration: Sendable {
        /// A fixed advisory window: how long before expiry a refresh is attempted.
        ///
        /// `nil` (the default) picks it from the lifetime the credentials had when received: 5 minutes
        /// for lifetimes up to 20 minutes, 15 minutes below 90 minutes, 60 minutes otherwise. Must be at
        /// least ``mandatoryWindow``.
        public var advisoryWindow: Duration?
        /// How long before expiry a refresh becomes mandatory: even in
        /// ``Refresh/backgroundAdvisoryRefresh`` mode, callers then wait for it. Default 60 seconds.
        public var mandatoryWindow: Duration
        /// How long the source is left alone after a recoverable failure while cached credentials (even
        /// expired ones) are served. Default 420 seconds.
        public var refreshBackoff: Duration
        /// How long a non-recoverable error is raised again without contacting the source, so that a
        /// retry loop cannot hammer it. Default 5 seconds.
        public var nonRecoverableErrorCacheDuration: Duration
        /// Whether callers wait for an advisory refresh. Default ``Refresh/waitForAdvisoryRefresh``.
        public var refresh: Refresh

        /// Creates a configuration.
        /// - Parameters:
        ///   - advisoryWindow: A fixed advisory window; `nil` chooses it by credential lifetime.
        ///   - mandatoryWindow: How long before expiry a refresh becomes mandatory.
        ///   - refreshBackoff: How long to leave the source alone after a recoverable failure.
        ///   - nonRecoverableErrorCacheDuration: How long to re-raise a non-recoverable error.
        ///   - refresh: Whether callers wait for an advisory refresh.
        public init(
            advisoryWindow: Duration? = nil,
            mandatoryWindow: Duration = .seconds(60),
            refreshBackoff: Duration = .seconds(420),
            nonRecoverableErrorCacheDuration: Duration = .seconds(5),
            refresh: Refresh = .waitForAdvisoryRefresh
        ) {
            self.advisoryWindow = advisoryWindow
            self.mandatoryWindow = mandatoryWindow
            self.refreshBackoff = refreshBackoff
            self.nonRecoverableErrorCacheDuration = nonRecoverableErrorCacheDuration
            self.refresh = refresh
        }

        /// Checks the bounds of every setting.
        /// - Throws: ``WIFCredentialsError`` with code `invalidConfiguration` naming the setting and the
        ///   bound it breaks.
        public func validate() throws {
            if let error = self.validationError() { throw error }
        }

        /// The first bound a setting breaks, if any.
        func validationError() -> WIFCredentialsError? {
            for (name, value) in [
                ("mandatoryWindow", self.mandatoryWindow),
                ("refreshBackoff", self.refreshBackoff),
                ("nonRecoverableErrorCacheDuration", self.nonRecoverableErrorCacheDuration),
            ] where value < .zero {
                return .invalidConfiguration(
                    "RefreshingCredentialProvider.Configuration.\(name) is \(value), but must not be negative"
                )
            }
            if let advisoryWindow, advisoryWindow < self.mandatoryWindow {
                return .invalidConfiguration(
                    "RefreshingCredentialProvider.Configuration.advisoryWindow is \(advisoryWindow), but must be "
                        + "at least the mandatoryWindow (\(self.mandatoryWindow))"
                )
            }
            return nil
        }

        /// The settings of the state machine, in seconds.
        var settings: CredentialRefreshSettings {
            .init(
                advisoryWindowOverride: self.advisoryWindow.map(Self.seconds),
                mandatoryWindow: Self.seconds(self.mandatoryWindow),
                refreshBackoff: Self.seconds(self.refreshBackoff),
                nonRecoverableErrorTTL: Self.seconds(self.nonRecoverableErrorCacheDuration),
                backgroundAdvisoryRefresh: self.refresh == .backgroundAdvisoryRefresh
            )
        }

        private static func seconds(_ duration: Duration) -> Double {
            let components = duration.components
            return Double(components.seconds) + Double(components.attoseconds) / 1e18
        }
    }
}

extension RefreshingCredentialProvider.Configuration {
    /// Whether callers wait for a refresh in the advisory window. Open-ended: modes may be added.
    public struct Refresh: Sendable, Hashable, CustomStringConvertible {
        enum Base: String, Sendable, Hashable {
            case waitForAdvisoryRefresh
            case backgroundAdvisoryRefresh
        }

        let base: Base

        /// Callers in the advisory window wait for the refresh and get the new credentials (or the
        /// cached ones if it fails recoverably). The default.
        public static let waitForAdvisoryRefresh = Refresh(base: .waitForAdvisoryRefresh)

        /// Callers in the advisory window get the still-valid cached credentials at once while one
        /// refresh runs in the background; nobody waits on the source until the mandatory window, an
        /// invalidation, or when nothing is cached.
        public static let backgroundAdvisoryRefresh = Refresh(base: .backgroundAdvisoryRefresh)

        /// The mode's name, such as `backgroundAdvisoryRefresh`.
        public var description: String { self.base.rawValue }
    }
}
