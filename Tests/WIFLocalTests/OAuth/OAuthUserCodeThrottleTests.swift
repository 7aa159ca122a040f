import Foundation
import Testing

@testable import WIFLocal
import WIFTestSupport

/// Guessing device-flow user codes: wrong codes are counted per address and for the whole stack, and
/// past the limit the verification page answers 429 with `Retry-After`, on a hand-moved clock.
@Suite("OAuth user-code throttle")
struct OAuthUserCodeThrottleTests {
    static let start = TestClock.defaultStart

    @Test("An address is refused after its wrong codes, until the window ends")
    func perAddress() {
        var throttle = UserCodeThrottle(limit: 3, window: 60)
        for _ in 0..<3 {
            #expect(throttle.retryAfter(address: "10.0.0.1", now: Self.start) == nil)
            throttle.recordWrong(address: "10.0.0.1", now: Self.start)
        }
        #expect(throttle.retryAfter(address: "10.0.0.1", now: Self.start) == 60)
        #expect(throttle.retryAfter(address: "10.0.0.1", now: Self.start + 59.5) == 1)
        // Another address is not affected.
        #expect(throttle.retryAfter(address: "10.0.0.2", now: Self.start) == nil)
        // The window counts from the first wrong code.
        #expect(throttle.retryAfter(address: "10.0.0.1", now: Self.start + 60) == nil)
        throttle.recordWrong(address: "10.0.0.1", now: Self.start + 60)
        #expect(throttle.retryAfter(address: "10.0.0.1", now: Self.start + 60) == nil)
    }

    @Test("The whole stack is refused after ten times the limit, whatever the addresses")
    func stackWide() {
        var throttle = UserCodeThrottle(limit: 2, window: 60)
        for index in 0..<19 {
            throttle.recordWrong(address: "10.0.1.\(index)", now: Self.start + Double(index))
        }
        #expect(throttle.retryAfter(address: "10.0.2.1", now: Self.start + 19) == nil)
        throttle.recordWrong(address: "10.0.1.19", now: Self.start + 19)
        #expect(throttle.retryAfter(address: "10.0.2.1", now: Self.start + 20) == 40)
        #expect(throttle.retryAfter(address: "10.0.2.1", now: Self.start + 60) == nil)
    }

    @Test("The verification page answers 429 with Retry-After past the limit, even for the right code")
    func verificationPage() async throws {
        let clock = TestClock.identity()
        try await OAuthHarness.run(clock: clock, configure: { $0.oauth.userCodeGuesses = 3; $0.oauth.userCodeGuessWindow = 60 }) { stack in
            let started = try await stack.deviceAuthorization()
            let userCode = try #require(try started.json()["user_code"] as? String)
            let wrong = userCode.hasPrefix("B") ? "CCCC-CCCC" : "BBBB-BBBB"
            func submit(_ code: String) async throws -> OAuthHarness.Answer {
                try await stack.send("GET", "/oauth2/device?" + OAuthHarness.encode([("user_code", code)]))
            }
            for _ in 0..<3 {
                let answer = try await submit(wrong)
                #expect(answer.status == 400)
                #expect(answer.body.contains("is unknown, has expired or was already used"))
            }
            let refused = try await submit(userCode)
            #expect(refused.status == 429, "\(refused.body)")
            #expect(refused.header("Retry-After") == "60")
            #expect(refused.body.contains("Too many wrong codes"))
            #expect(!refused.body.contains("wif-local"))

            clock.advance(by: 45)
            let later = try await submit(wrong)
            #expect(later.status == 429)
            #expect(later.header("Retry-After") == "15")

            clock.advance(by: 15)
            let form = try await submit(userCode)
            #expect(form.status == 200, "\(form.body)")
            #expect(form.body.contains("wif-local"))
        }
    }

    @Test("The guess limit is part of the configuration and checked")
    func configuration() throws {
        let loaded = try ConfigurationTestSupport.load(#"{"oauth": {"userCodeGuesses": 4, "userCodeGuessWindow": 30}}"#)
        #expect(loaded.oauth.userCodeGuesses == 4)
        #expect(loaded.oauth.userCodeGuessWindow == 30)
        #expect(LocalConfiguration.default(dataDirectory: "/unused").oauth.userCodeGuesses == 10)
        let error = try #require(try ConfigurationTestSupport.loadError(#"{"oauth": {"userCodeGuesses": 0}}"#))
        #expect(error.contains("oauth.userCodeGuesses: must be 1 to 1000, not 0"), "\(error)")
        let text = loaded.fileRepresentation()
        #expect(try ConfigurationTestSupport.load(text).oauth == loaded.oauth)
    }
}
