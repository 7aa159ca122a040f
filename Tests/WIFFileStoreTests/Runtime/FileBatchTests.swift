import Synchronization
import Testing
import WIFFileStore

/// A batch runs several transfers at once and hands results back in the files' own order.
@Suite struct FileBatchTests {
    @Test func resultsComeBackInOrderWhateverOrderTheyFinishIn() async throws {
        let running = Mutex((now: 0, most: 0))
        var delivered: [Int] = []
        try await FileBatch.run(Array(0..<12), width: 4) { index, item in
            running.withLock { $0.now += 1; $0.most = max($0.most, $0.now) }
            // Later items finish sooner.
            try await Task.sleep(for: .milliseconds(2 * (12 - item)))
            running.withLock { $0.now -= 1 }
            return item * 10
        } deliver: { index, output in
            #expect(output == index * 10)
            delivered.append(index)
        }
        #expect(delivered == Array(0..<12))
        #expect(running.withLock { $0.most } <= 4)
    }

    struct Refused: Error {}

    @Test func filesFinishedAfterAFailedOneAreStillReported() async throws {
        var delivered: [Int] = []
        await #expect(throws: Refused.self) {
            try await FileBatch.run(Array(0..<4), width: 4) { _, item in
                // 1 fails only once 2 and 3 are done, so they finish after a gap.
                if item == 1 {
                    try await Task.sleep(for: .milliseconds(200))
                    throw Refused()
                }
                return item
            } deliver: { index, output in
                #expect(output == index)
                delivered.append(index)
            }
        }
        #expect(delivered == [0, 2, 3])
    }

    @Test func theFirstFailureIsWhatTheBatchThrows() async throws {
        await #expect(throws: Refused.self) {
            try await FileBatch.run(Array(0..<5), width: 2) { _, item in
                if item == 3 { throw Refused() }
                return item
            } deliver: { _, _ in }
        }
    }

    @Test func smallFilesMoveWiderThanLargeOnesUnlessTold() {
        let small = FileBatch.smallFileSize
        #expect(FileBatch.width(forSizes: [Int64(4096), 0, small]) == FileBatch.smallFileWidth)
        #expect(FileBatch.width(forSizes: [Int64(4096), small + 1]) == FileBatch.defaultWidth)
        // A size not known in advance may be anything.
        #expect(FileBatch.width(forSizes: [Int64(4096), nil]) == FileBatch.defaultWidth)
        #expect(FileBatch.width(forSizes: [Int64?]()) == FileBatch.smallFileWidth)
        // So many small files in flight hold at most 1 MiB of their bytes, and --jobs could ask for as many.
        #expect(Int64(FileBatch.smallFileWidth) * small <= 1 << 20)
        #expect(FileBatch.smallFileWidth <= FileBatch.maximumWidth && FileBatch.defaultWidth < FileBatch.smallFileWidth)
    }
}
