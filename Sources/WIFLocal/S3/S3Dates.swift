import Foundation

/// The date formats of S3: ISO 8601 with milliseconds in XML (`2024-05-01T12:00:00.000Z`), RFC 1123 in
/// headers (`Wed, 01 May 2024 12:00:00 GMT`). Formatting is done by hand, with no formatter objects or locale.
enum S3Dates {
    private static let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `yyyy-MM-dd'T'HH:mm:ss.SSS'Z'`.
    static func iso8601(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let seconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        let fraction = Int(milliseconds - seconds * 1000)
        let parts = Self.civil(seconds)
        return "\(Self.pad(parts.year, 4))-\(Self.pad(parts.month, 2))-\(Self.pad(parts.day, 2))T"
            + "\(Self.pad(parts.hour, 2)):\(Self.pad(parts.minute, 2)):\(Self.pad(parts.second, 2)).\(Self.pad(fraction, 3))Z"
    }

    /// `EEE, dd MMM yyyy HH:mm:ss 'GMT'`, the HTTP date of `Last-Modified`.
    static func rfc1123(_ date: Date) -> String {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        let parts = Self.civil(seconds)
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let weekday = Self.weekdays[Int(((days % 7) + 7) % 7)]
        return "\(weekday), \(Self.pad(parts.day, 2)) \(Self.months[parts.month - 1]) \(Self.pad(parts.year, 4)) "
            + "\(Self.pad(parts.hour, 2)):\(Self.pad(parts.minute, 2)):\(Self.pad(parts.second, 2)) GMT"
    }

    /// Parses an HTTP date: RFC 1123 (`Sun, 06 Nov 1994 08:49:37 GMT`), RFC 850
    /// (`Sunday, 06-Nov-94 08:49:37 GMT`) or asctime (`Sun Nov  6 08:49:37 1994`), as HTTP requires servers to
    /// accept. Also accepts ISO 8601 (`1994-11-06T08:49:37Z`), which some clients send.
    /// - Returns: Seconds since 1970, or `nil` for anything else.
    static func parseHTTPDate(_ text: String) -> Int64? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let iso = Self.parseISO8601(trimmed) { return iso }
        let tokens = trimmed.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
        var day: Int?
        var month: Int?
        var year: Int?
        var time: (Int, Int, Int)?
        for token in tokens {
            if token.contains(":") {
                let fields = token.split(separator: ":").compactMap { Int($0) }
                guard fields.count == 3 else { return nil }
                time = (fields[0], fields[1], fields[2])
            } else if token.contains("-") {
                // RFC 850: 06-Nov-94
                let fields = token.split(separator: "-").map(String.init)
                guard fields.count == 3, let d = Int(fields[0]), let m = Self.monthIndex(fields[1]), let y = Int(fields[2]) else {
                    return nil
                }
                (day, month, year) = (d, m, y < 100 ? (y < 70 ? 2000 + y : 1900 + y) : y)
            } else if let m = Self.monthIndex(token) {
                month = m
            } else if let number = Int(token) {
                if number > 31 || token.count == 4 { year = number } else { day = number }
            }
        }
        guard let day, let month, let year, let time, (1...31).contains(day), time.0 < 24, time.1 < 60, time.2 < 61 else {
            return nil
        }
        return Self.seconds(year: year, month: month, day: day, hour: time.0, minute: time.1, second: time.2)
    }

    private static func parseISO8601(_ text: String) -> Int64? {
        let utf8 = Array(text.utf8)
        guard utf8.count >= 20, utf8[4] == UInt8(ascii: "-"), utf8[10] == UInt8(ascii: "T"), utf8.last == UInt8(ascii: "Z") else {
            return nil
        }
        func number(_ range: Range<Int>) -> Int? {
            Int(String(decoding: utf8[range], as: UTF8.self))
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
            let minute = number(14..<16), let second = number(17..<19), (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        return Self.seconds(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    }

    private static func monthIndex(_ token: String) -> Int? {
        guard token.count == 3 else { return nil }
        return Self.months.firstIndex { $0.caseInsensitiveCompare(token) == .orderedSame }.map { $0 + 1 }
    }

    /// Seconds since 1970 of a UTC calendar time.
    static func seconds(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) -> Int64 {
        // Days from civil (proleptic Gregorian).
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let m = Int64(month)
        let dayOfYear = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return days * 86_400 + Int64(hour) * 3600 + Int64(minute) * 60 + Int64(second)
    }

    private static func civil(_ seconds: Int64) -> (year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (
            Int(year), Int(month), Int(day), Int(secondOfDay / 3600), Int(secondOfDay % 3600 / 60), Int(secondOfDay % 60)
        )
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}
