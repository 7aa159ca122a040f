import Testing

/// Lets one test at a time run among those that carry the trait, across every suite and test target of
/// the test process.
///
/// The tests of `wif-tool` start it and wait for it synchronously, which holds a thread of Swift's
/// cooperative pool for the whole run; a two-core machine has two. Two such tests at once left the
/// in-process servers of other suites without a thread, and their clients timed out. The live tests of
/// the sample server, whose in-process servers must answer within the test client's time-out, take the
/// same turns, so no tool run holds a thread while they run. A test waiting for its turn suspends without
/// holding a thread. A time limit of such a test counts the wait for its turn too, so theirs are generous
/// (ten minutes).
public struct OneToolRunAtATime: SuiteTrait, TestTrait, TestScoping {
    /// Applies to every test of a suite, each test case on its own.
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        await TestTurns.shared.enter()
        do {
            try await function()
        } catch {
            await TestTurns.shared.leave()
            throw error
        }
        await TestTurns.shared.leave()
    }
}

extension Trait where Self == OneToolRunAtATime {
    /// One test that waits on `wif-tool` at a time.
    public static var oneToolRunAtATime: Self { Self() }

    /// Runs when no test of `wif-tool` holds a thread: for tests whose in-process servers need one.
    public static var takesTurnsWithToolRuns: Self { Self() }
}

/// The turns, first come, first served.
actor TestTurns {
    static let shared = TestTurns()

    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func enter() async {
        guard self.busy else {
            self.busy = true
            return
        }
        await withCheckedContinuation { self.waiting.append($0) }
    }

    func leave() {
        if self.waiting.isEmpty {
            self.busy = false
        } else {
            self.waiting.removeFirst().resume()
        }
    }
}
