import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import PolicyEngine
import WIFFoundation
import WIFAPIServer

extension S3Service {
    /// `GET /`: every bucket of the account, if the caller may `s3:ListAllMyBuckets`.
    ///
    /// With `max-buckets` (1…10000) the answer is paged: a `ContinuationToken` in the answer names where
    /// the next page starts. `prefix` keeps the names that start with it; `bucket-region` keeps all or none,
    /// every bucket being in the stack's one region.
    func listBuckets(_ call: Call) async throws(AWSErrorResponse) -> Response {
        try self.authorize(call)
        var maximum: Int?
        if let text = call.query["max-buckets"] {
            guard let value = Int(text), (1...10_000).contains(value) else {
                throw S3Errors.invalidArgument("max-buckets must be a number from 1 to 10000", name: "max-buckets", value: text)
            }
            maximum = value
        }
        var after: [UInt8]?
        if let token = call.query["continuation-token"] {
            guard let bytes = ContinuationToken.decode(token) else {
                throw S3Errors.invalidArgument("The continuation token provided is incorrect", name: "continuation-token", value: token)
            }
            after = bytes
        }
        let prefix = call.query["prefix"] ?? ""
        var buckets = self.store.listBuckets().filter { bucket in
            bucket.name.hasPrefix(prefix) && after.map { $0.lexicographicallyPrecedes(bucket.name.utf8) } ?? true
        }
        if let region = call.query["bucket-region"], region != self.state.configuration.region { buckets = [] }
        var next: String?
        if let maximum, buckets.count > maximum {
            buckets = Array(buckets.prefix(maximum))
            next = buckets.last.map { ContinuationToken.encode(Array($0.name.utf8)) }
        }
        let page = S3XML.BucketPage(buckets: buckets, continuationToken: next, prefix: call.query["prefix"])
        return .xml(S3XML.listBuckets(page, owner: self.owner), requestId: call.requestId)
    }

    /// `PUT /bucket`, with an optional `CreateBucketConfiguration` body naming the region.
    func createBucket(_ call: Call) async throws(AWSErrorResponse) -> Response {
        try self.authorize(call)
        if let lock = call.headers.value(of: HTTPField.Name("x-amz-bucket-object-lock-enabled")!), lock.lowercased() == "true" {
            throw S3Errors.notImplemented("Object Lock (x-amz-bucket-object-lock-enabled)")
        }
        let body = try await self.collectSmallBody(call)
        let region = self.state.configuration.region
        if body.readableBytes > 0 {
            let document = try S3RequestXML.parse(Array(buffer: body))
            guard document.name == "CreateBucketConfiguration" else {
                throw ObjectStoreError.malformedXML("the root element must be CreateBucketConfiguration, not \(document.name)")
            }
            let constraint = document.child("LocationConstraint")?.text.trimming(.whitespacesAndNewlines) ?? ""
            if !constraint.isEmpty, constraint != region {
                throw AWSErrorResponse(
                    "IllegalLocationConstraintException",
                    "The \(constraint) location constraint is incompatible for the region specific endpoint this request was sent to.",
                    details: [("LocationConstraint", constraint)])
            }
            if constraint == "us-east-1" {
                // S3 refuses an explicit us-east-1: that region is the default and takes no constraint.
                throw AWSErrorResponse(
                    "InvalidLocationConstraint", "The specified location-constraint is not valid",
                    details: [("LocationConstraint", constraint)])
            }
        }
        do {
            try await self.store.createBucket(call.bucket)
        } catch {
            // In us-east-1, S3 answers 200 when the caller already owns the bucket.
            guard error.code == "BucketAlreadyOwnedByYou", region == "us-east-1" else { throw error }
        }
        var response = Response(status: .ok)
        response.headers[S3Headers.location] = "/" + call.bucket
        response.headers[.contentLength] = "0"
        return response
    }

    /// `HEAD /bucket`: 200 with the bucket's region, authorized by `s3:ListBucket` (with no listing keys).
    func headBucket(_ call: Call) async throws(AWSErrorResponse) -> Response {
        try self.requireBucket(call)
        try self.authorize(call)
        var response = Response(status: .ok)
        response.headers[S3Headers.bucketRegion] = self.state.configuration.region
        response.headers[.contentLength] = "0"
        return response
    }

    /// `DELETE /bucket`: 204 when the bucket was empty.
    func deleteBucket(_ call: Call) async throws(AWSErrorResponse) -> Response {
        try self.requireBucket(call)
        try self.authorize(call)
        try await self.store.deleteBucket(call.bucket)
        return Response(status: .noContent)
    }

    /// `GET /bucket?location`.
    func getBucketLocation(_ call: Call) async throws(AWSErrorResponse) -> Response {
        try self.requireBucket(call)
        try self.authorize(call)
        return .xml(S3XML.location(region: self.state.configuration.region), requestId: call.requestId)
    }

    /// `GET /bucket?list-type=2` and `GET /bucket`: authorized by `s3:ListBucket` with `s3:prefix`,
    /// `s3:delimiter` and `s3:max-keys` in the context.
    func listObjects(_ call: Call, version: Int) async throws(AWSErrorResponse) -> Response {
        try self.requireBucket(call)
        let prefix = call.query["prefix"] ?? ""
        let delimiter = call.query["delimiter"].flatMap { $0.isEmpty ? nil : $0 }
        var maxKeys = 1000
        var maxKeysGiven: Int?
        if let text = call.query["max-keys"] {
            guard let value = Int(text), value >= 0 else {
                throw S3Errors.invalidArgument(
                    "Provided max-keys not an integer or within integer range", name: "max-keys", value: text)
            }
            maxKeysGiven = value
            maxKeys = min(value, 1000)
        }
        var urlEncoded = false
        if let encoding = call.query["encoding-type"] {
            guard encoding.lowercased() == "url" else {
                throw S3Errors.invalidArgument(
                    "Invalid Encoding Method specified in Request", name: "encoding-type", value: encoding)
            }
            urlEncoded = true
        }
        if let context = call.context {
            try self.enforce(
                call,
                .s3ListBucket(bucket: call.bucket, prefix: prefix, delimiter: delimiter, maxKeys: maxKeysGiven, context: context))
        }
        let echo = S3XML.ListingEcho(
            bucket: call.bucket, prefix: prefix, delimiter: delimiter, maxKeys: maxKeys, urlEncoded: urlEncoded,
            fetchOwner: version == 1 || call.query["fetch-owner"]?.lowercased() == "true")
        if version == 2 {
            let token = call.query["continuation-token"]
            if let token, token.isEmpty {
                throw S3Errors.invalidArgument(
                    "The continuation token provided is incorrect", name: "continuation-token", value: token)
            }
            let startAfter = call.query["start-after"]
            let result = try await self.store.listObjects(
                bucket: call.bucket,
                ListObjectsRequest(prefix: prefix, delimiter: delimiter, maxKeys: maxKeys, startAfter: startAfter, continuationToken: token))
            return .xml(
                S3XML.listObjectsV2(result, echo: echo, continuationToken: token, startAfter: startAfter, owner: self.owner),
                requestId: call.requestId)
        }
        let marker = call.query["marker"] ?? ""
        let result = try await self.store.listObjects(
            bucket: call.bucket,
            ListObjectsRequest(prefix: prefix, delimiter: delimiter, maxKeys: maxKeys, startAfter: marker.isEmpty ? nil : marker))
        return .xml(S3XML.listObjectsV1(result, echo: echo, marker: marker, owner: self.owner), requestId: call.requestId)
    }

    /// `GET /bucket?uploads`: the multipart uploads in progress, filtered by `prefix`, at most `max-uploads`.
    func listMultipartUploads(_ call: Call) async throws(AWSErrorResponse) -> Response {
        try self.requireBucket(call)
        try self.authorize(call)
        let prefix = call.query["prefix"] ?? ""
        var maxUploads = 1000
        if let text = call.query["max-uploads"] {
            guard let value = Int(text), value >= 0 else {
                throw S3Errors.invalidArgument(
                    "Provided max-uploads not an integer or within integer range", name: "max-uploads", value: text)
            }
            maxUploads = min(value, 1000)
        }
        let keyMarker = call.query["key-marker"] ?? ""
        let uploads = try await self.store.listMultipartUploads(bucket: call.bucket).filter {
            $0.key.hasPrefix(prefix) && (keyMarker.isEmpty || keyMarker.utf8.lexicographicallyPrecedes($0.key.utf8))
        }
        let page = Array(uploads.prefix(maxUploads))
        return .xml(
            S3XML.listMultipartUploads(
                page, bucket: call.bucket, prefix: prefix, maxUploads: maxUploads, isTruncated: uploads.count > page.count,
                owner: self.owner),
            requestId: call.requestId)
    }

    /// `POST /bucket?delete`: deletes up to 1000 keys, each authorized with `s3:DeleteObject` on its own.
    /// A key the caller may not delete is reported as an `AccessDenied` error in the result, not deleted.
    func deleteObjects(_ call: Call) async throws(AWSErrorResponse) -> Response {
        try self.requireBucket(call)
        let hasChecksum = call.headers.contains { S3Checksum.Algorithm(headerName: $0.name.canonicalName) != nil }
            || call.headers[S3Headers.trailer] != nil
        guard call.headers[S3Headers.contentMD5] != nil || hasChecksum else {
            throw AWSErrorResponse("InvalidRequest", "Missing required header for this request: Content-MD5")
        }
        let body = try await self.collectSmallBody(call)
        let document = try S3RequestXML.parse(Array(buffer: body))
        guard document.name == "Delete" else {
            throw ObjectStoreError.malformedXML("the root element must be Delete, not \(document.name)")
        }
        let quiet = document.child("Quiet")?.text.trimming(.whitespacesAndNewlines).lowercased() == "true"
        let objects = document.children(named: "Object")
        guard !objects.isEmpty else { throw ObjectStoreError.malformedXML("Delete names no Object") }
        guard objects.count <= Self.maximumDeleteKeys else {
            throw ObjectStoreError.malformedXML("Delete names \(objects.count) objects, at most \(Self.maximumDeleteKeys) are allowed")
        }
        var outcomes: [S3XML.DeleteOutcome?] = Array(repeating: nil, count: objects.count)
        var allowedKeys: [(key: String, etag: String?)] = []
        var allowedSlots: [Int] = []
        for (index, object) in objects.enumerated() {
            guard let keyElement = object.child("Key") else {
                throw ObjectStoreError.malformedXML("an Object has no Key")
            }
            let key = keyElement.text
            if let version = object.child("VersionId")?.text, version != "null" {
                outcomes[index] = .failed(key: key, code: "NoSuchVersion", message: "The specified version does not exist.")
                continue
            }
            if let context = call.context {
                let request = AuthorizationRequest.s3Object("DeleteObject", bucket: call.bucket, key: key, context: context)
                guard self.isAllowed(call, request) else {
                    outcomes[index] = .failed(key: key, code: "AccessDenied", message: "Access Denied")
                    continue
                }
            }
            let etag = object.child("ETag")?.text.trimming(.whitespacesAndNewlines)
            allowedKeys.append((key, etag.flatMap { $0.isEmpty ? nil : $0 }))
            allowedSlots.append(index)
        }
        let results = try await self.store.deleteObjects(bucket: call.bucket, keys: allowedKeys)
        for (slot, result) in zip(allowedSlots, results) {
            switch result {
            case .deleted(let key): outcomes[slot] = .deleted(key: key)
            case .failed(let key, let error): outcomes[slot] = .failed(key: key, code: error.code, message: error.message)
            }
        }
        return .xml(S3XML.deleteResult(outcomes.compactMap { $0 }, quiet: quiet), requestId: call.requestId)
    }

    // MARK: Small bodies

    /// Collects a small request body (XML documents, or nothing), checking its size, `x-amz-content-sha256`,
    /// `Content-MD5` and any `x-amz-checksum-*`.
    func collectSmallBody(_ call: Call) async throws(AWSErrorResponse) -> ByteBuffer {
        if let length = call.headers.value(of: .contentLength).flatMap({ Int64($0) }), length > Int64(Self.maximumXMLBodySize) {
            throw ObjectStoreError.entityTooLarge(proposed: length, maximum: Int64(Self.maximumXMLBodySize))
        }
        let stream = try self.bodyStream(call)
        var body = ByteBuffer()
        var sha = SHA256Accumulator()
        var md5 = MD5Accumulator()
        do {
            for try await var buffer in stream {
                guard body.readableBytes + buffer.readableBytes <= Self.maximumXMLBodySize else {
                    throw ObjectStoreError.entityTooLarge(
                        proposed: Int64(body.readableBytes + buffer.readableBytes), maximum: Int64(Self.maximumXMLBodySize))
                }
                sha.update(buffer)
                md5.update(buffer)
                body.writeBuffer(&buffer)
            }
        } catch let error as AWSErrorResponse {
            throw error
        } catch {
            throw S3Errors.incompleteBody()
        }
        let payloadHash = call.authenticated.payloadHash
        if S3PayloadHash.isHexSHA256(payloadHash), sha.hex() != payloadHash.lowercased() {
            throw ObjectStoreError.contentSHA256Mismatch(client: payloadHash, computed: sha.hex())
        }
        if let contentMD5 = call.headers[S3Headers.contentMD5] {
            let trimmed = contentMD5.trimming(.whitespaces)
            guard let expected = Data(base64Encoded: trimmed), expected.count == 16 else {
                throw ObjectStoreError.invalidDigest(contentMD5)
            }
            let computed = md5.digest()
            guard Array(expected) == computed else {
                throw ObjectStoreError.badDigest(expected: contentMD5, calculated: Data(computed).base64EncodedString())
            }
        }
        return body
    }
}
