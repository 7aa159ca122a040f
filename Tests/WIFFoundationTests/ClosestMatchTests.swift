import Testing
import WIFFoundation

/// The "did you mean" helper shared by policies, configuration and case files.
@Suite("Closest match")
struct ClosestMatchTests {
    static let keys = ["name", "policies", "sessionPolicy", "request", "expected", "description", "note", "source", "category"]

    @Test(arguments: [
        ("polices", "policies"),
        ("Policies", "policies"),
        ("expect", "expected"),
        ("requets", "request"),
        ("descripton", "description"),
        ("catgory", "category"),
    ])
    func suggestsTheNearestCandidate(written: String, suggestion: String) {
        #expect(closestMatch(written, in: Self.keys) == suggestion)
    }

    @Test(arguments: ["tags", "x", "", String(repeating: "a", count: 65)])
    func suggestsNothingWhenNothingIsClose(written: String) {
        #expect(closestMatch(written, in: Self.keys) == nil)
    }
}
