import Testing
import WIFFoundation

@Suite("Refresh promise and driver")
struct RefreshPromiseTests {
    struct Failure: Error, Equatable {}

    @Test func everyWaiterAndLaterCallerGetsTheFirstResult() async throws {
        let promise = RefreshPromise<Int>()
        let waiters = (0..<10).map { _ in Task { try await promise.value() } }
        while promise.waiterCount < 10 { await Task.yield() }
        promise.complete(with: .success(7))
        promise.complete(with: .success(8))
        for waiter in waiters { #expect(try await waiter.value == 7) }
        #expect(try await promise.value() == 7)
        #expect(promise.isCompleted)
        #expect(promise.waiterCount == 0)
    }

    @Test func aCancelledWaiterLeavesAtOnceAndTheOthersStillGetTheResult() async throws {
        let promise = RefreshPromise<String>()
        let leaving = Task { try await promise.value() }
        let staying = Task { try await promise.value() }
        while promise.waiterCount < 2 { await Task.yield() }
        leaving.cancel()
        await #expect(throws: CancellationError.self) { try await leaving.value }
        #expect(promise.waiterCount == 1)
        promise.complete(with: .failure(Failure()))
        await #expect(throws: Failure.self) { try await staying.value }
    }

    @Test func theDriverRunsOneRefreshAndCancellationReachesIt() async throws {
        var driver = RefreshDriver<Int>()
        #expect(!driver.isRefreshing)
        let promise = RefreshPromise<Int>()
        driver.start(
            promise,
            running: Task {
                do {
                    try await Task.sleep(for: .seconds(600))
                    promise.complete(with: .success(1))
                } catch {
                    promise.complete(with: .failure(error))
                }
            })
        #expect(driver.isRefreshing)
        #expect(driver.promise === promise)
        driver.cancel()
        await driver.wait()
        await #expect(throws: CancellationError.self) { try await promise.value() }
        driver.complete(promise, with: .success(2))
        #expect(!driver.isRefreshing)
        // The first outcome stands.
        await #expect(throws: CancellationError.self) { try await promise.value() }
    }
}
