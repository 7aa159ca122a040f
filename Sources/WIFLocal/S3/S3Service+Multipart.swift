import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import WIFFoundation

extension S3Service {
    /// `POST /bucket/key?uploads`.
    func createMultipartUpload(_ call: Call) async throws(AWSErrorResponse) -> Response {
        try self.requireBucket(call)
        try self.authorize(call)
        var algorithm: S3Checksum.Algorithm?
        if let text = call.headers[S3Headers.checksumAlgorithm] {
            guard let parsed = S3Checksum.Algorithm(name: text) else {
                throw S3Errors.invalidRequest("Checksum algorithm provided is unsupported. Please try again with any of the valid types: "
                    + "[CRC32, CRC32C, CRC64NVME, SHA1, SHA256]")
            }
            algorithm = parsed
        }
        let type = try StoredChecksum.uploadType(call.headers[S3Headers.checksumType], algorithm: algorithm)
        let encryption = try self.encryptionRequest(call.headers)
        let upload = try await self.store.createMultipartUpload(
            bucket: call.bucket, key: call.key, attributes: try Self.attributes(from: call.headers),
            checksum: algorithm.flatMap { algorithm in type.map { (algorithm, $0) } }, encryption: encryption)
        var response = Response.xml(
            S3XML.initiateMultipartUpload(bucket: call.bucket, key: call.key, uploadId: upload.uploadId), requestId: call.requestId)
        Self.encryptionHeaders(mode: encryption?.mode, keyMD5: encryption?.keyMD5, into: &response.headers)
        if let algorithm, let type {
            response.headers[S3Headers.checksumAlgorithm] = algorithm.name
            response.headers[S3Headers.checksumType] = type.rawValue
        }
        return response
    }

    /// The `uploadId` parameter.
    private func uploadId(_ call: Call) throws(AWSErrorResponse) -> String {
        guard let uploadId = call.query["uploadId"], !uploadId.isEmpty else {
            throw S3Errors.invalidArgument("This operation needs an uploadId.", name: "uploadId", value: call.query["uploadId"])
        }
        return uploadId
    }

    /// The `partNumber` parameter: 1…10000.
    func partNumber(_ call: Call) throws(AWSErrorResponse) -> Int {
        guard let text = call.query["partNumber"], let number = Int(text), (1...10_000).contains(number) else {
            throw S3Errors.invalidArgument(
                "Part number must be an integer between 1 and 10000, inclusive", name: "partNumber", value: call.query["partNumber"])
        }
        return number
    }

    /// `PUT /bucket/key?partNumber=N&uploadId=U`: streams the part to the store.
    func uploadPart(_ call: Call) async throws(AWSErrorResponse) -> Response {
        try self.requireBucket(call)
        try self.authorize(call)
        let uploadId = try self.uploadId(call)
        let partNumber = try self.partNumber(call)
        let checks = try self.payloadChecks(call)
        let body = try self.bodyStream(call, verifyingHeaderChecksum: false)
        let part = try await self.store.uploadPart(
            bucket: call.bucket, key: call.key, uploadId: uploadId, partNumber: partNumber, body: body, checks: checks,
            customerKey: try Self.customerKey(call.headers))
        var response = Response(status: .ok)
        response.headers[.eTag] = part.etag
        response.headers[.contentLength] = "0"
        Self.echoChecksum(call.headers, into: &response.headers)
        if let checksum = part.checksum, let name = HTTPField.Name(checksum.headerName) { response.headers[name] = checksum.value }
        return response
    }

    /// `PUT /bucket/key?partNumber=N&uploadId=U` with `x-amz-copy-source` (and optionally
    /// `x-amz-copy-source-range: bytes=a-b`): a part copied from an existing object.
    func uploadPartCopy(_ call: Call) async throws(AWSErrorResponse) -> Response {
        try self.requireBucket(call)
        try self.authorize(call)
        let uploadId = try self.uploadId(call)
        let partNumber = try self.partNumber(call)
        var range: ByteRange?
        if let text = call.headers[S3Headers.copySourceRange] {
            guard let parsed = ByteRange(header: text), case .from(_, let last) = parsed.kind, last != nil else {
                throw S3Errors.invalidArgument(
                    "The x-amz-copy-source-range value must be of the form bytes=first-last where first and last are the "
                        + "zero-based offsets of the first and last bytes to copy",
                    name: "x-amz-copy-source-range", value: text)
            }
            range = parsed
        }
        let source: ObjectContent
        do {
            source = try await self.openCopySource(call, range: range)
        } catch where error.code == "InvalidRange" {
            throw Self.copyRangeBeyondSource(range)
        }
        // A GET clamps a range that runs past the end; a copied part must lie wholly inside the source.
        if let range, case .from(_, let last?) = range.kind, last >= source.info.size {
            throw Self.copyRangeBeyondSource(range, size: source.info.size)
        }
        let part = try await self.store.uploadPart(
            bucket: call.bucket, key: call.key, uploadId: uploadId, partNumber: partNumber, body: source.body,
            checks: PayloadChecks(expectedLength: source.contentLength), customerKey: try Self.customerKey(call.headers))
        return .xml(S3XML.copyPartResult(etag: part.etag, lastModified: part.lastModified), requestId: call.requestId)
    }

    /// S3's answer to an `x-amz-copy-source-range` that does not lie inside the source object: 400
    /// `InvalidRange`.
    private static func copyRangeBeyondSource(_ range: ByteRange?, size: Int64? = nil) -> AWSErrorResponse {
        let sizeText = size.map { " of \($0) bytes" } ?? ""
        return AWSErrorResponse(
            "InvalidRange", "The x-amz-copy-source-range \(range?.description ?? "") is not inside the source object\(sizeText).",
            status: .badRequest)
    }

    /// `POST /bucket/key?uploadId=U` with a `CompleteMultipartUpload` body listing the parts, with
    /// `If-None-Match: *` and `If-Match` as on a put.
    ///
    /// Completing an upload that was completed already answers the same result while the object it made is
    /// still in place, so a client retrying after a lost response does not fail; S3 does the same.
    func completeMultipartUpload(_ call: Call) async throws(AWSErrorResponse) -> Response {
        try self.requireBucket(call)
        try self.authorize(call)
        let uploadId = try self.uploadId(call)
        let body = try await self.collectSmallBody(call)
        let parts = try Self.completedParts(Array(buffer: body))
        let expectedSize = try Self.expectedObjectSize(call.headers[S3Headers.objectSize])
        let info: ObjectInfo
        if let completed = try await self.store.completedUpload(
            bucket: call.bucket, key: call.key, uploadId: uploadId, parts: parts, expectedSize: expectedSize)
        {
            info = completed
        } else {
            try await self.checkWritePreconditions(call)
            info = try await self.store.completeMultipartUpload(
                bucket: call.bucket, key: call.key, uploadId: uploadId, parts: parts, expectedSize: expectedSize)
        }
        let host = call.request.head.authority ?? "\(self.state.configuration.host)"
        let path = call.address.virtualHosted
            ? "/" + S3PercentDecoding.encodeForListing(call.key)
            : "/" + S3PercentDecoding.encodeForListing(call.bucket) + "/" + S3PercentDecoding.encodeForListing(call.key)
        var response = Response.xml(
            S3XML.completeMultipartUpload(
                location: "http://\(host)\(path)", bucket: call.bucket, key: call.key, etag: info.etag, checksum: info.checksum),
            requestId: call.requestId)
        Self.encryptionHeaders(info.encryption, into: &response.headers)
        return response
    }

    /// `x-amz-mp-object-size`: the size the client expects the completed object to have.
    /// - Throws: `InvalidArgument` for a value that is not a whole number of bytes.
    static func expectedObjectSize(_ text: String?) throws(AWSErrorResponse) -> Int64? {
        guard let text else { return nil }
        guard let size = Int64(decimalDigits: text) else {
            throw S3Errors.invalidArgument(
                "x-amz-mp-object-size must be the object's size in bytes, a whole number.", name: "x-amz-mp-object-size", value: text)
        }
        return size
    }

    /// The parts of a `CompleteMultipartUpload` document.
    /// - Throws: `MalformedXML` when the document is not one, a part has no number or entity tag, or there
    ///   are more than 10000 parts.
    static func completedParts(_ bytes: [UInt8]) throws(AWSErrorResponse) -> [CompletedPart] {
        guard !bytes.isEmpty else { throw ObjectStoreError.malformedXML("the request has no CompleteMultipartUpload body") }
        let document = try S3RequestXML.parse(bytes)
        guard document.name == "CompleteMultipartUpload" else {
            throw ObjectStoreError.malformedXML("the root element must be CompleteMultipartUpload, not \(document.name)")
        }
        let elements = document.children(named: "Part")
        guard elements.count <= 10_000 else { throw ObjectStoreError.malformedXML("more than 10000 parts") }
        var parts: [CompletedPart] = []
        parts.reserveCapacity(elements.count)
        for element in elements {
            guard let numberText = element.child("PartNumber")?.text.trimming(.whitespacesAndNewlines),
                let number = Int(numberText)
            else {
                throw ObjectStoreError.malformedXML("a Part has no numeric PartNumber")
            }
            guard let etag = element.child("ETag")?.text.trimming(.whitespacesAndNewlines), !etag.isEmpty else {
                throw ObjectStoreError.malformedXML("part \(number) has no ETag")
            }
            var checksums: [S3Checksum.Algorithm: String] = [:]
            for algorithm in S3Checksum.Algorithm.all {
                if let value = element.child("Checksum" + algorithm.name)?.text.trimming(.whitespacesAndNewlines) {
                    checksums[algorithm] = value
                }
            }
            parts.append(CompletedPart(partNumber: number, etag: etag, checksums: checksums))
        }
        return parts
    }

    /// `DELETE /bucket/key?uploadId=U`: 204.
    func abortMultipartUpload(_ call: Call) async throws(AWSErrorResponse) -> Response {
        try self.requireBucket(call)
        try self.authorize(call)
        let uploadId = try self.uploadId(call)
        try await self.store.abortMultipartUpload(bucket: call.bucket, key: call.key, uploadId: uploadId)
        return Response(status: .noContent)
    }

    /// `GET /bucket/key?uploadId=U`, with `max-parts` and `part-number-marker`.
    func listParts(_ call: Call) async throws(AWSErrorResponse) -> Response {
        try self.requireBucket(call)
        try self.authorize(call)
        let uploadId = try self.uploadId(call)
        var maxParts = 1000
        if let text = call.query["max-parts"] {
            guard let value = Int(text), value >= 0 else {
                throw S3Errors.invalidArgument("Provided max-parts not an integer or within integer range", name: "max-parts", value: text)
            }
            maxParts = min(value, 1000)
        }
        var marker = 0
        if let text = call.query["part-number-marker"] {
            guard let value = Int(text), value >= 0 else {
                throw S3Errors.invalidArgument(
                    "Provided part-number-marker not an integer or within integer range", name: "part-number-marker", value: text)
            }
            marker = value
        }
        let result = try await self.store.listParts(
            bucket: call.bucket, key: call.key, uploadId: uploadId, partNumberMarker: marker, maxParts: maxParts)
        return .xml(
            S3XML.listParts(result, partNumberMarker: marker, maxParts: maxParts, owner: self.owner, initiator: self.initiator(call)),
            requestId: call.requestId)
    }

    /// Who S3 reports as an upload's initiator: the caller's ARN for a session, the account otherwise.
    private func initiator(_ call: Call) -> S3XML.Owner {
        switch call.caller {
        case .session(let session): S3XML.Owner(id: session.assumedRoleArn, displayName: session.sessionName)
        case .admin: self.owner
        }
    }
}
