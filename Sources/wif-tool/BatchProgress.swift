import Synchronization
import WIFTerminal

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
