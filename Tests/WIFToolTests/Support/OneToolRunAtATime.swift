import Testing

/// Lets one test of the tool run at a time, across every suite that carries the trait.
///
/// These tests start `wif-tool` and wait for it synchronously, which holds a thread of Swift's
/// cooperative pool for the whole run; a two-core machine has two. Two such tests at once left the
/// in-process stacks of other suites without a thread, and their clients timed out. A test waiting for
/// its turn here suspends without holding a thread. A time limit of such a test counts the wait for its
/// turn too, so theirs are generous (ten minutes); the Ceph RGW suite, whose tests wait mostly on the
/// gateway, keeps its own limits and is not in the queue.
struct OneToolRunAtATime: SuiteTrait, TestTrait, TestScoping {
    /// Applies to every test of a suite, each test case on its own.
    var isRecursive: Bool { true }

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        await ToolRunGate.shared.enter()
        do {
            try await function()
        } catch {
            await ToolRunGate.shared.leave()
            throw error
        }
        await ToolRunGate.shared.leave()
    }
}

extension Trait where Self == OneToolRunAtATime {
    /// One test that waits on `wif-tool` at a time.
    static var oneToolRunAtATime: Self { Self() }
}

/// The turn of the tests that wait on the tool: first come, first served.
actor ToolRunGate {
    static let shared = ToolRunGate()

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
