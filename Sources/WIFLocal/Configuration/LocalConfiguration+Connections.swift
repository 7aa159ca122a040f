extension LocalConfiguration {
    /// Limits on the stack's HTTP connections, so that idle clients cannot hold the server's sockets
    /// and file descriptors forever.
    ///
    /// In configuration files: `"connections": {"idleTimeout": 60, "maximum": 256}` (seconds and a
    /// count), each optional.
    public struct Connections: Sendable, Hashable {
        /// How long a connection may stay open with no request in progress before the server closes
        /// it; 60 seconds by default, 1 second to 1 hour in configuration files.
        public var idleTimeout: Duration
        /// The most connections served at once; 256 by default. Further clients wait in the listen
        /// backlog until a connection closes.
        public var maximum: Int

        /// Creates the limits.
        /// - Parameters:
        ///   - idleTimeout: How long an idle connection stays open.
        ///   - maximum: The most connections at once.
        public init(idleTimeout: Duration = .seconds(60), maximum: Int = 256) {
            self.idleTimeout = idleTimeout
            self.maximum = maximum
        }

        /// The names of the settings, as in configuration files.
        static let names = ["idleTimeout", "maximum"]

        /// The largest ``maximum``.
        static let maximumRange = 1...65_536
    }

    /// Checks the connection limits.
    func checkConnections(into problems: inout [String]) {
        if self.connections.idleTimeout <= .zero || self.connections.idleTimeout > .seconds(3600) {
            problems.append("connections.idleTimeout: must be more than 0 and at most 3600 seconds, not \(self.connections.idleTimeout)")
        }
        if !Connections.maximumRange.contains(self.connections.maximum) {
            problems.append(
                "connections.maximum: must be \(Connections.maximumRange.lowerBound) to \(Connections.maximumRange.upperBound), not \(self.connections.maximum)")
        }
    }

    /// The `connections` member of ``fileRepresentation()``; the time-out in whole seconds, at least one.
    func connectionsFileField() -> String {
        let seconds = max(1, self.connections.idleTimeout.components.seconds)
        return "\"connections\": {\"idleTimeout\": \(seconds), \"maximum\": \(self.connections.maximum)}"
    }
}

extension ConfigurationFileReader {
    /// Reads `connections`.
    mutating func readConnections(_ node: ConfigurationJSON?, into configuration: inout LocalConfiguration) {
        guard let node, let members = self.object(node, path: "connections", keys: LocalConfiguration.Connections.names) else { return }
        for (key, node) in members {
            guard let value = self.int(node, path: "connections.\(key)") else { continue }
            switch key {
            case "idleTimeout": configuration.connections.idleTimeout = .seconds(value)
            case "maximum": configuration.connections.maximum = value
            default: break
            }
        }
    }
}
