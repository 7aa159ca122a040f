import WIFFoundation

/// A point in time with millisecond precision, independent of Foundation.
///
/// The request context carries the time of a request as a `Timestamp`; the engine never reads a clock.
public struct Timestamp: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// Milliseconds since 1970-01-01T00:00:00Z.
    public var millisecondsSince1970: Int64

    /// Creates a timestamp from milliseconds since the Unix epoch.
    /// - Parameter millisecondsSince1970: Milliseconds since 1970-01-01T00:00:00Z.
    public init(millisecondsSince1970: Int64) {
        self.millisecondsSince1970 = millisecondsSince1970
    }

    /// Creates a timestamp from whole seconds since the Unix epoch.
    /// - Parameter secondsSince1970: Seconds since 1970-01-01T00:00:00Z.
    public init(secondsSince1970: Int64) {
        let (product, overflow) = secondsSince1970.multipliedReportingOverflow(by: 1000)
        self.millisecondsSince1970 = overflow ? (secondsSince1970 < 0 ? Int64.min : Int64.max) : product
    }

    /// Parses an ISO 8601 date or date-time (`2024-05-01`, `2024-05-01T12:00:00Z`,
    /// `2024-05-01T12:00:00.250+02:00`) or epoch seconds (`1714564800`), as IAM date conditions accept.
    /// - Parameter text: The text to parse.
    public init?(_ text: String) {
        guard let milliseconds = AWSDate.parseConditionDate(bytes: Array(text.utf8)) else { return nil }
        self.millisecondsSince1970 = milliseconds
    }

    /// Whole seconds since the Unix epoch (rounded down), the form of `aws:EpochTime`.
    public var secondsSince1970: Int64 {
        AWSDate.seconds(ofMilliseconds: self.millisecondsSince1970)
    }

    /// The ISO 8601 form used for `aws:CurrentTime`, such as `2024-05-01T12:00:00Z` (milliseconds shown only
    /// when not zero).
    public var iso8601: String { AWSDate.iso8601(milliseconds: self.millisecondsSince1970) }

    /// A short textual form.
    public var description: String { self.iso8601 }

    /// Orders by time.
    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        lhs.millisecondsSince1970 < rhs.millisecondsSince1970
    }
}

@inline(__always)
func digitValue(_ byte: UInt8) -> Int? {
    byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") ? Int(byte - UInt8(ascii: "0")) : nil
}
