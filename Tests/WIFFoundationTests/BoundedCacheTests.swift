import Testing
import WIFFoundation

@Suite struct BoundedCacheTests {
    @Test func keepsAtMostItsCapacityAndReplacesTheOldestFirst() {
        let cache = BoundedCache<String, Int>(capacity: 3)
        for (index, key) in ["a", "b", "c"].enumerated() { cache.store(index, for: key) }
        #expect(cache.count == 3)
        cache.store(3, for: "d")
        #expect(cache.count == 3)
        #expect(cache["a"] == nil)
        #expect(cache["b"] == 1 && cache["c"] == 2 && cache["d"] == 3)
        cache.store(4, for: "e")
        #expect(cache["b"] == nil)
        #expect(cache["c"] == 2)
    }

    @Test func storingAKeptKeyReplacesItsValueAndEvictsNothing() {
        let cache = BoundedCache<String, Int>(capacity: 2)
        cache.store(1, for: "a")
        cache.store(2, for: "b")
        cache.store(10, for: "a")
        #expect(cache["a"] == 10 && cache["b"] == 2)
        #expect(cache.count == 2)
    }

    @Test func makesAValueOnceAndStoresNoNil() {
        let cache = BoundedCache<String, Int>(capacity: 4)
        var made = 0
        #expect(cache.value(for: "x") { made += 1; return 7 } == 7)
        #expect(cache.value(for: "x") { made += 1; return 8 } == 7)
        #expect(made == 1)
        #expect(cache.value(for: "y") { nil } == nil)
        #expect(cache.count == 1)
    }

    @Test func aCapacityBelowOneKeepsOne() {
        let cache = BoundedCache<Int, Int>(capacity: 0)
        cache.store(1, for: 1)
        cache.store(2, for: 2)
        #expect(cache.capacity == 1 && cache.count == 1 && cache[2] == 2)
    }

    @Test func exactTextKeysMatchOnlyTheSameBytes() {
        let plain = "TOKEN"
        let lookalike = "TO\u{212A}EN"
        #expect(plain == lookalike)  // equal as Swift strings…
        #expect(ExactText(plain) != ExactText(lookalike))  // …but not as keys
        #expect(ExactText(plain) == ExactText(String("xTOKEN".dropFirst())))
        // The same bytes hash alike whether they are a whole string or cut from a longer one.
        #expect(ExactText(plain).hashValue == ExactText("xTOKEN".dropFirst()).hashValue)
        #expect(ExactText(plain) == ExactText("Bearer TOKEN".dropFirst(7)))
        #expect(ExactText(plain) != ExactText("TOKENS"))
        let cache = BoundedCache<ExactText, Int>(capacity: 2)
        cache.store(1, for: ExactText(plain))
        #expect(cache[ExactText(plain)] == 1)
        #expect(cache[ExactText(lookalike)] == nil)
    }

    /// A token key hashes only the token's length and end, yet still matches only the same bytes: two
    /// tokens that differ before their last 64 bytes hash alike and are still different keys.
    @Test func tokenKeysHashTheEndAndCompareEveryByte() {
        let ending = String(repeating: "e", count: ExactText.sampledSuffixLength)
        let token = "A" + String(repeating: "x", count: 900) + ending
        let other = "B" + String(repeating: "x", count: 900) + ending
        #expect(ExactText(token: token[...]).hashValue == ExactText(token: other[...]).hashValue)
        #expect(ExactText(token: token[...]) != ExactText(token: other[...]))
        #expect(ExactText(token: token[...]) == ExactText(token: ("Bearer " + token).dropFirst(7)))
        let short = "TO\u{212A}EN"
        #expect(ExactText(token: "TOKEN") != ExactText(token: short[...]))
        let cache = BoundedCache<ExactText, Int>(capacity: 4)
        cache.store(1, for: ExactText(token: token[...]))
        #expect(cache[ExactText(token: token[...])] == 1)
        #expect(cache[ExactText(token: other[...])] == nil)
    }
}
