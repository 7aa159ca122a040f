/// The time formats of AWS requests and responses, read and written from seconds since 1970 with no
/// calendar or formatter: SigV4's `20150830T123600Z`, HTTP's `Sun, 30 Aug 2015 12:36:00 GMT` and
/// ISO 8601's `2015-08-30T12:36:00Z`.
enum AWSTime {
    /// The latest second a four-digit year can express: 9999-12-31T23:59:59Z.
    static let latestSecond: Int64 = 253_402_300_799

    // MARK: Reading

    /// Reads `yyyyMMdd'T'HHmmss'Z'`.
    /// - Returns: Seconds since 1970, or `nil` when the text is not exactly that form or names no real time.
    static func parseBasic(_ text: some StringProtocol) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count == 16, bytes[8] == UInt8(ascii: "T"), bytes[15] == UInt8(ascii: "Z") else { return nil }
        guard let year = number(bytes, 0, 4), let month = number(bytes, 4, 2), let day = number(bytes, 6, 2),
            let hour = number(bytes, 9, 2), let minute = number(bytes, 11, 2), let second = number(bytes, 13, 2)
        else { return nil }
        return seconds(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    }

    /// Reads an HTTP date in its preferred form (RFC 7231 IMF-fixdate), `Sun, 06 Nov 1994 08:49:37 GMT`.
    /// - Returns: Seconds since 1970, or `nil` for any other text.
    static func parseHTTPDate(_ text: some StringProtocol) -> Int64? {
        let bytes = Array(text.utf8)
        // "Sun, 06 Nov 1994 08:49:37 GMT" is 29 bytes.
        guard bytes.count == 29, bytes[3] == UInt8(ascii: ","), bytes[4] == 0x20, bytes[7] == 0x20, bytes[11] == 0x20,
            bytes[16] == 0x20, bytes[19] == UInt8(ascii: ":"), bytes[22] == UInt8(ascii: ":"), bytes[25] == 0x20,
            bytes[26...].elementsEqual("GMT".utf8)
        else { return nil }
        let monthName = String(decoding: bytes[8..<11], as: UTF8.self)
        guard let monthIndex = months.firstIndex(of: monthName), let day = number(bytes, 5, 2), let year = number(bytes, 12, 4),
            let hour = number(bytes, 17, 2), let minute = number(bytes, 20, 2), let second = number(bytes, 23, 2)
        else { return nil }
        return seconds(year: year, month: Int64(monthIndex + 1), day: day, hour: hour, minute: minute, second: second)
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    private static func number(_ bytes: [UInt8], _ start: Int, _ count: Int) -> Int64? {
        var value: Int64 = 0
        for index in start..<(start + count) {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            value = value * 10 + Int64(digit)
        }
        return value
    }

    private static func seconds(year: Int64, month: Int64, day: Int64, hour: Int64, minute: Int64, second: Int64) -> Int64? {
        guard (1...12).contains(month), day >= 1, day <= daysInMonth(year: year, month: month), hour < 24, minute < 60,
            second < 60, year >= 1970
        else { return nil }
        return daysFromCivil(year: year, month: month, day: day) * 86_400 + hour * 3_600 + minute * 60 + second
    }

    private static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date of a day count since 1970-01-01 (Howard Hinnant's `civil_from_days`).
    static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
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

    // MARK: Writing

    /// `yyyyMMdd'T'HHmmss'Z'`, the form of `X-Amz-Date`.
    static func basic(_ seconds: Int64) -> String {
        format(seconds, extended: false)
    }

    /// `yyyy-MM-dd'T'HH:mm:ss'Z'`, the form of STS's `Expiration` and S3's `ServerTime`.
    static func extended(_ seconds: Int64) -> String {
        format(seconds, extended: true)
    }

    private static func format(_ seconds: Int64, extended: Bool) -> String {
        let clamped = min(max(seconds, 0), latestSecond)
        let days = clamped / 86_400
        let secondOfDay = clamped - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(20)
        func put(_ value: Int64, _ digits: Int) {
            var divisor: Int64 = 1
            for _ in 1..<digits { divisor *= 10 }
            var remaining = value
            while divisor > 0 {
                bytes.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: remaining / divisor))
                remaining %= divisor
                divisor /= 10
            }
        }
        put(year, 4)
        if extended { bytes.append(UInt8(ascii: "-")) }
        put(month, 2)
        if extended { bytes.append(UInt8(ascii: "-")) }
        put(day, 2)
        bytes.append(UInt8(ascii: "T"))
        put(secondOfDay / 3_600, 2)
        if extended { bytes.append(UInt8(ascii: ":")) }
        put(secondOfDay / 60 % 60, 2)
        if extended { bytes.append(UInt8(ascii: ":")) }
        put(secondOfDay % 60, 2)
        bytes.append(UInt8(ascii: "Z"))
        return String(decoding: bytes, as: UTF8.self)
    }
}
