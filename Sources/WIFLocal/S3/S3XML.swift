import Foundation
import WIFFoundation

/// The XML documents of S3 responses, in the `http://s3.amazonaws.com/doc/2006-03-01/` namespace.
enum S3XML {
    static let namespace = "http://s3.amazonaws.com/doc/2006-03-01/"

    /// The owner S3 reports for buckets, objects and uploads: the account, as a canonical user id (the hex
    /// SHA-256 of the account id, 64 characters like a real one) and a display name.
    struct Owner: Sendable, Hashable {
        var id: String
        var displayName: String
    }

    private static func open(_ root: String) -> XMLWriter {
        var xml = XMLWriter()
        xml.open(root, attributes: [("xmlns", Self.namespace)])
        return xml
    }

    private static func owner(_ owner: Owner, element: String = "Owner", into xml: inout XMLWriter) {
        xml.open(element)
        xml.element("ID", owner.id)
        xml.element("DisplayName", owner.displayName)
        xml.close(element)
    }

    /// `ListAllMyBucketsResult`.
    /// One page of `ListBuckets`.
    struct BucketPage: Sendable {
        var buckets: [BucketInfo]
        /// Where the next page starts; `nil` on the last page.
        var continuationToken: String? = nil
        /// The `prefix` the request gave, echoed.
        var prefix: String? = nil
    }

    static func listBuckets(_ page: BucketPage, owner: Owner) -> String {
        var xml = Self.open("ListAllMyBucketsResult")
        Self.owner(owner, into: &xml)
        xml.open("Buckets")
        for bucket in page.buckets {
            xml.open("Bucket")
            xml.element("Name", bucket.name)
            xml.element("CreationDate", AWSDate.extendedWithMilliseconds(AWSDate.milliseconds(bucket.creationDate)))
            xml.close("Bucket")
        }
        xml.close("Buckets")
        if let token = page.continuationToken { xml.element("ContinuationToken", token) }
        if let prefix = page.prefix { xml.element("Prefix", prefix) }
        xml.close("ListAllMyBucketsResult")
        return xml.document
    }

    /// `LocationConstraint`: empty for `us-east-1`, as S3 answers.
    static func location(region: String) -> String {
        let value = region == "us-east-1" ? "" : XMLWriter.escape(region)
        return XMLWriter().document + "<LocationConstraint xmlns=\"\(Self.namespace)\">\(value)</LocationConstraint>"
    }

    /// The parameters of a listing as they are echoed back.
    struct ListingEcho: Sendable, Hashable {
        var bucket: String
        var prefix: String
        var delimiter: String?
        var maxKeys: Int
        /// Whether keys, prefixes and the echoed parameters are URL-encoded (`encoding-type=url`).
        var urlEncoded: Bool
        /// Whether each entry names its owner (`fetch-owner=true` in v2; always in v1).
        var fetchOwner: Bool
    }

    private static func encode(_ text: String, _ echo: ListingEcho) -> String {
        echo.urlEncoded ? S3PercentDecoding.encodeForListing(text) : text
    }

    private static func contents(_ result: ListObjectsResult, echo: ListingEcho, owner: Owner, into xml: inout XMLWriter) {
        for object in result.objects {
            xml.open("Contents")
            xml.element("Key", Self.encode(object.key, echo))
            xml.element("LastModified", AWSDate.extendedWithMilliseconds(AWSDate.milliseconds(object.lastModified)))
            xml.element("ETag", object.etag)
            xml.element("Size", String(object.size))
            if echo.fetchOwner { Self.owner(owner, into: &xml) }
            xml.element("StorageClass", "STANDARD")
            xml.close("Contents")
        }
        for prefix in result.commonPrefixes {
            xml.open("CommonPrefixes")
            xml.element("Prefix", Self.encode(prefix, echo))
            xml.close("CommonPrefixes")
        }
    }

    /// `ListBucketResult` of `ListObjectsV2`.
    static func listObjectsV2(
        _ result: ListObjectsResult, echo: ListingEcho, continuationToken: String?, startAfter: String?, owner: Owner
    ) -> String {
        var xml = Self.open("ListBucketResult")
        xml.element("Name", echo.bucket)
        xml.element("Prefix", Self.encode(echo.prefix, echo))
        if let delimiter = echo.delimiter { xml.element("Delimiter", Self.encode(delimiter, echo)) }
        xml.element("MaxKeys", String(echo.maxKeys))
        if echo.urlEncoded { xml.element("EncodingType", "url") }
        xml.element("KeyCount", String(result.keyCount))
        xml.element("IsTruncated", result.isTruncated ? "true" : "false")
        if let continuationToken { xml.element("ContinuationToken", continuationToken) }
        if let next = result.nextContinuationToken, result.isTruncated { xml.element("NextContinuationToken", next) }
        if let startAfter { xml.element("StartAfter", Self.encode(startAfter, echo)) }
        Self.contents(result, echo: echo, owner: owner, into: &xml)
        xml.close("ListBucketResult")
        return xml.document
    }

    /// `ListBucketResult` of `ListObjects` (version 1).
    static func listObjectsV1(_ result: ListObjectsResult, echo: ListingEcho, marker: String, owner: Owner) -> String {
        var xml = Self.open("ListBucketResult")
        xml.element("Name", echo.bucket)
        xml.element("Prefix", Self.encode(echo.prefix, echo))
        xml.element("Marker", Self.encode(marker, echo))
        if result.isTruncated, echo.delimiter != nil, let next = Self.nextMarker(result) {
            // S3 returns NextMarker only with a delimiter; without one, clients continue from the last key.
            xml.element("NextMarker", Self.encode(next, echo))
        }
        xml.element("MaxKeys", String(echo.maxKeys))
        if let delimiter = echo.delimiter { xml.element("Delimiter", Self.encode(delimiter, echo)) }
        if echo.urlEncoded { xml.element("EncodingType", "url") }
        xml.element("IsTruncated", result.isTruncated ? "true" : "false")
        Self.contents(result, echo: echo, owner: owner, into: &xml)
        xml.close("ListBucketResult")
        return xml.document
    }

    /// The last key or common prefix of a page, whichever sorts last: where the next page starts.
    static func nextMarker(_ result: ListObjectsResult) -> String? {
        let lastKey = result.objects.last?.key
        let lastPrefix = result.commonPrefixes.last
        switch (lastKey, lastPrefix) {
        case (let key?, let prefix?): return Array(key.utf8).lexicographicallyPrecedes(Array(prefix.utf8)) ? prefix : key
        case (let key?, nil): return key
        case (nil, let prefix?): return prefix
        case (nil, nil): return nil
        }
    }

    /// `InitiateMultipartUploadResult`.
    static func initiateMultipartUpload(bucket: String, key: String, uploadId: String) -> String {
        var xml = Self.open("InitiateMultipartUploadResult")
        xml.element("Bucket", bucket)
        xml.element("Key", key)
        xml.element("UploadId", uploadId)
        xml.close("InitiateMultipartUploadResult")
        return xml.document
    }

    /// `CompleteMultipartUploadResult`.
    static func completeMultipartUpload(
        location: String, bucket: String, key: String, etag: String, checksum: StoredChecksum? = nil
    ) -> String {
        var xml = Self.open("CompleteMultipartUploadResult")
        xml.element("Location", location)
        xml.element("Bucket", bucket)
        xml.element("Key", key)
        xml.element("ETag", etag)
        if let checksum {
            xml.element(checksum.elementName, checksum.value)
            xml.element("ChecksumType", checksum.type.rawValue)
        }
        xml.close("CompleteMultipartUploadResult")
        return xml.document
    }

    /// `ListPartsResult`.
    static func listParts(_ result: ListPartsResult, partNumberMarker: Int, maxParts: Int, owner: Owner, initiator: Owner) -> String {
        var xml = Self.open("ListPartsResult")
        xml.element("Bucket", result.upload.bucket)
        xml.element("Key", result.upload.key)
        xml.element("UploadId", result.upload.uploadId)
        Self.owner(initiator, element: "Initiator", into: &xml)
        Self.owner(owner, into: &xml)
        xml.element("StorageClass", "STANDARD")
        xml.element("PartNumberMarker", String(partNumberMarker))
        if let next = result.nextPartNumberMarker { xml.element("NextPartNumberMarker", String(next)) }
        xml.element("MaxParts", String(maxParts))
        xml.element("IsTruncated", result.isTruncated ? "true" : "false")
        for part in result.parts {
            xml.open("Part")
            xml.element("PartNumber", String(part.partNumber))
            xml.element("LastModified", AWSDate.extendedWithMilliseconds(AWSDate.milliseconds(part.lastModified)))
            xml.element("ETag", part.etag)
            xml.element("Size", String(part.size))
            xml.close("Part")
        }
        xml.close("ListPartsResult")
        return xml.document
    }

    /// `ListMultipartUploadsResult`.
    static func listMultipartUploads(
        _ uploads: [MultipartUploadInfo], bucket: String, prefix: String, maxUploads: Int, isTruncated: Bool, owner: Owner
    ) -> String {
        var xml = Self.open("ListMultipartUploadsResult")
        xml.element("Bucket", bucket)
        xml.element("KeyMarker", "")
        xml.element("UploadIdMarker", "")
        if isTruncated, let last = uploads.last {
            xml.element("NextKeyMarker", last.key)
            xml.element("NextUploadIdMarker", last.uploadId)
        }
        xml.element("Prefix", prefix)
        xml.element("MaxUploads", String(maxUploads))
        xml.element("IsTruncated", isTruncated ? "true" : "false")
        for upload in uploads {
            xml.open("Upload")
            xml.element("Key", upload.key)
            xml.element("UploadId", upload.uploadId)
            Self.owner(owner, element: "Initiator", into: &xml)
            Self.owner(owner, into: &xml)
            xml.element("StorageClass", "STANDARD")
            xml.element("Initiated", AWSDate.extendedWithMilliseconds(AWSDate.milliseconds(upload.initiated)))
            xml.close("Upload")
        }
        xml.close("ListMultipartUploadsResult")
        return xml.document
    }

    /// One outcome of `DeleteObjects`.
    enum DeleteOutcome: Sendable, Hashable {
        case deleted(key: String)
        case failed(key: String, code: String, message: String)
    }

    /// `DeleteResult`; in quiet mode only the failures are listed.
    static func deleteResult(_ outcomes: [DeleteOutcome], quiet: Bool) -> String {
        var xml = Self.open("DeleteResult")
        for outcome in outcomes {
            switch outcome {
            case .deleted(let key):
                guard !quiet else { continue }
                xml.open("Deleted")
                xml.element("Key", key)
                xml.close("Deleted")
            case .failed(let key, let code, let message):
                xml.open("Error")
                xml.element("Key", key)
                xml.element("Code", code)
                xml.element("Message", message)
                xml.close("Error")
            }
        }
        xml.close("DeleteResult")
        return xml.document
    }

    /// `CopyObjectResult`.
    static func copyObjectResult(etag: String, lastModified: Date) -> String {
        var xml = Self.open("CopyObjectResult")
        xml.element("LastModified", AWSDate.extendedWithMilliseconds(AWSDate.milliseconds(lastModified)))
        xml.element("ETag", etag)
        xml.close("CopyObjectResult")
        return xml.document
    }

    /// `CopyPartResult`.
    static func copyPartResult(etag: String, lastModified: Date) -> String {
        var xml = Self.open("CopyPartResult")
        xml.element("LastModified", AWSDate.extendedWithMilliseconds(AWSDate.milliseconds(lastModified)))
        xml.element("ETag", etag)
        xml.close("CopyPartResult")
        return xml.document
    }
}
