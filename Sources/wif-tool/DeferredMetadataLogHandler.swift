import Logging

/// swift-log's standard-error handler, with metadata formatted only when a line is written.
///
/// `StreamLogHandler` formats all of its metadata again each time one key is set, and a server sets a
/// request id on its logger for every request, most of which log nothing at the level in force. This
/// handler keeps the metadata as it is set and hands it to a `StreamLogHandler` for each line it writes,
/// so the lines are the same and an unlogged request costs no formatting.
struct DeferredMetadataLogHandler: LogHandler {
    private var stream: StreamLogHandler
    var metadata: Logger.Metadata = [:]

    /// A handler writing to standard error.
    /// - Parameter label: The logger's label.
    init(label: String) {
        self.stream = StreamLogHandler.standardError(label: label)
    }

    var logLevel: Logger.Level {
        get { self.stream.logLevel }
        set { self.stream.logLevel = newValue }
    }

    var metadataProvider: Logger.MetadataProvider? {
        get { self.stream.metadataProvider }
        set { self.stream.metadataProvider = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { self.metadata[key] }
        set { self.metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var stream = self.stream
        if !self.metadata.isEmpty { stream.metadata = self.metadata }
        stream.log(event: event)
    }
}
