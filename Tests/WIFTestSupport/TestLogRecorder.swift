import Logging
import Synchronization

/// Collects log records in memory, so tests can check levels, metadata keys and that nothing secret
/// was logged.
public final class TestLogRecorder: Sendable {
    /// One log record, metadata flattened to text.
    public struct Record: Sendable {
        public var level: Logger.Level
        public var message: String
        public var metadata: [String: String]
    }

    private let storage = Mutex<[Record]>([])

    public init() {}

    /// Everything logged so far, in order.
    public var records: [Record] { self.storage.withLock { $0 } }

    /// A logger at trace level that records into this recorder.
    public var logger: Logger { self.logger(level: .trace) }

    /// A logger at `level` that records into this recorder.
    public func logger(level: Logger.Level, label: String = "test") -> Logger {
        var logger = Logger(label: label, factory: { _ in Handler(recorder: self) })
        logger.logLevel = level
        return logger
    }

    /// Every message and metadata value, for checking that nothing secret was logged.
    public var text: String {
        self.records.map { record in
            ([record.message] + record.metadata.map { "\($0.key)=\($0.value)" }).joined(separator: " ")
        }.joined(separator: "\n")
    }

    fileprivate func append(_ record: Record) {
        self.storage.withLock { $0.append(record) }
    }

    private struct Handler: LogHandler {
        let recorder: TestLogRecorder
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { self.metadata[key] }
            set { self.metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            var merged = self.metadata
            merged.merge(event.metadata ?? [:]) { $1 }
            self.recorder.append(
                Record(level: event.level, message: "\(event.message)", metadata: merged.mapValues { "\($0)" })
            )
        }
    }
}
