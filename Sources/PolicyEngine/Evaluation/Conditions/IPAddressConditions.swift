import WIFFoundation

/// `IpAddress` and `NotIpAddress`: the request address (such as `aws:SourceIp`) lies in a policy CIDR
/// range. IPv4 and IPv6 are both supported; an address only matches ranges of its own family. A policy value
/// without a prefix length is a single address.
enum IPAddressConditions {
    static func firstMatch(_ blocks: [CIDRBlock], _ requestValue: [UInt8]) -> Int? {
        guard let address = IPAddress.parse(requestValue[...]) else { return nil }
        return blocks.firstIndex { $0.contains(address) }
    }
}

/// An IPv4 or IPv6 address as a 128-bit value (IPv4 uses the low 32 bits).
struct IPAddress: Sendable, Hashable {
    var isIPv6: Bool
    var high: UInt64
    var low: UInt64

    static func parse(_ text: ArraySlice<UInt8>) -> IPAddress? {
        guard !text.isEmpty, text.count <= 45 else { return nil }
        if text.contains(UInt8(ascii: ":")) { return parseIPv6(text) }
        return parseIPv4(text).map { IPAddress(isIPv6: false, high: 0, low: UInt64($0)) }
    }

    private static func parseIPv4(_ text: ArraySlice<UInt8>) -> UInt32? {
        var value: UInt32 = 0
        var octets = 0
        var current = -1
        var digits = 0
        for byte in text {
            if byte == UInt8(ascii: ".") {
                guard current >= 0, octets < 3 else { return nil }
                value = value << 8 | UInt32(current)
                octets += 1
                current = -1
                digits = 0
            } else if let digit = digitValue(byte) {
                digits += 1
                guard digits <= 3 else { return nil }
                current = (current < 0 ? 0 : current) * 10 + digit
                guard current <= 255 else { return nil }
            } else {
                return nil
            }
        }
        guard current >= 0, octets == 3 else { return nil }
        return value << 8 | UInt32(current)
    }

    private static func parseIPv6(_ text: ArraySlice<UInt8>) -> IPAddress? {
        // A single leading or trailing colon is malformed; only "::" may stand at either end.
        let raw = Array(text)
        if raw.first == UInt8(ascii: ":"), raw.count < 2 || raw[1] != UInt8(ascii: ":") { return nil }
        if raw.last == UInt8(ascii: ":"), raw.count < 2 || raw[raw.count - 2] != UInt8(ascii: ":") { return nil }
        var head: [UInt16] = []
        var tail: [UInt16] = []
        var sawDoubleColon = false
        var groups = Array(text).split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
        // Handle a leading or trailing "::" (which split into an extra empty group).
        if groups.count >= 2, groups.first?.isEmpty == true, groups[1].isEmpty { groups.removeFirst() }
        if groups.count >= 2, groups.last?.isEmpty == true, groups[groups.count - 2].isEmpty { groups.removeLast() }
        for (index, group) in groups.enumerated() {
            if group.isEmpty {
                guard !sawDoubleColon else { return nil }
                sawDoubleColon = true
                continue
            }
            if index == groups.count - 1, group.contains(UInt8(ascii: ".")) {
                guard let v4 = parseIPv4(group) else { return nil }
                let pieces = [UInt16(v4 >> 16), UInt16(v4 & 0xFFFF)]
                if sawDoubleColon { tail += pieces } else { head += pieces }
                continue
            }
            guard group.count <= 4 else { return nil }
            var value: UInt16 = 0
            for byte in group {
                guard let digit = PercentEncoding.hexValue(byte) else { return nil }
                value = value << 4 | UInt16(digit)
            }
            if sawDoubleColon { tail.append(value) } else { head.append(value) }
        }
        let total = head.count + tail.count
        if sawDoubleColon {
            guard total <= 7 else { return nil }
        } else {
            guard total == 8 else { return nil }
        }
        let words = head + Array(repeating: 0, count: 8 - total) + tail
        var high: UInt64 = 0
        var low: UInt64 = 0
        for index in 0..<4 { high = high << 16 | UInt64(words[index]) }
        for index in 4..<8 { low = low << 16 | UInt64(words[index]) }
        return IPAddress(isIPv6: true, high: high, low: low)
    }
}

/// A CIDR range such as `203.0.113.0/24` or `2001:db8::/32`.
struct CIDRBlock: Sendable, Hashable {
    var address: IPAddress
    var prefixLength: Int

    static func parse(_ text: String) -> CIDRBlock? {
        let bytes = Array(text.utf8)
        if let slash = bytes.firstIndex(of: UInt8(ascii: "/")) {
            guard let address = IPAddress.parse(bytes[..<slash]) else { return nil }
            let digits = bytes[(slash + 1)...]
            guard !digits.isEmpty, digits.count <= 3, digits.allSatisfy({ digitValue($0) != nil }) else { return nil }
            let length = digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
            guard length <= (address.isIPv6 ? 128 : 32) else { return nil }
            return CIDRBlock(address: address, prefixLength: length)
        }
        guard let address = IPAddress.parse(bytes[...]) else { return nil }
        return CIDRBlock(address: address, prefixLength: address.isIPv6 ? 128 : 32)
    }

    func contains(_ other: IPAddress) -> Bool {
        guard other.isIPv6 == self.address.isIPv6 else { return false }
        if !other.isIPv6 {
            let mask: UInt64 = self.prefixLength == 0 ? 0 : (UInt64(0xFFFF_FFFF) << UInt64(32 - self.prefixLength)) & 0xFFFF_FFFF
            return other.low & mask == self.address.low & mask
        }
        let highMask: UInt64 = self.prefixLength >= 64 ? .max : (self.prefixLength == 0 ? 0 : .max << UInt64(64 - self.prefixLength))
        let lowBits = self.prefixLength - 64
        let lowMask: UInt64 = lowBits <= 0 ? 0 : (lowBits >= 64 ? .max : .max << UInt64(64 - lowBits))
        return other.high & highMask == self.address.high & highMask && other.low & lowMask == self.address.low & lowMask
    }
}
