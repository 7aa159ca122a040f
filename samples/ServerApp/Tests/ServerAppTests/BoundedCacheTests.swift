import Foundation
import Testing

@testable import ServerApp

@Suite struct BoundedCacheTests {
    static let start = Date(timeIntervalSince1970: 1_750_000_000)

    @Test func theLeastRecentlyUsedValueIsForgottenWhenFull() {
        var cache = BoundedCache<String, Int>(capacity: 2)
        cache.insert(1, for: "alice", expiry: nil)
        cache.insert(2, for: "bob", expiry: nil)
        // Reading alice makes bob the least recently used.
        #expect(cache.value(for: "alice", now: Self.start) == 1)
        cache.insert(3, for: "carol", expiry: nil)
        #expect(cache.count == 2)
        #expect(cache.value(for: "bob", now: Self.start) == nil)
        #expect(cache.value(for: "alice", now: Self.start) == 1)
        #expect(cache.value(for: "carol", now: Self.start) == 3)
    }

    @Test func replacingAValueDoesNotEvictAnother() {
        var cache = BoundedCache<String, Int>(capacity: 2)
        cache.insert(1, for: "alice", expiry: nil)
        cache.insert(2, for: "bob", expiry: nil)
        cache.insert(10, for: "alice", expiry: nil)
        #expect(cache.count == 2)
        #expect(cache.value(for: "alice", now: Self.start) == 10)
        #expect(cache.value(for: "bob", now: Self.start) == 2)
    }

    @Test func aValueIsForgottenOnceItsExpiryPasses() {
        var cache = BoundedCache<String, Int>(capacity: 10)
        cache.insert(1, for: "alice", expiry: Self.start.addingTimeInterval(60))
        #expect(cache.value(for: "alice", now: Self.start.addingTimeInterval(59)) == 1)
        #expect(cache.value(for: "alice", now: Self.start.addingTimeInterval(60)) == nil)
        #expect(cache.count == 0)
    }

    @Test func aCapacityBelowOneKeepsOneValue() {
        var cache = BoundedCache<String, Int>(capacity: 0)
        cache.insert(1, for: "alice", expiry: nil)
        cache.insert(2, for: "bob", expiry: nil)
        #expect(cache.count == 1)
        #expect(cache.value(for: "bob", now: Self.start) == 2)
        #expect(cache.remove("bob") == 2)
        #expect(cache.count == 0)
    }
}
