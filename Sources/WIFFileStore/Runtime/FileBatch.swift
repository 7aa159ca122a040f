import ArgumentParser
import Synchronization

/// Moves many files at once: up to `width` transfers run together, and each result is handed back in
/// the files' own order, so that output lines and JSON read the same whatever order they finished in.
///
/// The first failure cancels the transfers still running and is what the batch throws; files already
/// handed back stay transferred.
enum FileBatch {
    /// Files moving at once unless `--jobs` says otherwise: enough to keep a round trip's latency off
    /// small files, few enough that large ones (already split into parallel parts) share the pool.
    static let defaultWidth = 16
    /// The most `--jobs` accepts.
    static let maximumWidth = 64

    /// Checks a `--jobs` value.
    static func validate(jobs: Int) throws {
        guard (1...Self.maximumWidth).contains(jobs) else {
            throw ValidationError("--jobs is \(jobs); give 1 to \(Self.maximumWidth) files at once")
        }
    }

    /// Runs `transfer` for every item, up to `width` at once.
    /// - Parameters:
    ///   - items: What to transfer.
    ///   - width: How many transfers run at once; at least 1.
    ///   - transfer: One item's transfer, given the item's index.
    ///   - deliver: Called with each result in `items`' order, as soon as it and all before it are done.
    static func run<Item: Sendable, Output: Sendable>(
        _ items: [Item],
        width: Int,
        _ transfer: @escaping @Sendable (Int, Item) async throws -> Output,
        deliver: (Int, Output) throws -> Void
    ) async throws {
        try await withThrowingTaskGroup(of: (Int, Output).self) { group in
            var started = 0
            var delivered = 0
            var finished: [Int: Output] = [:]
            while started < min(max(1, width), items.count) {
                let index = started
                group.addTask { (index, try await transfer(index, items[index])) }
                started += 1
            }
            while let (index, output) = try await group.next() {
                finished[index] = output
                while let next = finished.removeValue(forKey: delivered) {
                    try deliver(delivered, next)
                    delivered += 1
                }
                if started < items.count {
                    let index = started
                    group.addTask { (index, try await transfer(index, items[index])) }
                    started += 1
                }
            }
        }
    }
}

/// One progress bar for a batch of files: the sum of every file's bytes so far.
final class BatchProgress: Sendable {
    private let bar: ProgressBar
    private let bytes: Mutex<(perFile: [Int: Int64], sum: Int64)>

    init(bar: ProgressBar) {
        self.bar = bar
        self.bytes = Mutex(([:], 0))
    }

    /// Records that file `index` has moved `transferred` bytes.
    func update(file index: Int, transferred: Int64) {
        let sum = self.bytes.withLock { state -> Int64 in
            state.sum += transferred - (state.perFile[index] ?? 0)
            state.perFile[index] = transferred
            return state.sum
        }
        self.bar.update(bytes: sum)
    }

    /// Wipes the bar so that a line can be printed in its place.
    func clearLine() { self.bar.clearLine() }

    func finish() { self.bar.finish() }
}
