import Benchmark
import Foundation
import Synchronization
import WIFCredentials
import WIFLocal

// getCredentials latency as seen by callers signing requests: with valid cached credentials, and
// inside the advisory window with background refresh on (callers keep the cached credentials while a
// refresh runs); and an identity pool's provider with cached credentials, whose first credentials come
// from the local stack's Cognito Identity. Each measured iteration makes 1,000 calls (scaling factor .kilo).

/// Starts a local stack on a free loopback port for the rest of the process and returns its address.
func startLocalStack() async throws -> String {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wif-bench-\(UUID().uuidString)").path
    var configuration = LocalConfiguration.default(dataDirectory: directory)
    configuration.port = 0
    let (addresses, continuation) = AsyncStream<String>.makeStream()
    Task.detached {
        do {
            try await LocalStack.run(configuration) { endpoint in
                continuation.yield(endpoint.url)
                // The benchmark process ends long before this.
                try await Task.sleep(for: .seconds(86_400))
            }
        } catch {
            continuation.finish()
        }
    }
    for await address in addresses { return address }
    throw CancellationError()
}

/// A clock the benchmark sets by hand; sleeping returns at once.
final class BenchClock: Sendable {
    let now = Mutex(Date(timeIntervalSince1970: 1_700_000_000))
    var timeSource: TimeSource {
        TimeSource(now: { self.now.withLock { $0 } }, sleep: { _ in await Task.yield() })
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput],
        scalingFactor: .kilo,
        maxDuration: .seconds(3),
        maxIterations: 1_000_000
    )

    Benchmark("getCredentials, valid cached credentials") { (benchmark: Benchmark, provider: RefreshingCredentialProvider) in
        for _ in benchmark.scaledIterations {
            blackHole(try await provider.getCredentials())
        }
    } setup: {
        let clock = BenchClock()
        let start = clock.now.withLock { $0 }
        let provider = RefreshingCredentialProvider(timeSource: clock.timeSource) { _ in
            AWSCredentials(accessKeyId: "ASIA1", secretAccessKey: "s", sessionToken: "t", expiration: start.addingTimeInterval(6 * 3600))
        }
        _ = try await provider.getCredentials()
        return provider
    }

    Benchmark("getCredentials, advisory window, background refresh") { (benchmark: Benchmark, provider: RefreshingCredentialProvider) in
        for _ in benchmark.scaledIterations {
            blackHole(try await provider.getCredentials())
        }
    } setup: {
        let clock = BenchClock()
        let start = clock.now.withLock { $0 }
        // Every credential the source hands out lives one hour, so after the first fetch the clock is
        // moved 50 minutes on: inside the 60-minute advisory window, outside the mandatory one.
        let provider = RefreshingCredentialProvider(
            configuration: .init(refresh: .backgroundAdvisoryRefresh),
            timeSource: clock.timeSource
        ) { _ in
            AWSCredentials(accessKeyId: "ASIA1", secretAccessKey: "s", sessionToken: "t", expiration: start.addingTimeInterval(3600))
        }
        _ = try await provider.getCredentials()
        clock.now.withLock { $0 = start.addingTimeInterval(50 * 60) }
        return provider
    }

    Benchmark("IdentityPoolCredentialProvider.getCredentials, cached (guest)") {
        (benchmark: Benchmark, provider: IdentityPoolCredentialProvider) in
        for _ in benchmark.scaledIterations {
            blackHole(try await provider.getCredentials())
        }
    } setup: {
        let address = try await startLocalStack()
        let provider = try IdentityPoolCredentialProvider(
            configuration: .init(identityPoolId: "us-east-1:00000000-0000-4000-8000-000000000001", endpoint: address, stsEndpoint: address),
            environment: [:])
        _ = try await provider.getCredentials()
        return provider
    }
}
