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
        guard let milliseconds = DateParsing.parse(Array(text.utf8)) else { return nil }
        self.millisecondsSince1970 = milliseconds
    }

    /// Whole seconds since the Unix epoch (rounded down), the form of `aws:EpochTime`.
    public var secondsSince1970: Int64 {
        self.millisecondsSince1970 >= 0
            ? self.millisecondsSince1970 / 1000 : (self.millisecondsSince1970 - 999) / 1000
    }

    /// The ISO 8601 form used for `aws:CurrentTime`, such as `2024-05-01T12:00:00Z` (milliseconds shown only
    /// when not zero).
    public var iso8601: String { DateParsing.format(self.millisecondsSince1970) }

    /// A short textual form.
    public var description: String { self.iso8601 }

    /// Orders by time.
    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        lhs.millisecondsSince1970 < rhs.millisecondsSince1970
    }
}

/// ISO 8601 and epoch parsing for date conditions, over UTF-8 bytes and without allocation.
enum DateParsing {
    static func parse(_ bytes: [UInt8]) -> Int64? {
        bytes.withUnsafeBufferPointer { parse($0) }
    }

    static func parse(_ text: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard !text.isEmpty, text.count <= 64 else { return nil }
        if let epoch = parseEpoch(text) { return epoch }
        return parseISO8601(text)
    }

    /// Epoch seconds: an optional minus sign, digits, and an optional fraction.
    private static func parseEpoch(_ text: UnsafeBufferPointer<UInt8>) -> Int64? {
        var index = 0
        var negative = false
        if text[0] == UInt8(ascii: "-") {
            negative = true
            index = 1
        }
        guard index < text.count else { return nil }
        var seconds: Int64 = 0
        var digits = 0
        while index < text.count, let digit = digitValue(text[index]) {
            guard digits < 15 else { return nil }
            seconds = seconds * 10 + Int64(digit)
            digits += 1
            index += 1
        }
        guard digits > 0 else { return nil }
        var milliseconds: Int64 = 0
        if index < text.count {
            guard text[index] == UInt8(ascii: "."), index + 1 < text.count else { return nil }
            index += 1
            var scale: Int64 = 100
            while index < text.count, let digit = digitValue(text[index]) {
                milliseconds += Int64(digit) * scale
                scale /= 10
                index += 1
            }
            guard index == text.count else { return nil }
        }
        let total = seconds * 1000 + milliseconds
        return negative ? -total : total
    }

    private static func parseISO8601(_ text: UnsafeBufferPointer<UInt8>) -> Int64? {
        var index = 0
        func number(_ count: Int) -> Int? {
            guard index + count <= text.count else { return nil }
            var value = 0
            for offset in 0..<count {
                guard let digit = digitValue(text[index + offset]) else { return nil }
                value = value * 10 + digit
            }
            index += count
            return value
        }
        func expect(_ character: UInt8) -> Bool {
            guard index < text.count, text[index] == character else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect(UInt8(ascii: "-")), let month = number(2), expect(UInt8(ascii: "-")),
              let day = number(2)
        else { return nil }
        guard (1...12).contains(month), day >= 1, day <= daysInMonth(year: year, month: month) else { return nil }
        var hour = 0
        var minute = 0
        var second = 0
        var milliseconds = 0
        var offsetMinutes = 0
        if index < text.count {
            guard text[index] == UInt8(ascii: "T") || text[index] == UInt8(ascii: "t") || text[index] == UInt8(ascii: " ")
            else { return nil }
            index += 1
            guard let parsedHour = number(2), expect(UInt8(ascii: ":")), let parsedMinute = number(2) else { return nil }
            hour = parsedHour
            minute = parsedMinute
            if expect(UInt8(ascii: ":")) {
                guard let parsedSecond = number(2) else { return nil }
                second = parsedSecond
                if expect(UInt8(ascii: ".")) || expect(UInt8(ascii: ",")) {
                    var scale = 100
                    var digits = 0
                    while index < text.count, let digit = digitValue(text[index]) {
                        milliseconds += digit * scale
                        scale /= 10
                        digits += 1
                        index += 1
                    }
                    guard digits > 0 else { return nil }
                }
            }
            guard hour <= 23 || (hour == 24 && minute == 0 && second == 0 && milliseconds == 0), minute <= 59,
                  second <= 60
            else { return nil }
            if index < text.count {
                let designator = text[index]
                if designator == UInt8(ascii: "Z") || designator == UInt8(ascii: "z") {
                    index += 1
                } else if designator == UInt8(ascii: "+") || designator == UInt8(ascii: "-") {
                    index += 1
                    guard let offsetHour = number(2) else { return nil }
                    _ = expect(UInt8(ascii: ":"))
                    guard let offsetMinute = number(2), offsetHour <= 23, offsetMinute <= 59 else { return nil }
                    offsetMinutes = offsetHour * 60 + offsetMinute
                    if designator == UInt8(ascii: "+") { offsetMinutes = -offsetMinutes }
                } else {
                    return nil
                }
            }
        }
        guard index == text.count else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second) + Int64(offsetMinutes * 60)
        return seconds * 1000 + Int64(milliseconds)
    }

    static func format(_ milliseconds: Int64) -> String {
        var seconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        let millis = Int(milliseconds - seconds * 1000)
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        seconds -= days * 86_400
        let (year, month, day) = civilFromDays(Int(days))
        let hour = Int(seconds / 3600)
        let minute = Int(seconds % 3600 / 60)
        let second = Int(seconds % 60)
        var text = "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2))"
        if millis != 0 { text += ".\(pad(millis, 3))" }
        return text + "Z"
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(abs(value))
        let padded = digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
        return value < 0 ? "-" + padded : padded
    }

    private static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 for a proleptic Gregorian date (Howard Hinnant's well-known algorithm).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func civilFromDays(_ days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }
}

@inline(__always)
func digitValue(_ byte: UInt8) -> Int? {
    byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") ? Int(byte - UInt8(ascii: "0")) : nil
}
