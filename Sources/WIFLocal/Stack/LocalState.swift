import Foundation
import Logging
import WIFCredentials

/// What the stack's services share: the configuration, the data directory, the session codec, the clock
/// and the logger.
final class LocalState: Sendable {
    let configuration: LocalConfiguration
    let data: DataDirectory
    let sessions: SessionCodec
    let timeSource: TimeSource
    let logger: Logger

    init(configuration: LocalConfiguration, timeSource: TimeSource = .system, logger: Logger) throws(LocalStackError) {
        self.configuration = configuration
        self.data = try DataDirectory(root: configuration.dataDirectory)
        self.sessions = SessionCodec(key: try self.data.secret(named: "session.key"))
        self.timeSource = timeSource
        self.logger = logger
    }
}
