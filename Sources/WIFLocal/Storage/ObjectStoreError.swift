import Foundation
import HTTPTypes

/// The S3 errors the object store raises, in AWS's codes, messages and statuses, with the details S3 adds
/// (`BucketName`, `Key`, `UploadId`, …).
enum ObjectStoreError {
    static func noSuchBucket(_ bucket: String) -> AWSErrorResponse {
        AWSErrorResponse("NoSuchBucket", "The specified bucket does not exist", status: .notFound, details: [("BucketName", bucket)])
    }

    static func noSuchKey(_ key: String) -> AWSErrorResponse {
        AWSErrorResponse("NoSuchKey", "The specified key does not exist.", status: .notFound, details: [("Key", key)])
    }

    static func noSuchUpload(_ uploadId: String) -> AWSErrorResponse {
        AWSErrorResponse(
            "NoSuchUpload",
            "The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.",
            status: .notFound,
            details: [("UploadId", uploadId)]
        )
    }

    static func invalidBucketName(_ bucket: String, reason: String) -> AWSErrorResponse {
        AWSErrorResponse("InvalidBucketName", "The specified bucket is not valid: \(reason).", details: [("BucketName", bucket)])
    }

    static func bucketAlreadyOwnedByYou(_ bucket: String) -> AWSErrorResponse {
        AWSErrorResponse(
            "BucketAlreadyOwnedByYou",
            "Your previous request to create the named bucket succeeded and you already own it.",
            status: .conflict,
            details: [("BucketName", bucket)]
        )
    }

    static func bucketNotEmpty(_ bucket: String) -> AWSErrorResponse {
        AWSErrorResponse("BucketNotEmpty", "The bucket you tried to delete is not empty", status: .conflict, details: [("BucketName", bucket)])
    }

    static func keyTooLong(byteCount: Int) -> AWSErrorResponse {
        AWSErrorResponse(
            "KeyTooLongError",
            "Your key is too long: \(byteCount) bytes in UTF-8, at most \(ObjectKey.maximumByteCount) allowed.",
            details: [("Size", String(byteCount)), ("MaxSizeAllowed", String(ObjectKey.maximumByteCount))]
        )
    }

    static func invalidArgument(_ message: String, name: String? = nil, value: String? = nil) -> AWSErrorResponse {
        var details: [(String, String)] = []
        if let name { details.append(("ArgumentName", name)) }
        if let value { details.append(("ArgumentValue", value)) }
        return AWSErrorResponse("InvalidArgument", message, details: details)
    }

    static func invalidDigest(_ value: String) -> AWSErrorResponse {
        AWSErrorResponse("InvalidDigest", "The Content-MD5 you specified was invalid.", details: [("Content-MD5", value)])
    }

    static func badDigest(expected: String, calculated: String) -> AWSErrorResponse {
        AWSErrorResponse(
            "BadDigest",
            "The Content-MD5 you specified did not match what we received.",
            details: [("ExpectedDigest", expected), ("CalculatedDigest", calculated)]
        )
    }

    static func contentSHA256Mismatch(client: String, computed: String) -> AWSErrorResponse {
        AWSErrorResponse(
            "XAmzContentSHA256Mismatch",
            "The provided 'x-amz-content-sha256' header does not match what was computed.",
            details: [("ClientComputedContentSHA256", client), ("S3ComputedContentSHA256", computed)]
        )
    }

    static func incompleteBody(expected: Int64, received: Int64) -> AWSErrorResponse {
        AWSErrorResponse(
            "IncompleteBody",
            "You did not provide the number of bytes specified by the Content-Length HTTP header: expected \(expected), received \(received).",
            details: [("ExpectedLength", String(expected)), ("ReceivedLength", String(received))]
        )
    }

    static func interruptedBody(received: Int64) -> AWSErrorResponse {
        AWSErrorResponse(
            "IncompleteBody",
            "The request body ended with an error after \(received) bytes; nothing was stored.",
            details: [("ReceivedLength", String(received))]
        )
    }

    static func entityTooLarge(proposed: Int64, maximum: Int64) -> AWSErrorResponse {
        AWSErrorResponse(
            "EntityTooLarge",
            "Your proposed upload exceeds the maximum allowed size",
            details: [("ProposedSize", String(proposed)), ("MaxSizeAllowed", String(maximum))]
        )
    }

    static func entityTooSmall(partNumber: Int, size: Int64, minimum: Int64) -> AWSErrorResponse {
        AWSErrorResponse(
            "EntityTooSmall",
            "Your proposed upload is smaller than the minimum allowed object size.",
            details: [("ProposedSize", String(size)), ("MinSizeAllowed", String(minimum)), ("PartNumber", String(partNumber))]
        )
    }

    static func invalidPart(_ partNumber: Int, etag: String, uploadId: String) -> AWSErrorResponse {
        AWSErrorResponse(
            "InvalidPart",
            "One or more of the specified parts could not be found. The part may not have been uploaded, or the specified entity tag may not match the part's entity tag.",
            details: [("UploadId", uploadId), ("PartNumber", String(partNumber)), ("ETag", etag)]
        )
    }

    /// `x-amz-mp-object-size` named another size than the parts make: S3's 400 `InvalidRequest`.
    static func objectSizeMismatch(expected: Int64, actual: Int64) -> AWSErrorResponse {
        AWSErrorResponse(
            "InvalidRequest",
            "The x-amz-mp-object-size header is \(expected) bytes, but the parts make an object of \(actual) bytes."
        )
    }

    static func invalidPartOrder(uploadId: String) -> AWSErrorResponse {
        AWSErrorResponse(
            "InvalidPartOrder",
            "The list of parts was not in ascending order. Parts must be ordered by part number.",
            details: [("UploadId", uploadId)]
        )
    }

    static func invalidPartNumber(_ partNumber: Int) -> AWSErrorResponse {
        AWSErrorResponse(
            "InvalidArgument",
            "Part number must be an integer between 1 and 10000, inclusive",
            details: [("ArgumentName", "partNumber"), ("ArgumentValue", String(partNumber))]
        )
    }

    static func malformedXML(_ reason: String) -> AWSErrorResponse {
        AWSErrorResponse("MalformedXML", "The XML you provided was not well-formed or did not validate against our published schema: \(reason).")
    }

    static func invalidRange(_ range: String, size: Int64) -> AWSErrorResponse {
        AWSErrorResponse(
            "InvalidRange",
            "The requested range is not satisfiable",
            status: .rangeNotSatisfiable,
            details: [("RangeRequested", range), ("ActualObjectSize", String(size))]
        )
    }

    /// A `partNumber` beyond the object's parts (or above 1 for an object not uploaded in parts).
    static func invalidPartNumber() -> AWSErrorResponse {
        AWSErrorResponse("InvalidPartNumber", "The requested partnumber is not satisfiable", status: .rangeNotSatisfiable)
    }

    /// A failure of the disk underneath: the request is not the caller's fault.
    static func internalError(_ what: String) -> AWSErrorResponse {
        AWSErrorResponse("InternalError", "We encountered an internal error, please try again. (\(what))", status: .internalServerError, type: "Receiver")
    }

    /// An `InternalError` for a failed system call, with its `errno` text.
    static func systemCall(_ call: String, _ errorNumber: Int32) -> AWSErrorResponse {
        self.internalError("\(call) failed: \(String(cString: strerror(errorNumber)))")
    }
}
