import Foundation
import WIFFoundation

/// Byte-level helpers for building SigV4 strings: hex, percent-encoding, whitespace folding and
/// the `X-Amz-Date` timestamp. Everything writes into a caller's `[UInt8]` so a signature is
/// built without intermediate strings.
package enum SigV4Bytes {
    static let space: UInt8 = 0x20
    static let newline: UInt8 = 0x0A
    static let slash: UInt8 = 0x2F
    static let percent: UInt8 = 0x25
    static let ampersand: UInt8 = 0x26
    static let equals: UInt8 = 0x3D
    static let colon: UInt8 = 0x3A
    static let comma: UInt8 = 0x2C
    static let semicolon: UInt8 = 0x3B
    static let dot: UInt8 = 0x2E

    @inline(__always)
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (byte >= 0x09 && byte <= 0x0D)
    }

    @inline(__always)
    static func lowercased(_ byte: UInt8) -> UInt8 {
        byte &- 0x41 < 26 ? byte | 0x20 : byte
    }

    @inline(__always)
    static func lowerHexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? 0x30 &+ nibble : 0x57 &+ nibble
    }

    /// Appends bytes as lowercase hex (digests, signatures).
    static func appendHex(_ bytes: UnsafeRawBufferPointer, to buffer: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bytes.count * 2) { output in
            guard let out = output.baseAddress else { return }
            writeHex(bytes, to: out)
            buffer.append(contentsOf: UnsafeBufferPointer(output))
        }
    }

    /// Writes `2 * bytes.count` lowercase hex digits at `out`.
    @inline(__always)
    private static func writeHex(_ bytes: UnsafeRawBufferPointer, to out: UnsafeMutablePointer<UInt8>) {
        var position = out
        for byte in bytes {
            position.pointee = lowerHexDigit(byte >> 4)
            (position + 1).pointee = lowerHexDigit(byte & 0x0F)
            position += 2
        }
    }

    /// Lowercase hex of a digest or MAC as a `String`.
    package static func hexString(_ bytes: some ContiguousBytes) -> String {
        bytes.withUnsafeBytes { raw in
            String(unsafeUninitializedCapacity: raw.count * 2) { output in
                guard let out = output.baseAddress else { return 0 }
                writeHex(raw, to: out)
                return raw.count * 2
            }
        }
    }

    /// Writes already percent-encoded text in canonical form: each valid `%XX` escape is decoded
    /// and the byte re-encoded (so `%7E` becomes `~`, `%2f` becomes `%2F`), other reserved bytes
    /// are encoded, and a stray `%` becomes `%25`. Text that is already canonical comes out
    /// unchanged, so this never encodes twice. A decoded slash stays `%2F`; a literal one is kept
    /// only with `keepingSlash`. `+` is a literal plus, not a space.
    static func appendCanonicalEncoding(_ bytes: UnsafeBufferPointer<UInt8>, keepingSlash: Bool, to buffer: inout [UInt8]) {
        var runStart = 0
        var index = 0
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            if PercentEncoding.isUnreserved(byte) || (keepingSlash && byte == slash) {
                index += 1
                continue
            }
            if runStart < index { buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index])) }
            if byte == percent, index + 2 < count, let high = PercentEncoding.hexValue(bytes[index + 1]),
                let low = PercentEncoding.hexValue(bytes[index + 2])
            {
                let decoded = high << 4 | low
                if PercentEncoding.isUnreserved(decoded) {
                    buffer.append(decoded)
                } else {
                    PercentEncoding.appendEscape(decoded, to: &buffer)
                }
                index += 3
            } else {
                PercentEncoding.appendEscape(byte, to: &buffer)
                index += 1
            }
            runStart = index
        }
        if runStart < count { buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...])) }
    }

    /// Appends a string's UTF-8 bytes with one copy.
    @inline(__always)
    static func append(_ text: String, to buffer: inout [UInt8]) {
        withBytes(text) { buffer.append(contentsOf: $0) }
    }

    /// Appends a literal's UTF-8 bytes with one copy.
    @inline(__always)
    static func append(_ text: StaticString, to buffer: inout [UInt8]) {
        text.withUTF8Buffer { buffer.append(contentsOf: $0) }
    }

    /// Runs `body` on a string's UTF-8 bytes without copying them when the string is native.
    @inline(__always)
    static func withBytes<Result>(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        if let result = text.utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = text
        return copy.withUTF8(body)
    }

    /// Appends a header value with leading and trailing whitespace removed and each run of inner
    /// whitespace (including folded line breaks) replaced by one space.
    static func appendTrimmedValue(_ value: String, to buffer: inout [UInt8]) {
        withBytes(value) { bytes in
            if isTrimmed(bytes) {
                buffer.append(contentsOf: bytes)
                return
            }
            var pendingSpace = false
            var wroteAny = false
            for byte in bytes {
                if isWhitespace(byte) {
                    pendingSpace = wroteAny
                    continue
                }
                if pendingSpace {
                    buffer.append(space)
                    pendingSpace = false
                }
                buffer.append(byte)
                wroteAny = true
            }
        }
    }

    /// Whether a value needs no trimming: no whitespace at either end, only single spaces inside.
    private static func isTrimmed(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        // Fast path: no byte at or below 0x20 (all whitespace is there). `byte - 0x21` has its top
        // bit set for those, and for bytes from 0xA1 up, which only send us to the exact check.
        var flags: UInt8 = 0
        for byte in bytes { flags |= (byte &- 0x21) & 0x80 }
        if flags == 0 { return true }

        guard let first = bytes.first, let last = bytes.last else { return true }
        if isWhitespace(first) || isWhitespace(last) { return false }
        var previous = first
        for byte in bytes {
            // Whitespace bytes are all at or below 0x20.
            if byte <= space && (byte != space || previous == space) { return false }
            previous = byte
        }
        return true
    }

    /// A copy of a header name with ASCII letters lowercased; the same string when it has none.
    static func asciiLowercased(_ text: String) -> String {
        let hasUppercase = withBytes(text) { bytes in bytes.contains { $0 &- 0x41 < 26 } }
        guard hasUppercase else { return text }
        return withBytes(text) { bytes in
            String(unsafeUninitializedCapacity: bytes.count) { output in
                for index in 0..<bytes.count { output[index] = lowercased(bytes[index]) }
                return bytes.count
            }
        }
    }

    /// Orders two strings by their UTF-8 bytes (not by Unicode collation, which SigV4 does not use).
    @inline(__always)
    static func utf8Compare(_ lhs: String, _ rhs: String) -> Int {
        let fast = lhs.utf8.withContiguousStorageIfAvailable { left in
            rhs.utf8.withContiguousStorageIfAvailable { right -> Int in
                let common = min(left.count, right.count)
                if common > 0, let l = left.baseAddress, let r = right.baseAddress {
                    let result = memcmp(l, r, common)
                    if result != 0 { return result < 0 ? -1 : 1 }
                }
                return left.count == right.count ? 0 : (left.count < right.count ? -1 : 1)
            }
        }
        if let fast = fast ?? nil { return fast }
        if lhs.utf8.elementsEqual(rhs.utf8) { return 0 }
        return lhs.utf8.lexicographicallyPrecedes(rhs.utf8) ? -1 : 1
    }

    /// Whether two strings hold the same UTF-8 bytes once ASCII letters are folded to lowercase: how
    /// header names are matched. Different lengths end it at once, so a name is told from the others
    /// of a list without reading them.
    @inline(__always)
    static func equalsCaseInsensitive(_ lhs: String, _ rhs: String) -> Bool {
        guard lhs.utf8.count == rhs.utf8.count else { return false }
        return withBytes(lhs) { left in
            withBytes(rhs) { right in
                for index in 0..<left.count where lowercased(left[index]) != lowercased(right[index]) { return false }
                return true
            }
        }
    }

    /// Whether a header name equals an all-lowercase ASCII name, ignoring case.
    @inline(__always)
    static func nameEquals(_ name: String, lowercase expected: StaticString) -> Bool {
        guard name.utf8.count == expected.utf8CodeUnitCount else { return false }
        return withBytes(name) { bytes in
            expected.withUTF8Buffer { expectedBytes in
                for index in 0..<bytes.count where lowercased(bytes[index]) != expectedBytes[index] {
                    return false
                }
                return true
            }
        }
    }
}

/// The time of a signature in its two SigV4 forms: `20150830T123600Z` and the `20150830` date.
struct SigV4Timestamp: Sendable, Hashable {
    /// `yyyyMMdd'T'HHmmss'Z'` in UTC.
    let amzDate: String
    /// `yyyyMMdd` in UTC, the date part of the credential scope.
    let day: String

    /// The latest second SigV4's four-digit year can express: 9999-12-31T23:59:59Z.
    static let latestSecond: Int64 = AWSDate.latestSecond

    init(_ date: Date) throws {
        let interval = date.timeIntervalSince1970
        guard interval.isFinite, interval >= 0, interval < Double(Self.latestSecond + 1) else {
            throw SigV4Error.signing("the signing date \(date) is outside 1970-01-01...9999-12-31")
        }
        self.init(secondsSince1970: Int64(interval.rounded(.down)))
    }

    /// - Precondition: `secondsSince1970` is in `0...latestSecond`.
    init(secondsSince1970 seconds: Int64) {
        self.amzDate = AWSDate.basic(seconds)
        // The scope's date is the first eight characters of the time: no second calendar conversion.
        self.day = String(self.amzDate.prefix(8))
    }
}
