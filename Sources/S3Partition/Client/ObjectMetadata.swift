import Foundation
import NIOHTTP1
import WIFFoundation

/// What S3 says about an object in the headers of `HeadObject` and `GetObject`.
public struct ObjectMetadata: Sendable, Hashable {
    /// The object's size in bytes.
    public var contentLength: Int64
    /// The entity tag, without quotes: the MD5 in hex for single-part, unencrypted objects, else
    /// an opaque value (multipart ETags end in `-<parts>`).
    public var eTag: String?
    /// When the object was last written.
    public var lastModified: Date?
    /// The `Content-Type` stored with the object.
    public var contentType: String?
    /// The version id, in versioned buckets.
    public var versionId: String?
    /// The stored SHA-256 checksum in base64, when S3 returns it (`-<parts>` for multipart objects).
    public var checksumSHA256: String?
    /// The stored CRC-32 checksum in base64, when S3 returns it.
    public var checksumCRC32: String?
    /// The number of parts of a multipart object, when S3 says.
    public var partsCount: Int?
    /// User metadata (`x-amz-meta-*`), with lowercase names and without the prefix.
    public var metadata: [String: String]

    /// Creates metadata.
    /// - Parameters:
    ///   - contentLength: The size in bytes.
    ///   - eTag: The entity tag without quotes.
    ///   - lastModified: The last write.
    ///   - contentType: The content type.
    ///   - versionId: The version id.
    ///   - checksumSHA256: The SHA-256 checksum in base64.
    ///   - checksumCRC32: The CRC-32 checksum in base64.
    ///   - partsCount: The number of parts.
    ///   - metadata: User metadata.
    public init(
        contentLength: Int64, eTag: String? = nil, lastModified: Date? = nil, contentType: String? = nil,
        versionId: String? = nil, checksumSHA256: String? = nil, checksumCRC32: String? = nil, partsCount: Int? = nil,
        metadata: [String: String] = [:]
    ) {
        self.contentLength = contentLength
        self.eTag = eTag
        self.lastModified = lastModified
        self.contentType = contentType
        self.versionId = versionId
        self.checksumSHA256 = checksumSHA256
        self.checksumCRC32 = checksumCRC32
        self.partsCount = partsCount
        self.metadata = metadata
    }

    /// Reads metadata from response headers.
    init(headers: HTTPHeaders, contentLength: Int64) {
        var metadata: [String: String] = [:]
        for header in headers {
            let name = header.name.lowercased()
            if name.hasPrefix("x-amz-meta-") {
                // S3 sends values that are not printable US-ASCII as RFC 2047 encoded-words.
                metadata[String(name.dropFirst("x-amz-meta-".count))] = EncodedWords.decode(header.value) ?? header.value
            }
        }
        self.init(
            contentLength: contentLength,
            eTag: headers.first(name: "etag").map(Self.unquoted),
            lastModified: headers.first(name: "last-modified").flatMap { AWSDate.parseHTTPDate($0).map { AWSDate.date(milliseconds: $0 * 1000) } },
            contentType: headers.first(name: "content-type"),
            versionId: headers.first(name: "x-amz-version-id"),
            checksumSHA256: headers.first(name: "x-amz-checksum-sha256"),
            checksumCRC32: headers.first(name: "x-amz-checksum-crc32"),
            partsCount: headers.first(name: "x-amz-mp-parts-count").flatMap { Int($0) },
            metadata: metadata)
    }

    /// An ETag without its surrounding quotes (and without a weak-validator `W/`), surrounding spaces and
    /// tabs removed.
    ///
    /// A listing unquotes one ETag per object, so the ASCII ETags every S3 writes are read byte by byte:
    /// about 0.16 µs an ETag, where trimming by Unicode scalars and comparing characters, as the path
    /// for other text does, took 1.6 µs.
    static func unquoted(_ eTag: String) -> String {
        var contiguous = eTag
        let ascii = contiguous.withUTF8 { bytes -> String? in
            guard bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
            // In ASCII, `.whitespaces` is the space and the tab, and every character is one byte.
            func isBlank(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
            var start = 0
            var end = bytes.count
            while start < end, isBlank(bytes[start]) { start += 1 }
            while end > start, isBlank(bytes[end - 1]) { end -= 1 }
            if end - start >= 2, bytes[start] == UInt8(ascii: "W"), bytes[start + 1] == UInt8(ascii: "/") { start += 2 }
            if end - start >= 2, bytes[start] == UInt8(ascii: "\""), bytes[end - 1] == UInt8(ascii: "\"") {
                start += 1
                end -= 1
            }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        }
        if let ascii { return ascii }
        var text = Substring(eTag.trimming(.whitespaces))
        if text.hasPrefix("W/") { text = text.dropFirst(2) }
        if text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") { text = text.dropFirst().dropLast() }
        return String(text)
    }
}

/// An object read into memory: its metadata and bytes.
public struct ObjectData: Sendable, Hashable {
    /// The object's metadata.
    public var metadata: ObjectMetadata
    /// The object's bytes (or the requested range's).
    public var bytes: [UInt8]

    /// Creates a value.
    /// - Parameters:
    ///   - metadata: The metadata.
    ///   - bytes: The bytes.
    public init(metadata: ObjectMetadata, bytes: [UInt8]) {
        self.metadata = metadata
        self.bytes = bytes
    }
}

/// What S3 answered to an upload.
public struct PutObjectResult: Sendable, Hashable {
    /// The new object's entity tag, without quotes.
    public var eTag: String?
    /// The version id, in versioned buckets.
    public var versionId: String?
    /// The checksum S3 verified, in base64 (for multipart uploads, the checksum of the parts'
    /// checksums followed by `-<parts>`), when one was sent.
    public var checksum: String?
    /// The object's size in bytes.
    public var size: Int64
    /// How many parts it was uploaded in; 1 for a single `PutObject`.
    public var partCount: Int

    /// Creates a result.
    /// - Parameters:
    ///   - eTag: The entity tag.
    ///   - versionId: The version id.
    ///   - checksum: The verified checksum.
    ///   - size: The size in bytes.
    ///   - partCount: The number of parts.
    public init(eTag: String?, versionId: String? = nil, checksum: String? = nil, size: Int64, partCount: Int = 1) {
        self.eTag = eTag
        self.versionId = versionId
        self.checksum = checksum
        self.size = size
        self.partCount = partCount
    }
}

/// Options for uploads.
public struct PutObjectOptions: Sendable, Hashable {
    /// The `Content-Type` to store; `application/octet-stream` when `nil`.
    public var contentType: String?
    /// User metadata stored as `x-amz-meta-<name>` headers; names are letters, digits, `-` and `_`.
    /// Values are any text: one that is not printable US-ASCII is sent as an RFC 2047 encoded-word
    /// (`=?UTF-8?B?…?=`), which S3 decodes before storing, and read back decoded.
    public var metadata: [String: String]
    /// Whether an existing object may be replaced. When `false`, the upload carries
    /// `If-None-Match: *` and fails with ``S3Error/Code/preconditionFailed`` if the key exists.
    public var overwrite: Bool

    /// Creates options.
    /// - Parameters:
    ///   - contentType: The content type.
    ///   - metadata: User metadata.
    ///   - overwrite: Whether an existing object may be replaced.
    public init(contentType: String? = nil, metadata: [String: String] = [:], overwrite: Bool = true) {
        self.contentType = contentType
        self.metadata = metadata
        self.overwrite = overwrite
    }

    /// The headers these options add, checked.
    func headers(bucket: String, key: String) throws(S3Error) -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = []
        let contentType = self.contentType ?? "application/octet-stream"
        guard Self.isHeaderValue(contentType) else {
            throw .invalidArgument("content type '\(PrintableText.escaping(contentType))' must be printable ASCII", bucket: bucket, key: key)
        }
        headers.append(("Content-Type", contentType))
        for (name, value) in self.metadata.sorted(by: { $0.key < $1.key }) {
            let nameIsValid = !name.isEmpty && name.utf8.allSatisfy { byte in
                (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                    || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
            }
            guard nameIsValid else {
                throw .invalidArgument(
                    "metadata name '\(PrintableText.escaping(name))' must be letters, digits, '-' or '_'", bucket: bucket, key: key)
            }
            headers.append(("x-amz-meta-" + name.lowercased(), EncodedWords.encodeIfNeeded(value)))
        }
        if !self.overwrite { headers.append(("If-None-Match", "*")) }
        return headers
    }

    private static func isHeaderValue(_ value: String) -> Bool {
        value.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    }
}
