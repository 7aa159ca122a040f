import Foundation
import Testing

/// `wif-tool demo`, the README's first command.
@Suite struct DemoCommandTests {
    @Test func demoRunsEveryStepAsExpectedOnAFreshStack() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        let result = try fixture.run(["demo"])
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        for text in [
            "alice: signs in", "bob: signs in", "alice: uploads notes.txt", "bob: lists their folder",
            "bob: reads alice's file s3://wif-personal/google/alice/notes.txt", "AccessDenied (as expected)",
            "refused before sending", "steps behaved as expected",
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
        #expect(Set(steps.compactMap { $0["actor"] as? String }) == ["alice", "bob"])
        #expect(steps.allSatisfy { $0["ok"] as? Bool == true })
        #expect(steps.compactMap { $0["step"] as? Int } == Array(1...steps.count))
        let denials = steps.filter { ($0["outcome"] as? String)?.hasPrefix("AccessDenied") == true }
        #expect(denials.count == 3)
        #expect(denials.allSatisfy { $0["actor"] as? String == "bob" })
    }
}
