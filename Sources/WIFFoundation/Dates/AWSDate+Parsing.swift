extension AWSDate {
    /// Reads `yyyyMMdd'T'HHmmss'Z'`, SigV4's `X-Amz-Date`.
    /// - Returns: Seconds since 1970, or `nil` when the text is not exactly that form, names no real
    ///   time, or lies before 1970.
    package static func parseBasic(_ text: some StringProtocol) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count == 16, bytes[8] == UInt8(ascii: "T"), bytes[15] == UInt8(ascii: "Z") else { return nil }
        guard let year = Self.number(bytes, 0, 4), let month = Self.number(bytes, 4, 2), let day = Self.number(bytes, 6, 2),
            let hour = Self.number(bytes, 9, 2), let minute = Self.number(bytes, 11, 2), let second = Self.number(bytes, 13, 2),
            year >= 1970
        else { return nil }
        return Self.seconds(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    }

    /// Reads an HTTP date in exactly its preferred form (the IMF-fixdate of RFC 9110),
    /// `Sun, 06 Nov 1994 08:49:37 GMT`, as SigV4 reads a signed `Date` header.
    /// - Returns: Seconds since 1970, or `nil` for any other text.
    package static func parseIMFFixdate(_ text: some StringProtocol) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count == 29, bytes[3] == UInt8(ascii: ","), bytes[4] == 0x20, bytes[7] == 0x20, bytes[11] == 0x20,
            bytes[16] == 0x20, bytes[19] == UInt8(ascii: ":"), bytes[22] == UInt8(ascii: ":"), bytes[25] == 0x20,
            bytes[26...].elementsEqual("GMT".utf8)
        else { return nil }
        guard let month = Self.month(String(decoding: bytes[8..<11], as: UTF8.self), caseSensitive: true),
            let day = Self.number(bytes, 5, 2), let year = Self.number(bytes, 12, 4), let hour = Self.number(bytes, 17, 2),
            let minute = Self.number(bytes, 20, 2), let second = Self.number(bytes, 23, 2), year >= 1970
        else { return nil }
        return Self.seconds(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    }

    /// Reads an HTTP date in any of the three forms HTTP recipients accept: the IMF-fixdate
    /// (`Sun, 06 Nov 1994 08:49:37 GMT`, also with `UTC`), RFC 850 (`Sunday, 06-Nov-94 08:49:37 GMT`)
    /// and asctime (`Sun Nov  6 08:49:37 1994`).
    /// - Returns: Seconds since 1970, or `nil` when the text is none of them or names no real time.
    package static func parseHTTPDate(_ text: some StringProtocol) -> Int64? {
        let words = String(text).split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
        var day: Int64?
        var month: Int64?
        var year: Int64?
        var time: (Int64, Int64, Int64)?
        switch words.count {
        case 4 where words[1].contains("-"):
            guard words[3] == "GMT" else { return nil }
            let parts = words[1].split(separator: "-").map(String.init)
            guard parts.count == 3 else { return nil }
            day = Int64(parts[0])
            month = Self.month(parts[1], caseSensitive: false)
            year = Int64(parts[2]).map { $0 < 100 ? ($0 < 70 ? 2000 + $0 : 1900 + $0) : $0 }
            time = Self.time(words[2])
        case 6:
            guard words[5] == "GMT" || words[5] == "UTC" else { return nil }
            day = Int64(words[1])
            month = Self.month(words[2], caseSensitive: false)
            year = Int64(words[3])
            time = Self.time(words[4])
        case 5:
            month = Self.month(words[1], caseSensitive: false)
            day = Int64(words[2])
            time = Self.time(words[3])
            year = Int64(words[4])
        default:
            return nil
        }
        guard let day, let month, let year, let time, (1...9999).contains(year) else { return nil }
        return Self.seconds(year: year, month: month, day: day, hour: time.0, minute: time.1, second: time.2, leapSecond: true)
    }

    /// Reads an ISO 8601 date or date-time: `2024-05-01`, `2024-05-01T12:00:00Z`,
    /// `2024-05-01T12:00:00.250+02:00`, `2024-05-01 12:00` (a missing zone is UTC).
    /// - Parameters:
    ///   - text: The text.
    ///   - requiringTime: Refuse a date alone and a date-time without seconds and zone designator,
    ///     as S3's `yyyy-MM-dd'T'HH:mm:ss[.SSS]Z` requires.
    /// - Returns: Milliseconds since 1970 (fractions past the millisecond dropped), or `nil`.
    package static func parseISO8601(_ text: some StringProtocol, requiringTime: Bool = false) -> Int64? {
        Self.parseISO8601(bytes: Array(text.utf8), requiringTime: requiringTime)
    }

    /// ``parseISO8601(_:requiringTime:)`` over UTF-8 bytes.
    package static func parseISO8601(bytes: [UInt8], requiringTime: Bool = false) -> Int64? {
        guard !bytes.isEmpty, bytes.count <= 64 else { return nil }
        var index = 0
        func number(_ count: Int) -> Int64? {
            guard index + count <= bytes.count, let value = Self.number(bytes, index, count) else { return nil }
            index += count
            return value
        }
        func expect(_ character: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == character else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect(UInt8(ascii: "-")), let month = number(2), expect(UInt8(ascii: "-")),
            let day = number(2), (1...12).contains(month), day >= 1, day <= Self.daysInMonth(year: year, month: month)
        else { return nil }
        var hour: Int64 = 0
        var minute: Int64 = 0
        var second: Int64 = 0
        var milliseconds: Int64 = 0
        var offsetMinutes: Int64 = 0
        var hasSeconds = false
        var hasZone = false
        if index < bytes.count {
            guard bytes[index] == UInt8(ascii: "T") || bytes[index] == UInt8(ascii: "t") || bytes[index] == UInt8(ascii: " ")
            else { return nil }
            index += 1
            guard let parsedHour = number(2), expect(UInt8(ascii: ":")), let parsedMinute = number(2) else { return nil }
            hour = parsedHour
            minute = parsedMinute
            if expect(UInt8(ascii: ":")) {
                guard let parsedSecond = number(2) else { return nil }
                second = parsedSecond
                hasSeconds = true
                if expect(UInt8(ascii: ".")) || expect(UInt8(ascii: ",")) {
                    var scale: Int64 = 100
                    var digits = 0
                    while index < bytes.count, let digit = Self.digit(bytes[index]) {
                        milliseconds += digit * scale
                        scale /= 10
                        digits += 1
                        index += 1
                    }
                    guard digits > 0 else { return nil }
                }
            }
            guard hour <= 23 || (hour == 24 && minute == 0 && second == 0 && milliseconds == 0), minute <= 59, second <= 60
            else { return nil }
            if index < bytes.count {
                let designator = bytes[index]
                hasZone = true
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
        guard index == bytes.count, !requiringTime || (hasSeconds && hasZone) else { return nil }
        let days = Self.daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second + offsetMinutes * 60
        return seconds * 1000 + milliseconds
    }

    /// Reads epoch seconds as IAM date conditions accept them: an optional minus sign, up to 15
    /// digits and an optional fraction.
    /// - Returns: Milliseconds since 1970, or `nil`.
    package static func parseEpochSeconds(_ text: some StringProtocol) -> Int64? {
        Self.parseEpochSeconds(bytes: Array(text.utf8))
    }

    /// ``parseEpochSeconds(_:)`` over UTF-8 bytes.
    package static func parseEpochSeconds(bytes: [UInt8]) -> Int64? {
        guard !bytes.isEmpty, bytes.count <= 64 else { return nil }
        var index = 0
        var negative = false
        if bytes[0] == UInt8(ascii: "-") {
            negative = true
            index = 1
        }
        guard index < bytes.count else { return nil }
        var seconds: Int64 = 0
        var digits = 0
        while index < bytes.count, let digit = Self.digit(bytes[index]) {
            guard digits < 15 else { return nil }
            seconds = seconds * 10 + digit
            digits += 1
            index += 1
        }
        guard digits > 0 else { return nil }
        var milliseconds: Int64 = 0
        if index < bytes.count {
            guard bytes[index] == UInt8(ascii: "."), index + 1 < bytes.count else { return nil }
            index += 1
            var scale: Int64 = 100
            while index < bytes.count, let digit = Self.digit(bytes[index]) {
                milliseconds += digit * scale
                scale /= 10
                index += 1
            }
            guard index == bytes.count else { return nil }
        }
        let total = seconds * 1000 + milliseconds
        return negative ? -total : total
    }

    /// Reads a time as IAM date conditions accept it: epoch seconds or ISO 8601.
    /// - Returns: Milliseconds since 1970, or `nil`.
    package static func parseConditionDate(bytes: [UInt8]) -> Int64? {
        Self.parseEpochSeconds(bytes: bytes) ?? Self.parseISO8601(bytes: bytes)
    }

    // MARK: Pieces

    private static let monthNames = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    private static func month(_ text: String, caseSensitive: Bool) -> Int64? {
        guard text.utf8.count == 3 else { return nil }
        if caseSensitive {
            guard let first = text.first, first.isUppercase, text.dropFirst().allSatisfy(\.isLowercase) else { return nil }
        }
        return Self.monthNames.firstIndex(of: text.lowercased()).map { Int64($0) + 1 }
    }

    private static func time(_ text: String) -> (Int64, Int64, Int64)? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ (1...2).contains($0.count) }),
            let hour = Int64(parts[0]), let minute = Int64(parts[1]), let second = Int64(parts[2])
        else { return nil }
        return (hour, minute, second)
    }

    @inline(__always)
    private static func digit(_ byte: UInt8) -> Int64? {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") ? Int64(byte - UInt8(ascii: "0")) : nil
    }

    private static func number(_ bytes: [UInt8], _ start: Int, _ count: Int) -> Int64? {
        guard start + count <= bytes.count else { return nil }
        var value: Int64 = 0
        for index in start..<(start + count) {
            guard let digit = Self.digit(bytes[index]) else { return nil }
            value = value * 10 + digit
        }
        return value
    }
}
