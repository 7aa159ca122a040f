import Foundation

extension AWSDate {
    /// Milliseconds since 1970 of a date, rounded down.
    package static func milliseconds(_ date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded(.down)
        guard value.isFinite else { return value < 0 ? 0 : Self.latestSecond * 1000 }
        return Int64(min(max(value, -9.2e18), 9.2e18))
    }

    /// Whole seconds since 1970 of a date, rounded down.
    package static func seconds(_ date: Date) -> Int64 {
        Self.seconds(ofMilliseconds: Self.milliseconds(date))
    }

    /// The date of a millisecond count since 1970.
    package static func date(milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    /// Reads a conditional request's date (`If-Modified-Since` and its kin): an HTTP date in any of
    /// its three forms, or ISO 8601 with a time and zone, which some clients send.
    /// - Returns: Seconds since 1970, or `nil`.
    package static func parseHTTPDateOrISO8601(_ text: some StringProtocol) -> Int64? {
        let trimmed = text.trimming(.whitespaces)
        if let milliseconds = Self.parseISO8601(trimmed, requiringTime: true) {
            return Self.seconds(ofMilliseconds: milliseconds)
        }
        return Self.parseHTTPDate(trimmed)
    }
}
