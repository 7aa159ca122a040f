import Foundation

/// The two date formats S3 writes, parsed without formatters (which are slow to create): HTTP dates
/// in headers (`Sun, 06 Nov 1994 08:49:37 GMT`) and ISO 8601 in XML (`2009-10-12T17:50:30.000Z`).
enum S3Dates {
    /// Parses an IMF-fixdate (RFC 9110), the format of `Last-Modified` and `Date`.
    static func parseHTTPDate(_ text: String) -> Date? {
        // "Sun, 06 Nov 1994 08:49:37 GMT"
        let parts = text.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 6, parts[5] == "GMT" || parts[5] == "UTC" else { return nil }
        guard let day = Int(parts[1]), let year = Int(parts[3]) else { return nil }
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        guard let monthIndex = months.firstIndex(of: String(parts[2])) else { return nil }
        let time = parts[4].split(separator: ":")
        guard time.count == 3, let hour = Int(time[0]), let minute = Int(time[1]), let second = Int(time[2]) else { return nil }
        return Self.date(year: year, month: monthIndex + 1, day: day, hour: hour, minute: minute, second: second, fraction: 0)
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fff]Z`.
    static func parseISO8601(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t"), bytes[13] == UInt8(ascii: ":"),
            bytes[16] == UInt8(ascii: ":"), bytes.last == UInt8(ascii: "Z") || bytes.last == UInt8(ascii: "z")
        else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                let byte = bytes[index]
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
            let minute = number(14..<16), let second = number(17..<19)
        else { return nil }
        var fraction = 0.0
        if bytes.count > 20 {
            guard bytes[19] == UInt8(ascii: "."), bytes.count > 21 else { return nil }
            let digits = 20..<(bytes.count - 1)
            guard let value = number(digits) else { return nil }
            fraction = Double(value) / pow(10, Double(digits.count))
        } else if bytes[19] != UInt8(ascii: "Z") && bytes[19] != UInt8(ascii: "z") {
            return nil
        }
        return Self.date(year: year, month: month, day: day, hour: hour, minute: minute, second: second, fraction: fraction)
    }

    private static func date(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, fraction: Double) -> Date? {
        guard (1...12).contains(month), (1...31).contains(day), (0...23).contains(hour), (0...59).contains(minute),
            (0...60).contains(second)
        else { return nil }
        // Days from 1970-01-01 to the civil date (proleptic Gregorian).
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        let seconds = Double(days * 86_400 + hour * 3600 + minute * 60 + second) + fraction
        return Date(timeIntervalSince1970: seconds)
    }
}
