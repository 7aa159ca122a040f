import Crypto
import WIFFoundation

/// The pieces of a SigV4 signature, shared by the signer and by code that verifies incoming
/// requests (a local S3 or STS endpoint recomputes the canonical request and compares signatures).
///
/// Each step writes into a caller's `[UInt8]`, so the signer builds the canonical request and the
/// string to sign in one buffer.
package enum SigV4Canonical {
    /// The only algorithm this signer produces.
    package static let algorithm = "AWS4-HMAC-SHA256"
    /// The last element of a credential scope.
    package static let terminator = "aws4_request"

    /// Headers never signed: hop-by-hop headers, and ones that proxies or HTTP clients add or
    /// rewrite after signing (the same set botocore leaves out).
    static func isUnsignable(_ name: String) -> Bool {
        switch name.utf8.count {
        case 2: return SigV4Bytes.nameEquals(name, lowercase: "te")
        case 6: return SigV4Bytes.nameEquals(name, lowercase: "expect")
        case 7:
            return SigV4Bytes.nameEquals(name, lowercase: "trailer") || SigV4Bytes.nameEquals(name, lowercase: "upgrade")
        case 10:
            return SigV4Bytes.nameEquals(name, lowercase: "connection") || SigV4Bytes.nameEquals(name, lowercase: "keep-alive")
                || SigV4Bytes.nameEquals(name, lowercase: "user-agent")
        case 13: return SigV4Bytes.nameEquals(name, lowercase: "authorization")
        case 15: return SigV4Bytes.nameEquals(name, lowercase: "x-amzn-trace-id")
        case 17: return SigV4Bytes.nameEquals(name, lowercase: "transfer-encoding")
        case 18: return SigV4Bytes.nameEquals(name, lowercase: "proxy-authenticate")
        case 19: return SigV4Bytes.nameEquals(name, lowercase: "proxy-authorization")
        default: return false
        }
    }

    // MARK: Path

    /// Appends the canonical URI of a percent-encoded path.
    ///
    /// With ``SigV4Signer/Rules/normalizesPath`` dot segments and repeated slashes are removed
    /// first. With ``SigV4Signer/Rules/encodesPathTwice`` every byte but unreserved ones and `/` is
    /// encoded again (`%` included); otherwise the path's encoding is only made canonical, which
    /// leaves a correctly encoded S3 path unchanged.
    static func appendCanonicalPath(_ path: String, rules: SigV4Signer.Rules, to buffer: inout [UInt8]) {
        var path = path
        path.withUTF8 { bytes in
            if bytes.isEmpty {
                buffer.append(SigV4Bytes.slash)
                return
            }
            if rules.normalizesPath && !Self.isNormalPath(bytes) {
                let normalized = Self.removingDotSegments(bytes)
                normalized.withUnsafeBufferPointer { Self.appendEncodedPath($0, rules: rules, to: &buffer) }
            } else {
                Self.appendEncodedPath(bytes, rules: rules, to: &buffer)
            }
        }
    }

    private static func appendEncodedPath(_ bytes: UnsafeBufferPointer<UInt8>, rules: SigV4Signer.Rules, to buffer: inout [UInt8]) {
        if rules.encodesPathTwice {
            PercentEncoding.append(bytes, keepingSlash: true, to: &buffer)
        } else {
            SigV4Bytes.appendCanonicalEncoding(bytes, keepingSlash: true, to: &buffer)
        }
    }

    /// Whether ``removingDotSegments(_:)`` would give the path back unchanged: it is not empty and has no
    /// empty, `.` or `..` segment (a trailing `/` is kept either way), so the usual path skips the copy.
    static func isNormalPath(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = bytes.first else { return false }
        var segmentStart = first == SigV4Bytes.slash ? 1 : 0
        for index in segmentStart...bytes.count where index == bytes.count || bytes[index] == SigV4Bytes.slash {
            let length = index - segmentStart
            if length == 0 {
                // Empty: allowed only at the very end, after `/` (a trailing slash, or the root path).
                if index != bytes.count { return false }
            } else if bytes[segmentStart] == SigV4Bytes.dot
                && (length == 1 || (length == 2 && bytes[segmentStart + 1] == SigV4Bytes.dot))
            {
                return false
            }
            segmentStart = index + 1
        }
        return true
    }

    /// RFC 3986 dot-segment removal plus collapsing of empty segments, as AWS services other than
    /// S3 expect: `//a/./b/../c/` becomes `/a/c/`. An empty result is `/`.
    static func removingDotSegments(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var segments: [Range<Int>] = []
        var start = 0
        var index = 0
        while index <= bytes.count {
            if index == bytes.count || bytes[index] == SigV4Bytes.slash {
                let length = index - start
                if length == 2 && bytes[start] == SigV4Bytes.dot && bytes[start + 1] == SigV4Bytes.dot {
                    if !segments.isEmpty { segments.removeLast() }
                } else if length > 0 && !(length == 1 && bytes[start] == SigV4Bytes.dot) {
                    segments.append(start..<index)
                }
                start = index + 1
            }
            index += 1
        }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        if bytes.first == SigV4Bytes.slash { output.append(SigV4Bytes.slash) }
        for (position, segment) in segments.enumerated() {
            if position > 0 { output.append(SigV4Bytes.slash) }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[segment]))
        }
        if bytes.last == SigV4Bytes.slash && !segments.isEmpty { output.append(SigV4Bytes.slash) }
        if output.isEmpty { output.append(SigV4Bytes.slash) }
        return output
    }

    // MARK: Query

    /// Appends the canonical query string: every `name=value` pair of the percent-encoded query
    /// with its encoding made canonical, plus `extra` pairs (already canonical), sorted by name
    /// then value. A parameter without `=` gets an empty value; empty pairs are dropped.
    /// - Parameters:
    ///   - query: The query as sent, without `?`.
    ///   - extra: Pairs to add, such as the `X-Amz-*` parameters of a presigned URL.
    ///   - excluding: A canonical parameter name to leave out (`X-Amz-Signature` when verifying).
    ///   - buffer: Where to write.
    static func appendCanonicalQuery(
        _ query: String,
        extra: [(name: String, value: String)] = [],
        excluding: String? = nil,
        to buffer: inout [UInt8]
    ) {
        if query.isEmpty && extra.isEmpty { return }
        // Canonical names and values are written into one scratch buffer; each parameter is the
        // range of its name and the end of its value in it.
        var scratch: [UInt8] = []
        scratch.reserveCapacity(query.utf8.count + extra.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count })
        var parameters: [(nameStart: Int, nameEnd: Int, valueEnd: Int)] = []
        parameters.reserveCapacity(extra.count + 4)
        let excludedBytes = excluding.map { Array($0.utf8) }

        var query = query
        query.withUTF8 { bytes in
            var start = 0
            var index = 0
            while index <= bytes.count {
                if index == bytes.count || bytes[index] == SigV4Bytes.ampersand {
                    if index > start {
                        var separator = index
                        for position in start..<index where bytes[position] == SigV4Bytes.equals {
                            separator = position
                            break
                        }
                        let nameStart = scratch.count
                        SigV4Bytes.appendCanonicalEncoding(
                            UnsafeBufferPointer(rebasing: bytes[start..<separator]), keepingSlash: false, to: &scratch)
                        let nameEnd = scratch.count
                        if separator < index {
                            SigV4Bytes.appendCanonicalEncoding(
                                UnsafeBufferPointer(rebasing: bytes[(separator + 1)..<index]), keepingSlash: false,
                                to: &scratch)
                        }
                        if let excludedBytes, scratch[nameStart..<nameEnd].elementsEqual(excludedBytes) {
                            scratch.removeSubrange(nameStart...)
                        } else {
                            parameters.append((nameStart, nameEnd, scratch.count))
                        }
                    }
                    start = index + 1
                }
                index += 1
            }
        }
        for pair in extra {
            let nameStart = scratch.count
            SigV4Bytes.append(pair.name, to: &scratch)
            let nameEnd = scratch.count
            SigV4Bytes.append(pair.value, to: &scratch)
            parameters.append((nameStart, nameEnd, scratch.count))
        }

        scratch.withUnsafeBufferPointer { stored in
            parameters.sort { left, right in
                let leftName = UnsafeBufferPointer(rebasing: stored[left.nameStart..<left.nameEnd])
                let rightName = UnsafeBufferPointer(rebasing: stored[right.nameStart..<right.nameEnd])
                if !leftName.elementsEqual(rightName) { return leftName.lexicographicallyPrecedes(rightName) }
                return UnsafeBufferPointer(rebasing: stored[left.nameEnd..<left.valueEnd])
                    .lexicographicallyPrecedes(UnsafeBufferPointer(rebasing: stored[right.nameEnd..<right.valueEnd]))
            }
            for (position, parameter) in parameters.enumerated() {
                if position > 0 { buffer.append(SigV4Bytes.ampersand) }
                buffer.append(contentsOf: UnsafeBufferPointer(rebasing: stored[parameter.nameStart..<parameter.nameEnd]))
                buffer.append(SigV4Bytes.equals)
                buffer.append(contentsOf: UnsafeBufferPointer(rebasing: stored[parameter.nameEnd..<parameter.valueEnd]))
            }
        }
    }

    // MARK: Headers

    /// A header taking part in a signature. `order` keeps the send order of repeated names.
    struct HeaderEntry {
        /// The name with ASCII letters lowercased.
        var name: String
        var value: String
        var order: Int

        init(name: String, value: String, order: Int) {
            self.name = SigV4Bytes.asciiLowercased(name)
            self.value = value
            self.order = order
        }

        /// An entry whose name is already lowercase.
        init(lowercasedName: String, value: String, order: Int) {
            self.name = lowercasedName
            self.value = value
            self.order = order
        }
    }

    /// Sorts headers by lowercase name, keeping the send order of values under one name.
    static func sortHeaders(_ entries: inout [HeaderEntry]) {
        entries.sort { left, right in
            let comparison = SigV4Bytes.utf8Compare(left.name, right.name)
            return comparison != 0 ? comparison < 0 : left.order < right.order
        }
    }

    /// Appends `name1;name2;…`: the distinct lowercase names of sorted headers.
    static func appendSignedHeaders(_ sorted: [HeaderEntry], to buffer: inout [UInt8]) {
        for index in sorted.indices {
            if index > 0 {
                if SigV4Bytes.utf8Compare(sorted[index - 1].name, sorted[index].name) == 0 { continue }
                buffer.append(SigV4Bytes.semicolon)
            }
            SigV4Bytes.append(sorted[index].name, to: &buffer)
        }
    }

    /// Appends `name:value1,value2\n` per distinct name of sorted headers, values trimmed and
    /// inner whitespace folded to one space.
    static func appendCanonicalHeaders(_ sorted: [HeaderEntry], to buffer: inout [UInt8]) {
        for index in sorted.indices {
            if index > 0, SigV4Bytes.utf8Compare(sorted[index - 1].name, sorted[index].name) == 0 {
                buffer.append(SigV4Bytes.comma)
            } else {
                if index > 0 { buffer.append(SigV4Bytes.newline) }
                SigV4Bytes.append(sorted[index].name, to: &buffer)
                buffer.append(SigV4Bytes.colon)
            }
            SigV4Bytes.appendTrimmedValue(sorted[index].value, to: &buffer)
        }
        if !sorted.isEmpty { buffer.append(SigV4Bytes.newline) }
    }

    // MARK: Canonical request, string to sign, signature

    /// Appends a whole canonical request: method, canonical URI, canonical query, canonical
    /// headers, a blank line, signed headers and the payload hash, separated by newlines.
    static func appendCanonicalRequest(
        method: String,
        path: String,
        query: String,
        extraQuery: [(name: String, value: String)],
        excludingQueryParameter: String?,
        sortedHeaders: [HeaderEntry],
        signedHeaders: UnsafeBufferPointer<UInt8>,
        payloadHash: String,
        rules: SigV4Signer.Rules,
        to buffer: inout [UInt8]
    ) {
        SigV4Bytes.append(method, to: &buffer)
        buffer.append(SigV4Bytes.newline)
        Self.appendCanonicalPath(path, rules: rules, to: &buffer)
        buffer.append(SigV4Bytes.newline)
        Self.appendCanonicalQuery(query, extra: extraQuery, excluding: excludingQueryParameter, to: &buffer)
        buffer.append(SigV4Bytes.newline)
        Self.appendCanonicalHeaders(sortedHeaders, to: &buffer)
        buffer.append(SigV4Bytes.newline)
        buffer.append(contentsOf: signedHeaders)
        buffer.append(SigV4Bytes.newline)
        SigV4Bytes.append(payloadHash, to: &buffer)
    }

    /// Appends the string to sign for a canonical request:
    /// `AWS4-HMAC-SHA256\n<amz date>\n<scope>\n<hex SHA-256 of the canonical request>`.
    static func appendStringToSign(
        canonicalRequestHash: SHA256.Digest,
        amzDate: String,
        scope: String,
        to buffer: inout [UInt8]
    ) {
        SigV4Bytes.append(Self.algorithm, to: &buffer)
        buffer.append(SigV4Bytes.newline)
        SigV4Bytes.append(amzDate, to: &buffer)
        buffer.append(SigV4Bytes.newline)
        SigV4Bytes.append(scope, to: &buffer)
        buffer.append(SigV4Bytes.newline)
        canonicalRequestHash.withUnsafeBytes { SigV4Bytes.appendHex($0, to: &buffer) }
    }
}
