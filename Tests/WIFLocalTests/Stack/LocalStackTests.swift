import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import Synchronization
import Testing
import WIFCredentials
@testable import WIFLocal

/// Starting and stopping the stack: free ports, releasing them, keeping state across restarts.
@Suite struct LocalStackTests {
    @Test func twoStacksRunSideBySideOnTheirOwnFreePorts() async throws {
        try await StackTestSupport.withDataDirectory { first in
            try await StackTestSupport.withDataDirectory { second in
                let ports = try await LocalStack.run(.default(dataDirectory: first)) { outer in
                    try await LocalStack.run(.default(dataDirectory: second)) { inner in
                        // Both answer while both run.
                        for endpoint in [outer, inner] {
                            let answer = try await StackTestSupport.send("GET", endpoint.url + "/.well-known/openid-configuration")
                            #expect(answer.status == 200)
                            #expect(answer.body.contains("\"issuer\":\"https://wif.localhost\""))
                        }
                        #expect(StackTestSupport.isListening(port: outer.port) && StackTestSupport.isListening(port: inner.port))
                        return [outer.port, inner.port]
                    }
                }
                #expect(ports[0] != ports[1])
                #expect(ports.allSatisfy { (1...65535).contains($0) })
            }
        }
    }

    @Test func responsesAreDatedByTheStacksClock() async throws {
        try await StackTestSupport.withDataDirectory { path in
            func date(_ answer: StackTestSupport.Answer) -> String? {
                answer.headers.first { $0.name.lowercased() == "date" }?.value
            }
            // A hand-moved clock dates every answer, so a client's skew correction sees the clock that
            // also issued the answer's expiries.
            let moved = Date(timeIntervalSince1970: 1_750_000_000)
            let clock = TimeSource(now: { moved }, sleep: { try await Task.sleep(for: $0) })
            let dated = try await LocalStack.run(.default(dataDirectory: path), timeSource: clock) { endpoint in
                try await StackTestSupport.send("GET", endpoint.url + "/.well-known/jwks.json")
            }
            #expect(date(dated) == "Sun, 15 Jun 2025 15:06:40 GMT")
            // With the system clock, the server's own date stands.
            let wall = try await LocalStack.run(.default(dataDirectory: path)) { endpoint in
                try await StackTestSupport.send("GET", endpoint.url + "/.well-known/jwks.json")
            }
            let parsed = try #require(date(wall).flatMap(STSResponseDecoder.HTTPDate.parse))
            #expect(abs(parsed.timeIntervalSinceNow) < 300)
        }
    }

    @Test func concurrentStartsGetDifferentPorts() async throws {
        try await StackTestSupport.withDataDirectory { root in
            // Each stack holds its port until both have one, so the two really run at once.
            let gate = StackGate(parties: 2)
            let ports = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<2 {
                    group.addTask {
                        try await LocalStack.run(.default(dataDirectory: "\(root)/\(index)")) { endpoint in
                            await gate.arrive()
                            let answer = try await StackTestSupport.send("GET", endpoint.url + "/.well-known/jwks.json")
                            #expect(answer.status == 200)
                            return endpoint.port
                        }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(Set(ports).count == 2)
        }
    }

    @Test func thePortIsReleasedWhenTheBodyReturns() async throws {
        try await StackTestSupport.withDataDirectory { path in
            let port = try await LocalStack.run(.default(dataDirectory: path)) { $0.port }
            // Nothing listens any more…
            #expect(!StackTestSupport.isListening(port: port))
            // …and the same port can be bound again.
            var configuration = LocalConfiguration.default(dataDirectory: path)
            configuration.port = port
            let again = try await LocalStack.run(configuration) { endpoint in
                #expect(endpoint.url == "http://127.0.0.1:\(port)")
                #expect(endpoint.configuration.port == port)
                return try await StackTestSupport.send("GET", endpoint.url + "/.well-known/jwks.json").status
            }
            #expect(again == 200)
        }
    }

    struct BodyFailure: Error {}

    @Test func aThrowingBodyStopsTheServerAndRethrows() async throws {
        try await StackTestSupport.withDataDirectory { path in
            let port = Mutex(0)
            await #expect(throws: BodyFailure.self) {
                try await LocalStack.run(.default(dataDirectory: path)) { endpoint in
                    port.withLock { $0 = endpoint.port }
                    throw BodyFailure()
                }
            }
            let stopped = port.withLock { $0 }
            #expect(stopped != 0)
            #expect(!StackTestSupport.isListening(port: stopped))
        }
    }

    @Test func aTakenPortIsReportedWithTheAddress() async throws {
        try await StackTestSupport.withDataDirectory { path in
            try await LocalStack.run(.default(dataDirectory: path + "/a")) { endpoint in
                var configuration = LocalConfiguration.default(dataDirectory: path + "/b")
                configuration.port = endpoint.port
                do {
                    _ = try await LocalStack.run(configuration) { _ in Issue.record("a second stack bound a taken port") }
                } catch let error as LocalStackError {
                    #expect(error.message == "cannot listen on 127.0.0.1:\(endpoint.port): address already in use", "got: \(error.message)")
                }
                // The first stack still answers.
                #expect(try await StackTestSupport.send("GET", endpoint.url + "/.well-known/jwks.json").status == 200)
            }
        }
    }

    @Test func anInvalidConfigurationIsRefusedBeforeStarting() async throws {
        try await StackTestSupport.withDataDirectory { path in
            var configuration = LocalConfiguration.default(dataDirectory: path)
            configuration.roles[0].maxSessionDuration = 10
            do {
                _ = try await LocalStack.run(configuration) { _ in Issue.record("the body ran") }
                Issue.record("an invalid configuration started")
            } catch let error as LocalStackError {
                #expect(error.message == "the configuration: roles[0].maxSessionDuration: must be 3600 to 43200 seconds, not 10")
            }
            #expect(!FileManager.default.fileExists(atPath: path), "the data directory was created for a configuration that cannot run")
        }
    }

    @Test func aRestartKeepsTheKeys() async throws {
        try await StackTestSupport.withDataDirectory { path in
            let first = try await LocalStack.run(.default(dataDirectory: path)) { try await StackTestSupport.keyId(of: $0) }
            let second = try await LocalStack.run(.default(dataDirectory: path)) { try await StackTestSupport.keyId(of: $0) }
            let kid = try #require(first)
            #expect(second == kid)
            // Another data directory has another key.
            let other = try await StackTestSupport.withDataDirectory { elsewhere in
                try await LocalStack.run(.default(dataDirectory: elsewhere)) { try await StackTestSupport.keyId(of: $0) }
            }
            #expect(other != kid)
        }
    }

    @Test func aTokenMadeWithoutTheServerVerifiesAgainstItsKeys() async throws {
        try await StackTestSupport.withDataDirectory { path in
            // Made before the stack ever ran: the keys are created in the data directory and kept.
            let offline = try LocalFederation(configuration: .default(dataDirectory: path))
            let token = try offline.developmentToken(provider: "oidc", user: "alice")
            let header = try #require(token.token.split(separator: ".").first)
            let kid = try await LocalStack.run(.default(dataDirectory: path)) { try await StackTestSupport.keyId(of: $0) }
            let decoded = try #require(StackTestSupport.decodeBase64URL(String(header)))
            let object = try #require(try JSONSerialization.jsonObject(with: decoded) as? [String: Any])
            #expect(object["kid"] as? String == kid)
        }
    }

    @Test func theEndpointDescribesTheStack() async throws {
        try await StackTestSupport.withDataDirectory { path in
            try await LocalStack.run(.default(dataDirectory: path)) { endpoint in
                #expect(endpoint.url == "http://127.0.0.1:\(endpoint.port)")
                #expect(endpoint.issuer == "https://wif.localhost")
                #expect(endpoint.configuration.dataDirectory == path)
                #expect(endpoint.roleArn(forProvider: "facebook") == "arn:aws:iam::000000000000:role/personal-store-facebook")
                #expect(endpoint.roleArn(forProvider: "nobody") == nil)
                #expect(endpoint.partitionPrefix(provider: "google", user: "alice") == "google/alice/")
                let token = try endpoint.developmentToken(provider: "facebook", user: "1001", ttl: 600)
                #expect(token.providerId == "graph.facebook.com")
                #expect(token.prefix == "facebook/1001/")
                #expect(token.bucket == "wif-personal")
                #expect(!token.token.isEmpty)
                #expect(!token.description.contains(token.token))
            }
        }
    }

    @Test(arguments: [("0.0.0.0", "127.0.0.1"), ("::", "[::1]"), ("::1", "[::1]"), ("localhost", "localhost"), ("[::1]", "[::1]")])
    func wildcardAndIPv6HostsMakeUsableURLs(host: String, urlHost: String) {
        #expect(LocalEndpoint.urlHost(host) == urlHost)
    }
}

/// Lets a number of tasks wait until all of them have arrived; a cancelled task stops waiting, so a party
/// that fails to arrive ends the test instead of hanging it.
actor StackGate {
    private let parties: Int
    private var arrived = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(parties: Int) {
        self.parties = parties
    }

    func arrive() async {
        self.arrived += 1
        if self.arrived >= self.parties {
            self.open()
            return
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if Task.isCancelled || self.arrived >= self.parties {
                    continuation.resume()
                } else {
                    self.waiting.append(continuation)
                }
            }
        } onCancel: {
            Task { await self.cancel() }
        }
    }

    private func cancel() {
        self.arrived = self.parties
        self.open()
    }

    private func open() {
        for continuation in self.waiting { continuation.resume() }
        self.waiting = []
    }
}
