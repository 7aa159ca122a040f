import Synchronization
import Testing

@testable import S3Partition

@Suite("Part plans and the part scheduler")
struct PartSchedulerTests {
    @Test("a plan splits an object into parts, the last one shorter")
    func plans() {
        let plan = PartPlan(objectSize: 23, partSize: 10)
        #expect(plan.partCount == 3)
        #expect((1...3).map { plan.range(ofPart: $0).offset } == [0, 10, 20])
        #expect((1...3).map { plan.range(ofPart: $0).length } == [10, 10, 3])
        let rest = PartPlan(objectSize: 23, partSize: 10, startOffset: 10)
        #expect(rest.partCount == 2)
        #expect(rest.range(ofPart: 1) == (10, 10) as (Int64, Int64))
        #expect(rest.range(ofPart: 2).length == 3)
        #expect(PartPlan(objectSize: 20, partSize: 10).partCount == 2)
        #expect(PartPlan(objectSize: 10, partSize: 10, startOffset: 10).partCount == 0)
    }

    @Test("part sizes grow so that no object needs more than 10,000 parts")
    func partSizes() {
        let transfer = S3Client.Transfer(partSize: 16 * 1024 * 1024)
        #expect(transfer.partSize(forObjectOfSize: 1 << 30) == 16 * 1024 * 1024)
        let huge: Int64 = 5 * 1024 * 1024 * 1024 * 1024
        let size = transfer.partSize(forObjectOfSize: huge)
        #expect(PartPlan(objectSize: huge, partSize: Int64(size)).partCount <= 10_000)
    }

    @Test("the scheduler starts up to the concurrency, then one part per finished part, and finishes in part order")
    func scheduling() {
        var scheduler = PartScheduler<String>(partCount: 4, concurrency: 2)
        #expect(Self.describe(scheduler.next()) == "start 1")
        #expect(Self.describe(scheduler.next()) == "start 2")
        #expect(Self.describe(scheduler.next()) == "wait")
        scheduler.succeeded(part: 2, "two")
        #expect(Self.describe(scheduler.next()) == "start 3")
        #expect(Self.describe(scheduler.next()) == "wait")
        scheduler.succeeded(part: 1, "one")
        scheduler.succeeded(part: 3, "three")
        #expect(Self.describe(scheduler.next()) == "start 4")
        #expect(Self.describe(scheduler.next()) == "wait")
        scheduler.succeeded(part: 4, "four")
        #expect(Self.describe(scheduler.next()) == "finished one,two,three,four")
    }

    @Test("after a failure nothing new starts; running parts are awaited, then the first error is reported")
    func failure() {
        var scheduler = PartScheduler<Int>(partCount: 5, concurrency: 3)
        _ = scheduler.next()
        _ = scheduler.next()
        _ = scheduler.next()
        scheduler.failed(S3Error(code: .accessDenied))
        #expect(scheduler.hasFailed)
        #expect(Self.describe(scheduler.next()) == "wait")
        scheduler.failed(CancellationError())
        #expect(Self.describe(scheduler.next()) == "wait")
        scheduler.succeeded(part: 3, 3)
        #expect(Self.describe(scheduler.next()) == "fail AccessDenied")
    }

    @Test("a real error wins over the cancellations it causes")
    func cancellationDoesNotMask() {
        var scheduler = PartScheduler<Int>(partCount: 2, concurrency: 2)
        _ = scheduler.next()
        _ = scheduler.next()
        scheduler.failed(CancellationError())
        scheduler.failed(S3Error(code: .network))
        #expect(Self.describe(scheduler.next()) == "fail NetworkError")
    }

    @Test("an empty plan finishes at once")
    func empty() {
        var scheduler = PartScheduler<Int>(partCount: 0, concurrency: 4)
        #expect(Self.describe(scheduler.next()) == "finished ")
    }

    @Test("run keeps at most `concurrency` parts in flight and returns results in order")
    func run() async throws {
        let inFlight = Mutex((now: 0, peak: 0))
        let results = try await PartScheduler<Int>.run(partCount: 12, concurrency: 3) { number in
            inFlight.withLock { $0.now += 1; $0.peak = max($0.peak, $0.now) }
            try await Task.sleep(for: .milliseconds(number % 3))
            inFlight.withLock { $0.now -= 1 }
            return number * 10
        }
        #expect(results == (1...12).map { $0 * 10 })
        #expect(inFlight.withLock { $0.peak } <= 3)
    }

    @Test("run reports the first failure after cancelling the other parts")
    func runFailure() async throws {
        let started = Mutex(0)
        let error = await #expect(throws: S3Error.self) {
            _ = try await PartScheduler<Int>.run(partCount: 50, concurrency: 4) { number in
                started.withLock { $0 += 1 }
                if number == 2 { throw S3Error(code: .accessDenied) }
                try await Task.sleep(for: .seconds(30))
                return number
            }
        }
        #expect(error?.code == .accessDenied)
        #expect(started.withLock { $0 } < 50, "parts after the failure are not started")
    }

    static func describe(_ action: PartScheduler<String>.Action) -> String {
        switch action {
        case .start(let number): return "start \(number)"
        case .wait: return "wait"
        case .finished(let results): return "finished " + results.joined(separator: ",")
        case .fail(let error): return "fail \((error as? S3Error)?.code.rawValue ?? "\(error)")"
        }
    }

    static func describe(_ action: PartScheduler<Int>.Action) -> String {
        switch action {
        case .start(let number): return "start \(number)"
        case .wait: return "wait"
        case .finished(let results): return "finished " + results.map(String.init).joined(separator: ",")
        case .fail(let error): return "fail \((error as? S3Error)?.code.rawValue ?? "\(error)")"
        }
    }
}
