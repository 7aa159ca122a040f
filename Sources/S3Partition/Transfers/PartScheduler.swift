/// How an object splits into parts: a multipart upload's parts, or a download's ranges.
struct PartPlan: Sendable, Hashable {
    /// The object's size.
    let objectSize: Int64
    /// Bytes per part; the last part may be shorter.
    let partSize: Int64
    /// The offset of part 1; a download's first part comes from its initial request.
    let startOffset: Int64

    init(objectSize: Int64, partSize: Int64, startOffset: Int64 = 0) {
        precondition(partSize > 0, "part size must be positive")
        self.objectSize = objectSize
        self.partSize = partSize
        self.startOffset = min(startOffset, objectSize)
    }

    /// How many parts there are; 0 when nothing is left after the start offset.
    var partCount: Int {
        let remaining = self.objectSize - self.startOffset
        return Int((remaining + self.partSize - 1) / self.partSize)
    }

    /// Where part `number` (1-based) starts and how long it is.
    func range(ofPart number: Int) -> (offset: Int64, length: Int64) {
        let offset = self.startOffset + Int64(number - 1) * self.partSize
        return (offset, min(self.partSize, self.objectSize - offset))
    }
}

/// Runs a fixed number of parts with bounded concurrency: which part to start next, when to wait,
/// when everything is done, and when to give up.
///
/// A value type with no I/O; the transfer loops feed it results and do what it returns. After the
/// first failure it starts nothing more and waits only for parts already running, then fails.
struct PartScheduler<PartResult: Sendable>: Sendable {
    /// What the transfer loop should do next.
    enum Action {
        /// Start part `number` (1-based).
        case start(Int)
        /// Wait for a running part to finish.
        case wait
        /// Every part succeeded: their results, in part order.
        case finished([PartResult])
        /// A part failed and nothing is running any more: report this error.
        case fail(any Error)
    }

    let partCount: Int
    let concurrency: Int
    private var nextPart = 1
    private var running = 0
    private var results: [PartResult?]
    private var failure: (any Error)?

    init(partCount: Int, concurrency: Int) {
        precondition(concurrency > 0, "concurrency must be positive")
        self.partCount = partCount
        self.concurrency = concurrency
        self.results = Array(repeating: nil, count: partCount)
    }

    /// The next thing to do.
    mutating func next() -> Action {
        if let failure {
            return self.running > 0 ? .wait : .fail(failure)
        }
        if self.nextPart <= self.partCount && self.running < self.concurrency {
            defer { self.nextPart += 1 }
            self.running += 1
            return .start(self.nextPart)
        }
        if self.running > 0 { return .wait }
        return .finished(self.results.compactMap { $0 })
    }

    /// Records a part's success.
    mutating func succeeded(part number: Int, _ result: PartResult) {
        self.running -= 1
        self.results[number - 1] = result
    }

    /// Records a part's failure; the first failure is the one reported.
    mutating func failed(_ error: any Error) {
        self.running -= 1
        if self.failure == nil || (self.failure is CancellationError && !(error is CancellationError)) {
            self.failure = error
        }
    }

    /// Whether a failure has been recorded (running parts should be cancelled).
    var hasFailed: Bool { self.failure != nil }
}

extension PartScheduler {
    /// Runs every part through `work` in a task group, as the scheduler directs.
    /// - Returns: The parts' results in order.
    /// - Throws: The first part's error, once every running part has stopped.
    static func run(
        partCount: Int, concurrency: Int, _ work: @escaping @Sendable (Int) async throws -> PartResult
    ) async throws -> [PartResult] {
        try await withThrowingTaskGroup(of: (Int, Result<PartResult, any Error>).self) { group in
            var scheduler = PartScheduler(partCount: partCount, concurrency: concurrency)
            while true {
                switch scheduler.next() {
                case .start(let number):
                    group.addTask {
                        do {
                            return (number, .success(try await work(number)))
                        } catch {
                            return (number, .failure(error))
                        }
                    }
                case .wait:
                    guard let (number, result) = try await group.next() else {
                        // The scheduler only waits while parts run, so the group cannot be empty here.
                        throw S3Error(code: .invalidArgument, message: "the part scheduler waited with no part running")
                    }
                    switch result {
                    case .success(let value):
                        scheduler.succeeded(part: number, value)
                    case .failure(let error):
                        let first = !scheduler.hasFailed
                        scheduler.failed(error)
                        if first { group.cancelAll() }
                    }
                case .finished(let results):
                    return results
                case .fail(let error):
                    throw error
                }
            }
        }
    }
}
