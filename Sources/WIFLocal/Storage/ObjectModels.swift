import Foundation

/// The headers S3 stores with an object and returns on `GET` and `HEAD`.
struct ObjectAttributes: Sendable, Hashable, Codable {
    /// `Content-Type`; S3 answers `binary/octet-stream` when none was given.
    var contentType: String?
    /// `Content-Encoding`.
    var contentEncoding: String?
    /// `Content-Disposition`.
    var contentDisposition: String?
    /// `Content-Language`.
    var contentLanguage: String?
    /// `Cache-Control`.
    var cacheControl: String?
    /// `Expires`, as sent.
    var expires: String?
    /// User metadata: the `x-amz-meta-*` headers, by lower-case name without the prefix.
    var userMetadata: [String: String]

    init(
        contentType: String? = nil,
        contentEncoding: String? = nil,
        contentDisposition: String? = nil,
        contentLanguage: String? = nil,
        cacheControl: String? = nil,
        expires: String? = nil,
        userMetadata: [String: String] = [:]
    ) {
        self.contentType = contentType
        self.contentEncoding = contentEncoding
        self.contentDisposition = contentDisposition
        self.contentLanguage = contentLanguage
        self.cacheControl = cacheControl
        self.expires = expires
        self.userMetadata = userMetadata
    }

    /// The largest total size of user metadata S3 accepts (names and values, in UTF-8 bytes).
    static let maximumUserMetadataSize = 2048
}

/// What the caller knows about a body before it arrives, checked once it has.
struct PayloadChecks: Sendable, Hashable {
    /// The lower-case hexadecimal SHA-256 the request was signed with (`x-amz-content-sha256`), when signed;
    /// a mismatch is `XAmzContentSHA256Mismatch`.
    var expectedSHA256: String?
    /// The `Content-MD5` header (base64 of 16 bytes); malformed is `InvalidDigest`, a mismatch `BadDigest`.
    var contentMD5: String?
    /// The `Content-Length` (decoded length for aws-chunked bodies); fewer bytes is `IncompleteBody`.
    var expectedLength: Int64?
    /// The additional checksum to compute and keep with the body (the one the request carried, already
    /// verified against it as the body streams).
    var checksumAlgorithm: S3Checksum.Algorithm?
    /// The value an `x-amz-checksum-*` header gave for ``checksumAlgorithm``, checked against the body once
    /// it is stored (`BadDigest` on a mismatch); `nil` when there was none, or a trailer carried it.
    var expectedChecksum: String?

    init(
        expectedSHA256: String? = nil, contentMD5: String? = nil, expectedLength: Int64? = nil,
        checksumAlgorithm: S3Checksum.Algorithm? = nil, expectedChecksum: String? = nil
    ) {
        self.expectedSHA256 = expectedSHA256
        self.contentMD5 = contentMD5
        self.expectedLength = expectedLength
        self.checksumAlgorithm = checksumAlgorithm
        self.expectedChecksum = expectedChecksum
    }
}

/// An object's description: what `HEAD` returns.
struct ObjectInfo: Sendable, Hashable {
    /// The key.
    var key: String
    /// The body's length in bytes.
    var size: Int64
    /// The entity tag, quoted: `"<hex MD5>"`, or `"<hex MD5 of the parts' MD5s>-<part count>"` after a multipart upload.
    var etag: String
    /// When the object was written, to the millisecond.
    var lastModified: Date
    /// The stored headers.
    var attributes: ObjectAttributes
    /// The body's SHA-256 in lower-case hexadecimal; `nil` after a multipart upload.
    var sha256: String?
    /// The number of parts of a multipart upload; `nil` for a single put.
    var partCount: Int?
    /// Each part's length, in order, when the object was completed from a multipart upload and they were
    /// recorded.
    var partLengths: [Int64]? = nil
    /// The additional checksum the upload carried, if any.
    var checksum: StoredChecksum? = nil
    /// How the body is encrypted at rest, if it is.
    var encryption: StoredEncryption? = nil
}

extension ObjectInfo {
    /// Where part `number` of the object lies: a part of an object completed from a multipart upload, in
    /// the order of its parts; part 1 of any other object is the whole of it.
    /// - Throws: `InvalidPartNumber` (416) for a part the object does not have.
    func bytes(ofPart number: Int) throws(AWSErrorResponse) -> (offset: Int64, length: Int64) {
        guard let count = self.partCount else {
            guard number == 1 else { throw ObjectStoreError.invalidPartNumber() }
            return (0, self.size)
        }
        guard number <= count else { throw ObjectStoreError.invalidPartNumber() }
        guard let lengths = self.partLengths, lengths.count == count else {
            throw AWSErrorResponse(
                "NotImplemented", "The parts of this object were not recorded, so one part cannot be read; read a byte range.",
                status: .notImplemented)
        }
        return (lengths[..<(number - 1)].reduce(0, +), lengths[number - 1])
    }
}

/// One entry of a listing.
struct ObjectSummary: Sendable, Hashable {
    /// The key.
    var key: String
    /// The body's length in bytes.
    var size: Int64
    /// The quoted entity tag.
    var etag: String
    /// When the object was written.
    var lastModified: Date
}

/// A bucket and its creation date.
struct BucketInfo: Sendable, Hashable {
    /// The name.
    var name: String
    /// When it was created.
    var creationDate: Date
}

/// The parameters of `ListObjectsV2`.
struct ListObjectsRequest: Sendable, Hashable {
    /// Only keys that start with this.
    var prefix: String
    /// Rolls keys containing it after the prefix into common prefixes; `nil` or empty for none.
    var delimiter: String?
    /// At most this many keys and common prefixes together (0…1000; larger values are capped at 1000).
    var maxKeys: Int
    /// Only keys after this one.
    var startAfter: String?
    /// The `NextContinuationToken` of the previous page; it takes precedence over `startAfter`.
    var continuationToken: String?

    init(prefix: String = "", delimiter: String? = nil, maxKeys: Int = 1000, startAfter: String? = nil, continuationToken: String? = nil) {
        self.prefix = prefix
        self.delimiter = delimiter
        self.maxKeys = maxKeys
        self.startAfter = startAfter
        self.continuationToken = continuationToken
    }
}

/// A page of `ListObjectsV2`.
struct ListObjectsResult: Sendable, Hashable {
    /// The objects, in UTF-8 byte order.
    var objects: [ObjectSummary]
    /// The common prefixes, in UTF-8 byte order.
    var commonPrefixes: [String]
    /// Whether more entries follow.
    var isTruncated: Bool
    /// The token for the next page when truncated.
    var nextContinuationToken: String?
    /// The number of objects and common prefixes on this page.
    var keyCount: Int { self.objects.count + self.commonPrefixes.count }
}

/// A multipart upload in progress.
struct MultipartUploadInfo: Sendable, Hashable {
    /// The upload id.
    var uploadId: String
    /// The bucket.
    var bucket: String
    /// The key the object will have.
    var key: String
    /// When the upload was created.
    var initiated: Date
    /// The headers the object will have.
    var attributes: ObjectAttributes
}

/// A stored part of a multipart upload.
struct PartInfo: Sendable, Hashable {
    /// The part number, 1…10000.
    var partNumber: Int
    /// The part's quoted entity tag: `"<hex MD5>"`.
    var etag: String
    /// The part's length in bytes.
    var size: Int64
    /// When the part was uploaded.
    var lastModified: Date
    /// The part's additional checksum, when its upload has one.
    var checksum: StoredChecksum? = nil
}

/// A page of `ListParts`.
struct ListPartsResult: Sendable, Hashable {
    /// The upload.
    var upload: MultipartUploadInfo
    /// The parts, by ascending part number.
    var parts: [PartInfo]
    /// Whether more parts follow.
    var isTruncated: Bool
    /// The marker for the next page when truncated.
    var nextPartNumberMarker: Int?
}

/// A part named in `CompleteMultipartUpload`.
struct CompletedPart: Sendable, Hashable {
    /// The part number.
    var partNumber: Int
    /// The entity tag returned by `UploadPart`, quoted or not.
    var etag: String
    /// The part's additional checksum as the request lists it (`ChecksumCRC32`, …), by algorithm.
    var checksums: [S3Checksum.Algorithm: String]

    init(partNumber: Int, etag: String, checksums: [S3Checksum.Algorithm: String] = [:]) {
        self.partNumber = partNumber
        self.etag = etag
        self.checksums = checksums
    }
}
