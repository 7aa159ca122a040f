import Foundation
import Testing
import WIFTestSupport

/// `wif-tool demo`, the README's first command.
///
/// Serialized: each test waits on a whole demo run, and two at once hold both threads of a two-core
/// machine while in-process stacks of other suites wait for them.
@Suite(.serialized, .oneToolRunAtATime) struct DemoCommandTests {
    @Test func demoRunsEveryStepAsExpectedOnAFreshStack() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        let result = try fixture.run(["demo"])
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        for text in [
            "alice: signs in", "bob: signs in", "alice: uploads notes.txt", "bob: lists their folder",
            "bob: reads alice's file s3://wif-personal/google/alice/notes.txt", "AccessDenied (as expected)",
            "refused before sending", "steps behaved as expected",
            "guest: signs in as a guest of the identity pool", "guest: writes public/graffiti.txt",
            "bob (identity pool): downloads protected/us-east-1:", "bob (identity pool): lists alice's private folder private/us-east-1:",
            "alice (API): creates a Todo with her user pool token", "bob (API): reads alice's Todo with his user pool token",
            "HTTP 403 ForbiddenException", "guest (API key): creates a Todo with the API key",
        ] {
            #expect(result.stdout.contains(text), "missing \(text)")
        }
        #expect(!result.stdout.contains("UNEXPECTED"))
        // The demo keeps nothing: no WIF_HOME, no sign-in.
        #expect(!FileManager.default.fileExists(atPath: fixture.wifHome.path))
    }

    @Test func demoJSONListsEachStepWithItsOutcome() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        let result = try fixture.run(["demo", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let output = try StoreFixture.object(result)
        #expect(output["ok"] as? Bool == true)
        let steps = try #require(output["steps"] as? [[String: Any]])
        #expect(steps.count >= 10)
        #expect(
            Set(steps.compactMap { $0["actor"] as? String })
                == ["alice", "bob", "guest", "alice (identity pool)", "bob (identity pool)", "alice (API)", "bob (API)", "guest (API key)"])
        #expect(steps.allSatisfy { $0["ok"] as? Bool == true })
        #expect(steps.compactMap { $0["step"] as? Int } == Array(1...steps.count))
        let denials = steps.filter { ($0["outcome"] as? String)?.hasPrefix("AccessDenied") == true }
        #expect(denials.count == 5)
        #expect(denials.map { $0["actor"] as? String } == ["bob", "bob", "bob", "guest", "bob (identity pool)"])
        // The API's refusals name the rule; its allowed calls say who owns the record.
        let refusals = steps.filter { ($0["outcome"] as? String)?.hasPrefix("HTTP 403") == true }
        #expect(refusals.map { $0["actor"] as? String } == ["bob (API)", "guest (API key)"])
        #expect(steps.contains { ($0["outcome"] as? String) == "HTTP 201, owner alice" })
    }
}
