import Foundation
import Synchronization
import Testing
@testable import WIFCredentials

@Suite struct ClosureTokenSourceTests {
    @Test func passesForceRefreshAndTrims() async throws {
        let calls = Mutex<[Bool]>([])
        let jwt = makeUnsignedTestJWT(payload: #"{"exp":1800000000,"sub":"app-user"}"#)
        let source: some WebIdentityTokenSource = .closure { force in
            calls.withLock { $0.append(force) }
            return force ? "fresh-token-\(jwt)\n" : "\(jwt)\n"
        }
        let first = try await source.token(forceRefresh: false, logger: .noop)
        #expect(first.value == jwt)
        #expect(first.expiration == Date(timeIntervalSince1970: 1_800_000_000))
        let second = try await source.token(forceRefresh: true, logger: .noop)
        #expect(second.value == "fresh-token-\(jwt)")
        #expect(calls.withLock { $0 } == [false, true])
    }

    @Test func callsTheClosureEveryTime() async throws {
        let counter = Mutex(0)
        let source = ClosureTokenSource { _ in
            let count = counter.withLock { value in
                value += 1
                return value
            }
            return "token-\(count)"
        }
        #expect(try await source.token(forceRefresh: false, logger: .noop).value == "token-1")
        #expect(try await source.token(forceRefresh: false, logger: .noop).value == "token-2")
    }

    @Test func libraryErrorsPassThrough() async throws {
        let source = ClosureTokenSource { _ in throw WIFCredentialsError.tokenExpired("the sign-in lapsed") }
        let error = await #expect(throws: WIFCredentialsError.tokenExpired("")) {
            try await source.token(forceRefresh: false, logger: .noop)
        }
        #expect(error?.reason == "the sign-in lapsed")
    }

    @Test func cancellationPassesThrough() async throws {
        let source = ClosureTokenSource { _ in throw CancellationError() }
        await #expect(throws: CancellationError.self) {
            try await source.token(forceRefresh: false, logger: .noop)
        }
    }

    struct SignInFailed: Error, CustomStringConvertible {
        var description: String { "the identity provider is unreachable" }
    }

    @Test func otherErrorsBecomeTokenUnavailable() async throws {
        let source = ClosureTokenSource { _ in throw SignInFailed() }
        let error = await #expect(throws: WIFCredentialsError.tokenUnavailable("")) {
            try await source.token(forceRefresh: false, logger: .noop)
        }
        #expect(error?.reason == "web-identity token closure failed: the identity provider is unreachable")
    }

    @Test func returnedTokenIsChecked() async throws {
        let source = ClosureTokenSource { _ in "  " }
        let error = await #expect(throws: WIFCredentialsError.tokenUnavailable("")) {
            try await source.token(forceRefresh: false, logger: .noop)
        }
        #expect(error?.reason == "web-identity token returned by the closure is empty")
    }

    @Test func descriptionHidesToken() {
        let source = ClosureTokenSource { _ in "secret-token" }
        #expect(source.description == "ClosureTokenSource")
    }
}
