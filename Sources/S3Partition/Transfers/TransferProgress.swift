import Synchronization

/// How far a transfer has come: bytes moved so far out of the total.
///
/// Reported through a ``TransferProgressHandler`` as bytes are sent or received. When a part is
/// retried, its bytes are taken back, so ``bytesTransferred`` can go down.
public struct TransferProgress: Sendable, Hashable, CustomStringConvertible {
    /// Bytes of the object sent or received so far.
    public var bytesTransferred: Int64
    /// The object's size, when known.
    public var totalBytes: Int64?

    /// Creates a progress value.
    /// - Parameters:
    ///   - bytesTransferred: Bytes moved so far.
    ///   - totalBytes: The object's size, when known.
    public init(bytesTransferred: Int64, totalBytes: Int64?) {
        self.bytesTransferred = bytesTransferred
        self.totalBytes = totalBytes
    }

    /// The fraction done, `0...1`, when the total is known (an empty object is complete).
    public var fractionCompleted: Double? {
        guard let totalBytes else { return nil }
        guard totalBytes > 0 else { return 1 }
        return min(max(Double(self.bytesTransferred) / Double(totalBytes), 0), 1)
    }

    /// For example `1048576/4194304 bytes`.
    public var description: String {
        "\(self.bytesTransferred)/\(self.totalBytes.map(String.init) ?? "?") bytes"
    }
}

/// Receives ``TransferProgress`` updates. Parts move in parallel, so it is called from several tasks at
/// once (and, for the ranges of a download, from the connections' event loops) and must be thread-safe;
/// it should return quickly.
public typealias TransferProgressHandler = @Sendable (TransferProgress) -> Void

/// Adds up the bytes of a transfer's parts and reports the sum.
final class ProgressTracker: Sendable {
    private let total: Atomic<Int64>
    private let done = Atomic<Int64>(0)
    private let handler: TransferProgressHandler?

    init(totalBytes: Int64?, handler: TransferProgressHandler?) {
        self.total = Atomic(totalBytes ?? -1)
        self.handler = handler
    }

    /// The object's size, once known.
    var totalBytes: Int64? {
        let value = self.total.load(ordering: .relaxed)
        return value < 0 ? nil : value
    }

    /// Sets the object's size (a download learns it from the first answer).
    func setTotal(_ bytes: Int64) {
        self.total.store(bytes, ordering: .relaxed)
    }

    /// Bytes reported so far.
    var bytesTransferred: Int64 { self.done.load(ordering: .relaxed) }

    /// Adds (or, negative, takes back) bytes and reports the new sum.
    func add(_ count: Int64) {
        guard count != 0 else { return }
        let sum = self.done.add(count, ordering: .relaxed).newValue
        self.handler?(TransferProgress(bytesTransferred: sum, totalBytes: self.totalBytes))
    }

    /// Reports the current sum (for the start and end of a transfer).
    func report() {
        self.handler?(TransferProgress(bytesTransferred: self.bytesTransferred, totalBytes: self.totalBytes))
    }
}

/// The bytes one attempt of a request added to a tracker, so that a failed attempt can take them back.
final class AttemptProgress: Sendable {
    private let tracker: ProgressTracker?
    private let counted = Atomic<Int64>(0)

    init(_ tracker: ProgressTracker?) {
        self.tracker = tracker
    }

    func add(_ count: Int) {
        guard let tracker, count != 0 else { return }
        self.counted.add(Int64(count), ordering: .relaxed)
        tracker.add(Int64(count))
    }

    /// Takes back everything this attempt reported.
    func rollBack() {
        let count = self.counted.exchange(0, ordering: .relaxed)
        self.tracker?.add(-count)
    }
}
