import Foundation

extension ObjectStore {
    /// Lists a bucket as `ListObjectsV2` does: keys in UTF-8 byte order, filtered by prefix, rolled up into
    /// common prefixes at the delimiter, in pages of at most `maxKeys` entries (keys and common prefixes
    /// together).
    ///
    /// The continuation token is the base64 of the last entry returned. A common prefix at or before the
    /// marker (a continuation token, `start-after`, or ListObjects' `marker`) is skipped whole: a marker
    /// inside a common prefix means the prefix was returned already, so a client paging by `NextMarker`
    /// moves on.
    /// - Throws: `NoSuchBucket`; `InvalidArgument` for a negative `maxKeys` or a token this store did not issue.
    func listObjects(bucket: String, _ request: ListObjectsRequest) async throws(AWSErrorResponse) -> ListObjectsResult {
        let state = try self.bucket(bucket)
        guard request.maxKeys >= 0 else {
            throw ObjectStoreError.invalidArgument("max-keys cannot be negative", name: "max-keys", value: String(request.maxKeys))
        }
        let maxKeys = min(request.maxKeys, 1000)
        let prefix = Array(request.prefix.utf8)
        let delimiter = request.delimiter.flatMap { $0.isEmpty ? nil : Array($0.utf8) }
        var marker: [UInt8]?
        if let token = request.continuationToken {
            guard let bytes = ContinuationToken.decode(token) else {
                throw ObjectStoreError.invalidArgument("The continuation token provided is incorrect", name: "continuation-token", value: token)
            }
            marker = bytes
        } else if let startAfter = request.startAfter, !startAfter.isEmpty {
            marker = Array(startAfter.utf8)
        }

        return state.index.withLock { index in
            var position = index.lowerBound(prefix)
            if let marker { position = max(position, index.upperBound(marker)) }
            var objects: [ObjectSummary] = []
            var commonPrefixes: [String] = []
            var last: [UInt8]?
            let entries = index.entries
            while position < entries.count, objects.count + commonPrefixes.count < maxKeys {
                let entry = entries[position]
                guard entry.key.hasPrefix(prefix) else { break }
                if let delimiter, let end = Self.rollUp(entry.key.bytes, after: prefix.count, delimiter: delimiter) {
                    let common = Array(entry.key.bytes[..<end])
                    position = index.lowerBound(common + [0xFF])
                    if let marker, !marker.lexicographicallyPrecedes(common) { continue }
                    commonPrefixes.append(String(decoding: common, as: UTF8.self))
                    last = common
                    continue
                }
                objects.append(ObjectSummary(key: entry.key.string, size: entry.size, etag: entry.etag, lastModified: entry.lastModified))
                last = entry.key.bytes
                position += 1
            }
            // Entries left over may all belong to a common prefix returned on an earlier page.
            var more = false
            var probe = position
            while probe < entries.count, entries[probe].key.hasPrefix(prefix) {
                if let marker, let delimiter, let end = Self.rollUp(entries[probe].key.bytes, after: prefix.count, delimiter: delimiter),
                    !marker.lexicographicallyPrecedes(Array(entries[probe].key.bytes[..<end])) {
                    probe = index.lowerBound(Array(entries[probe].key.bytes[..<end]) + [0xFF])
                    continue
                }
                more = true
                break
            }
            let truncated = more && maxKeys > 0 && last != nil
            return ListObjectsResult(
                objects: objects,
                commonPrefixes: commonPrefixes,
                isTruncated: truncated,
                nextContinuationToken: truncated ? last.map(ContinuationToken.encode) : nil
            )
        }
    }

    /// The end of the common prefix a key rolls up into: just after the first delimiter following the prefix.
    static func rollUp(_ key: [UInt8], after prefixLength: Int, delimiter: [UInt8]) -> Int? {
        guard key.count - prefixLength >= delimiter.count else { return nil }
        var start = prefixLength
        while start + delimiter.count <= key.count {
            if key[start] == delimiter[0], key[start..<(start + delimiter.count)].elementsEqual(delimiter) {
                return start + delimiter.count
            }
            start += 1
        }
        return nil
    }
}

/// The opaque continuation tokens of `ListObjectsV2`: a version byte and the last entry returned, in base64.
enum ContinuationToken {
    static func encode(_ marker: [UInt8]) -> String {
        Data([1] + marker).base64EncodedString()
    }

    static func decode(_ token: String) -> [UInt8]? {
        guard let data = Data(base64Encoded: token), data.first == 1 else { return nil }
        let bytes = Array(data.dropFirst())
        guard !bytes.isEmpty, String(validating: bytes, as: UTF8.self) != nil else { return nil }
        return bytes
    }
}
