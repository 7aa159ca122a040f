import Foundation

/// The bucket and key a request names, from its `Host` header and raw path.
///
/// Two addressing styles are understood:
/// - Path style: `http://127.0.0.1:PORT/bucket/key`. The first path segment is the bucket, the rest the key.
/// - Virtual-hosted style: `http://bucket.localhost:PORT/key`. The bucket is the part of the host before a
///   *base domain*, and the whole path is the key. See ``S3HostRule`` for which hosts count.
///
/// The path is percent-decoded exactly once, so a key may hold `%2F` (a slash in the key) or `%25`; `+` in a
/// path is a literal plus.
struct S3Address: Sendable, Hashable {
    /// The bucket, if the request names one.
    var bucket: String?
    /// The key, if the request names an object; never empty.
    var key: String?
    /// Whether the bucket came from the host name.
    var virtualHosted: Bool

    init(bucket: String? = nil, key: String? = nil, virtualHosted: Bool = false) {
        self.bucket = bucket
        self.key = key
        self.virtualHosted = virtualHosted
    }

    /// The longest key S3 accepts, in bytes of UTF-8.
    static let maximumKeyLength = ObjectKey.maximumByteCount

    /// Finds the bucket and key of a request.
    /// - Parameters:
    ///   - host: The `Host` header (or `:authority`), with or without a port.
    ///   - rawPath: The request path as sent, still percent-encoded, without the query.
    ///   - rule: Which hosts carry a bucket name.
    /// - Throws: `InvalidURI` when the path has a malformed escape or is not UTF-8 once decoded,
    ///   `KeyTooLongError` for a key over 1024 bytes.
    init(host: String?, rawPath: String, rule: S3HostRule) throws(AWSErrorResponse) {
        let path = rawPath.isEmpty ? "/" : rawPath
        guard path.hasPrefix("/") else { throw S3Errors.invalidURI(path) }
        let hostBucket = host.flatMap { rule.bucket(inHost: $0) }
        let remainder = path.utf8.dropFirst()
        if let hostBucket {
            self.init(bucket: hostBucket, key: try Self.key(Substring(remainder), rawPath: path), virtualHosted: true)
            return
        }
        // Path style: /bucket[/key]
        guard !remainder.isEmpty else {
            self.init()
            return
        }
        let slash = remainder.firstIndex(of: UInt8(ascii: "/"))
        let bucketPart = Substring(remainder[remainder.startIndex..<(slash ?? remainder.endIndex)])
        guard let bucket = S3PercentDecoding.decode(bucketPart, plusIsSpace: false) else { throw S3Errors.invalidURI(path) }
        var key: String?
        if let slash {
            key = try Self.key(Substring(remainder[remainder.index(after: slash)...]), rawPath: path)
        }
        self.init(bucket: bucket.isEmpty ? nil : bucket, key: key, virtualHosted: false)
    }

    private static func key(_ raw: Substring, rawPath: String) throws(AWSErrorResponse) -> String? {
        guard !raw.isEmpty else { return nil }
        guard let key = S3PercentDecoding.decode(raw, plusIsSpace: false) else { throw S3Errors.invalidURI(rawPath) }
        guard key.utf8.count <= Self.maximumKeyLength else { throw ObjectStoreError.keyTooLong(byteCount: key.utf8.count) }
        return key
    }
}

/// Which `Host` names carry a bucket (virtual-hosted-style addressing).
///
/// A host names a bucket when it is `<bucket>.<base>` for a base domain, the bucket being everything before the
/// base (so it may hold dots). The base domains are, in this order:
/// 1. the configured ones (``baseDomains``), `s3.localhost` and `localhost` by default;
/// 2. S3's own endpoints: `s3.amazonaws.com`, `s3.<region>.amazonaws.com`, `s3-<region>.amazonaws.com` and
///    `s3.dualstack.<region>.amazonaws.com` (any name ending in `.amazonaws.com` whose first label after the
///    bucket starts with `s3`);
/// 3. wildcard DNS names of an address: `<IPv4>.nip.io` and `<IPv4>.sslip.io`.
///
/// Anything else — an IP address, a base domain itself (`localhost`, `s3.localhost`, `127.0.0.1.nip.io`), any
/// other name — means path-style addressing. The port is ignored and names compare without regard to case.
struct S3HostRule: Sendable, Hashable {
    /// The configured base domains, lowercased, longest first.
    var baseDomains: [String]

    /// The default base domains.
    static let defaultBaseDomains = ["s3.localhost", "localhost"]

    init(baseDomains: [String] = S3HostRule.defaultBaseDomains) {
        self.baseDomains = baseDomains.map { $0.lowercased() }.sorted { $0.count > $1.count }
    }

    /// The bucket a host names, or `nil` for path-style addressing.
    func bucket(inHost rawHost: String) -> String? {
        let host = Self.hostName(rawHost)
        guard !host.isEmpty, !Self.isIPAddress(host), !self.baseDomains.contains(host) else { return nil }
        for base in self.baseDomains where host.count > base.count + 1 && host.hasSuffix("." + base) {
            return String(host.dropLast(base.count + 1))
        }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        if host.hasSuffix(".amazonaws.com") {
            // bucket[.more].s3[-region|.region|.dualstack.region].amazonaws.com
            guard let index = labels.firstIndex(where: { $0 == "s3" || $0.hasPrefix("s3-") }), index > 0 else { return nil }
            return labels[..<index].joined(separator: ".")
        }
        if labels.count >= 7, let last = labels.last, let service = labels.dropLast().last,
            (service == "nip" || service == "sslip") && last == "io"
        {
            // bucket[.more].A.B.C.D.nip.io
            let address = labels[(labels.count - 6)..<(labels.count - 2)].joined(separator: ".")
            guard Self.isIPv4(address) else { return nil }
            return labels[..<(labels.count - 6)].joined(separator: ".")
        }
        return nil
    }

    /// The host without its port, lowercased.
    static func hostName(_ host: String) -> String {
        // Every request's host comes through here. Printable ASCII, as hosts are, is read as bytes: each
        // byte is then one Character, so the steps below give what they give over Characters.
        guard host.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return Self.hostNameByCharacters(host) }
        var bytes = Array(host.utf8)
        if bytes.first == UInt8(ascii: "[") {
            if let close = bytes.firstIndex(of: UInt8(ascii: "]")) { bytes.removeSubrange((close + 1)...) }
        } else if let colon = bytes.lastIndex(of: UInt8(ascii: ":")) {
            bytes.removeSubrange(colon...)
        }
        if bytes.last == UInt8(ascii: ".") { bytes.removeLast() }
        for index in bytes.indices where bytes[index] >= 0x41 && bytes[index] <= 0x5A { bytes[index] += 0x20 }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// ``hostName(_:)`` over Characters, for a host that is not printable ASCII.
    static func hostNameByCharacters(_ host: String) -> String {
        var name = Substring(host)
        if name.hasPrefix("[") {
            // [IPv6]:port
            if let close = name.firstIndex(of: "]") { name = name[...close] }
        } else if let colon = name.lastIndex(of: ":") {
            name = name[..<colon]
        }
        if name.hasSuffix(".") { name = name.dropLast() }
        return name.lowercased()
    }

    static func isIPAddress(_ host: String) -> Bool {
        // ":" and "[" are ASCII: in a host of printable ASCII their bytes are their Characters.
        if host.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) {
            return host.utf8.first == UInt8(ascii: "[") || host.utf8.contains(UInt8(ascii: ":")) || Self.isIPv4(host)
        }
        return host.hasPrefix("[") || host.contains(":") || Self.isIPv4(host)
    }

    /// Whether `text` is four dot-separated numbers of one to three ASCII digits, each at most 255.
    static func isIPv4(_ text: String) -> Bool {
        // Read over UTF-8: every request's host goes through here.
        var parts = 0
        var digits = 0
        var value = 0
        for byte in text.utf8 {
            if byte == UInt8(ascii: ".") {
                guard digits > 0, parts < 3 else { return false }
                parts += 1
                digits = 0
                value = 0
            } else if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                digits += 1
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
                guard digits <= 3, value <= 255 else { return false }
            } else {
                return false
            }
        }
        return parts == 3 && digits > 0
    }
}

/// Percent-decoding of paths and query components.
enum S3PercentDecoding {
    /// Decodes `%XX` escapes once.
    /// - Parameters:
    ///   - text: The encoded text.
    ///   - plusIsSpace: Whether `+` stands for a space (query strings) or for itself (paths).
    /// - Returns: The decoded text, or `nil` for a malformed escape or bytes that are not UTF-8.
    static func decode(_ text: Substring, plusIsSpace: Bool) -> String? {
        let utf8 = text.utf8
        guard utf8.contains(UInt8(ascii: "%")) || (plusIsSpace && utf8.contains(UInt8(ascii: "+"))) else {
            return String(text)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var index = utf8.startIndex
        while index != utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%") {
                let first = utf8.index(after: index)
                guard first != utf8.endIndex else { return nil }
                let second = utf8.index(after: first)
                guard second != utf8.endIndex, let high = Self.hexValue(utf8[first]), let low = Self.hexValue(utf8[second]) else {
                    return nil
                }
                bytes.append(high << 4 | low)
                index = utf8.index(after: second)
            } else {
                bytes.append(plusIsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                index = utf8.index(after: index)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Encodes text as S3 does for `encoding-type=url` listings: every byte but unreserved characters
    /// (`A-Z a-z 0-9 - . _ ~`) and `/` becomes `%XX`.
    static func encodeForListing(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        let digits = Array("0123456789ABCDEF".utf8)
        var needs = false
        for byte in text.utf8 where !Self.isListingSafe(byte) {
            needs = true
            break
        }
        guard needs else { return text }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count * 3)
        for byte in text.utf8 {
            if Self.isListingSafe(byte) {
                bytes.append(byte)
            } else {
                bytes.append(UInt8(ascii: "%"))
                bytes.append(digits[Int(byte >> 4)])
                bytes.append(digits[Int(byte & 0x0F)])
            }
        }
        result = String(decoding: bytes, as: UTF8.self)
        return result
    }

    private static func isListingSafe(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"):
            true
        default:
            false
        }
    }
}
