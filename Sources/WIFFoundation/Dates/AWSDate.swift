/// The time formats of AWS requests and responses, read and written from seconds (or milliseconds)
/// since 1970 with no calendar, formatter, locale or clock:
///
/// - SigV4's basic form `20150830T123600Z` and its scope date `20150830`;
/// - ISO 8601's extended form `2015-08-30T12:36:00Z`, with milliseconds as S3 writes them
///   (`2015-08-30T12:36:00.000Z`) or as IAM shows them (only when not zero);
/// - HTTP dates: the IMF-fixdate `Sun, 30 Aug 2015 12:36:00 GMT` and the two obsolete forms that
///   HTTP recipients accept.
package enum AWSDate {
    /// The latest second a four-digit year can express: 9999-12-31T23:59:59Z.
    package static let latestSecond: Int64 = 253_402_300_799

    // MARK: Calendar arithmetic

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    package static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date of a day count since 1970-01-01 (Howard Hinnant's `civil_from_days`).
    package static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// The number of days in a month of a proleptic Gregorian year.
    package static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Seconds since 1970 of a UTC calendar time, or `nil` when the fields name no real time.
    /// - Parameter leapSecond: Whether a second of 60 is accepted (HTTP and ISO 8601 allow it).
    package static func seconds(
        year: Int64, month: Int64, day: Int64, hour: Int64, minute: Int64, second: Int64, leapSecond: Bool = false
    ) -> Int64? {
        guard (1...12).contains(month), day >= 1, day <= Self.daysInMonth(year: year, month: month), (0...23).contains(hour),
            (0...59).contains(minute), second >= 0, second <= (leapSecond ? 60 : 59)
        else { return nil }
        return Self.daysFromCivil(year: year, month: month, day: day) * 86_400 + hour * 3_600 + minute * 60 + second
    }

    /// Whole seconds (rounded down) of a millisecond count.
    package static func seconds(ofMilliseconds milliseconds: Int64) -> Int64 {
        milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
    }

    // MARK: Writing

    /// `yyyyMMdd'T'HHmmss'Z'`, the form of `X-Amz-Date`; seconds outside 1970...9999 are clamped.
    package static func basic(_ seconds: Int64) -> String {
        Self.format(seconds, millisecond: nil, extended: false)
    }

    /// `yyyy-MM-dd'T'HH:mm:ss'Z'`, the form of STS's `Expiration` and S3's `ServerTime`; seconds
    /// outside 1970...9999 are clamped.
    package static func extended(_ seconds: Int64) -> String {
        Self.format(seconds, millisecond: nil, extended: true)
    }

    /// `yyyy-MM-dd'T'HH:mm:ss.SSS'Z'`, as S3 writes `LastModified`; times outside 1970...9999 are
    /// clamped.
    package static func extendedWithMilliseconds(_ milliseconds: Int64) -> String {
        let seconds = Self.seconds(ofMilliseconds: milliseconds)
        return Self.format(seconds, millisecond: milliseconds - seconds * 1000, extended: true)
    }

    /// ISO 8601 as IAM shows `aws:CurrentTime`: `2024-05-01T12:00:00Z`, with `.SSS` only when the
    /// milliseconds are not zero. Years before 1 or after 9999 are written with more digits or a sign.
    package static func iso8601(milliseconds: Int64) -> String {
        var seconds = Self.seconds(ofMilliseconds: milliseconds)
        let millis = milliseconds - seconds * 1000
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        seconds -= days * 86_400
        let (year, month, day) = Self.civil(fromDays: days)
        func pad(_ value: Int64, _ width: Int) -> String {
            let digits = String(value.magnitude)
            let padded = digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
            return value < 0 ? "-" + padded : padded
        }
        var text =
            "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(seconds / 3600, 2)):\(pad(seconds % 3600 / 60, 2)):\(pad(seconds % 60, 2))"
        if millis != 0 { text += ".\(pad(millis, 3))" }
        return text + "Z"
    }

    /// `EEE, dd MMM yyyy HH:mm:ss 'GMT'`, the HTTP date of `Date` and `Last-Modified`; seconds outside
    /// 1970...9999 are clamped.
    package static func httpDate(_ seconds: Int64) -> String {
        let clamped = min(max(seconds, 0), Self.latestSecond)
        let days = clamped / 86_400
        let secondOfDay = clamped - days * 86_400
        let (year, month, day) = Self.civil(fromDays: days)
        let weekday = Self.weekdays[Int(days % 7)]
        let monthName = Self.months[Int(month - 1)]
        return String(unsafeUninitializedCapacity: 29) { output in
            var offset = 0
            for byte in weekday.utf8 {
                output[offset] = byte
                offset += 1
            }
            output[3] = UInt8(ascii: ",")
            output[4] = 0x20
            Self.put(day, digits: 2, at: 5, into: output)
            output[7] = 0x20
            offset = 8
            for byte in monthName.utf8 {
                output[offset] = byte
                offset += 1
            }
            output[11] = 0x20
            Self.put(year, digits: 4, at: 12, into: output)
            output[16] = 0x20
            Self.put(secondOfDay / 3_600, digits: 2, at: 17, into: output)
            output[19] = UInt8(ascii: ":")
            Self.put(secondOfDay / 60 % 60, digits: 2, at: 20, into: output)
            output[22] = UInt8(ascii: ":")
            Self.put(secondOfDay % 60, digits: 2, at: 23, into: output)
            output[25] = 0x20
            output[26] = UInt8(ascii: "G")
            output[27] = UInt8(ascii: "M")
            output[28] = UInt8(ascii: "T")
            return 29
        }
    }

    private static let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    private static func format(_ seconds: Int64, millisecond: Int64?, extended: Bool) -> String {
        let clamped = min(max(seconds, 0), Self.latestSecond)
        let days = clamped / 86_400
        let secondOfDay = clamped - days * 86_400
        let (year, month, day) = Self.civil(fromDays: days)
        let length = (extended ? 20 : 16) + (millisecond == nil ? 0 : 4)
        return String(unsafeUninitializedCapacity: length) { output in
            var offset = 0
            func put(_ value: Int64, _ digits: Int) {
                Self.put(value, digits: digits, at: offset, into: output)
                offset += digits
            }
            func mark(_ byte: UInt8) {
                output[offset] = byte
                offset += 1
            }
            put(year, 4)
            if extended { mark(UInt8(ascii: "-")) }
            put(month, 2)
            if extended { mark(UInt8(ascii: "-")) }
            put(day, 2)
            mark(UInt8(ascii: "T"))
            put(secondOfDay / 3_600, 2)
            if extended { mark(UInt8(ascii: ":")) }
            put(secondOfDay / 60 % 60, 2)
            if extended { mark(UInt8(ascii: ":")) }
            put(secondOfDay % 60, 2)
            if let millisecond {
                mark(UInt8(ascii: "."))
                put(millisecond, 3)
            }
            mark(UInt8(ascii: "Z"))
            return offset
        }
    }

    @inline(__always)
    private static func put(_ value: Int64, digits: Int, at offset: Int, into output: UnsafeMutableBufferPointer<UInt8>) {
        var remaining = value
        for position in stride(from: offset + digits - 1, through: offset, by: -1) {
            output[position] = 0x30 &+ UInt8(truncatingIfNeeded: remaining % 10)
            remaining /= 10
        }
    }
}
