import Foundation
import Testing
import WIFTestSupport

@testable import PolicyEngine

@Suite("Timestamps")
struct TimestampTests {
    @Test(arguments: [
        ("2024-05-01T12:00:00Z", Int64(1_714_564_800_000)),
        ("2024-05-01T12:00:00.250Z", 1_714_564_800_250),
        ("2024-05-01T14:00:00+02:00", 1_714_564_800_000),
        ("2024-05-01T07:30:00-0430", 1_714_564_800_000),
        ("2024-05-01T12:00Z", 1_714_564_800_000),
        ("2024-05-01t12:00:00z", 1_714_564_800_000),
        ("2024-05-01 12:00:00", 1_714_564_800_000),
        ("2024-05-01", 1_714_521_600_000),
        ("1970-01-01T00:00:00Z", 0),
        ("1969-12-31T23:59:59Z", -1_000),
        ("2000-02-29", 951_782_400_000),
        ("1714564800", 1_714_564_800_000),
        ("1714564800.5", 1_714_564_800_500),
        ("-1", -1_000),
    ])
    func parses(text: String, milliseconds: Int64) {
        #expect(Timestamp(text)?.millisecondsSince1970 == milliseconds)
    }

    @Test(arguments: ["", "2024-05", "2024-13-01", "2023-02-29", "2024-04-31", "2024-05-01T25:00:00Z", "2024-05-01T12:60:00Z",
                      "2024-05-01T12:00:00+2", "2024-05-01T12:00:00Q", "tomorrow", "12abc", "1.", "2024-05-01T", "2024-05-01T12:00:00."])
    func rejects(text: String) {
        #expect(Timestamp(text) == nil)
    }

    @Test func formatsAsAWSDoesForCurrentTime() {
        #expect(Timestamp(secondsSince1970: 1_714_564_800).iso8601 == "2024-05-01T12:00:00Z")
        #expect(Timestamp(millisecondsSince1970: 1_714_564_800_250).description == "2024-05-01T12:00:00.250Z")
        #expect(Timestamp(millisecondsSince1970: -1).iso8601 == "1969-12-31T23:59:59.999Z")
        #expect(Timestamp(millisecondsSince1970: -1).secondsSince1970 == -1)
        #expect(Timestamp(secondsSince1970: 951_782_400).iso8601 == "2000-02-29T00:00:00Z")
    }

    @Test func roundTripsThroughText() {
        var generator = SplitMix64(seed: 11)
        for _ in 0..<500 {
            let milliseconds = Int64(generator.next() % 8_000_000_000_000) - 1_000_000_000_000
            let timestamp = Timestamp(millisecondsSince1970: milliseconds)
            #expect(Timestamp(timestamp.iso8601) == timestamp)
        }
    }

    @Test func bridgesToDate() {
        let date = Date(timeIntervalSince1970: 1_714_564_800.25)
        let timestamp = Timestamp(date)
        #expect(timestamp.millisecondsSince1970 == 1_714_564_800_250)
        #expect(timestamp.date == date)
        #expect(Timestamp(secondsSince1970: 1) < Timestamp(secondsSince1970: 2))
    }
}
