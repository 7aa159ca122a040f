import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import PolicyEngine
import WIFFoundation
import WIFAPIServer

extension S3Service {
    /// `PUT /bucket/key`: streams the body to the store, which keeps it only once it is complete and matches
    /// its signed SHA-256, `Content-MD5` and any `x-amz-checksum-*`.
    func putObject(_ call: Call) async throws(AWSErrorResponse) -> Response {
        try self.requireBucket(call)
        try self.authorize(call)
        let checks = try self.payloadChecks(call)
        let attributes = try Self.attributes(from: call.headers)
        let body = try self.bodyStream(call, verifyingHeaderChecksum: false)
        try await self.checkWritePreconditions(call)
        let info = try await self.store.putObject(
            bucket: call.bucket, key: call.key, body: body, attributes: attributes, checks: checks,
            encryption: try self.encryptionRequest(call.headers))
        var response = Response(status: .ok)
        response.headers[.eTag] = info.etag
        response.headers[.contentLength] = "0"
        Self.echoChecksum(call.headers, into: &response.headers)
        Self.checksumHeaders(info.checksum, into: &response.headers)
        Self.encryptionHeaders(info.encryption, into: &response.headers)
        return response
    }

    /// `If-None-Match: *` (create only) and `If-Match` on a put or a multipart completion, as S3 supports
    /// them.
    func checkWritePreconditions(_ call: Call) async throws(AWSErrorResponse) {
        let ifNoneMatch = call.headers.value(of: .ifNoneMatch)
        let ifMatch = call.headers.value(of: .ifMatch)
        guard ifNoneMatch != nil || ifMatch != nil else { return }
        var existing: ObjectInfo?
        do {
            existing = try await self.store.headObject(bucket: call.bucket, key: call.key)
        } catch {
            guard error.code == "NoSuchKey" else { throw error }
        }
        if let ifNoneMatch {
            guard ifNoneMatch.trimming(.whitespaces) == "*" else {
                throw AWSErrorResponse("NotImplemented", "If-None-Match on a write only accepts '*'.", status: .notImplemented)
            }
            if existing != nil { throw S3Errors.preconditionFailed("If-None-Match") }
        }
        if let ifMatch {
            guard let existing else { throw ObjectStoreError.noSuchKey(call.key) }
            guard S3Conditions.etagList(ifMatch, matches: existing.etag) else { throw S3Errors.preconditionFailed("If-Match") }
        }
    }

    /// `GET` and `HEAD /bucket/key`: conditional headers, a single `Range` or one part (`partNumber`), the
    /// stored headers, and the body streamed from disk. A missing key is `NoSuchKey` only for callers who
    /// may list the bucket; others get `AccessDenied`, as in S3.
    func getObject(_ call: Call, head: Bool) async throws(AWSErrorResponse) -> Response {
        try self.requireBucket(call)
        try self.authorize(call)
        let rangeHeader = call.headers.value(of: .range)
        var part: Int?
        if call.query.has("partNumber") {
            part = try self.partNumber(call)
            if rangeHeader != nil { throw S3Errors.invalidRequest("Cannot specify both Range header and partNumber query parameter.") }
        }
        let range = rangeHeader.flatMap { ByteRange(header: $0) }
        let content: ObjectContent
        do {
            // The file is opened once, so the body (not sent for HEAD) matches the headers.
            content = try await self.store.getObject(
                bucket: call.bucket, key: call.key, range: range, part: part, customerKey: try Self.customerKey(call.headers))
        } catch {
            if error.code == "NoSuchKey" { try self.requireListBucketForMissingKey(call) }
            throw error
        }
        let info = content.info
        let now = self.state.timeSource.now()
        switch S3Conditions.evaluate(call.headers, etag: info.etag, lastModified: info.lastModified, now: now) {
        case .proceed: break
        case .notModified:
            var response = Response(status: .notModified)
            response.headers[.eTag] = info.etag
            response.headers[.lastModified] = AWSDate.httpDate(AWSDate.seconds(info.lastModified))
            return response
        case .preconditionFailed(let condition):
            throw S3Errors.preconditionFailed(condition)
        }
        var headers = HTTPFields()
        Self.objectHeaders(info, query: call.query, into: &headers)
        Self.encryptionHeaders(info.encryption, into: &headers)
        if call.headers[S3Headers.checksumMode]?.uppercased() == "ENABLED", range == nil, part == nil {
            // A checksum describes the whole object, so S3 gives it only for whole-object reads.
            Self.checksumHeaders(info.checksum, into: &headers)
        }
        if part != nil, let partCount = info.partCount {
            // Only a read of one part says how many parts the object has.
            headers[S3Headers.partsCount] = String(partCount)
        }
        // HEAD answers as GET would, range or part included, without the body.
        headers[.contentLength] = String(content.contentLength)
        var status = HTTPResponse.Status.ok
        if let contentRange = content.contentRange {
            headers[.contentRange] = contentRange
            status = .partialContent
        }
        return head ? Response(status: status, headers: headers) : Response(status: status, headers: headers, body: content.responseBody)
    }

    /// For a missing key: S3 says `NoSuchKey` only to a caller allowed `s3:ListBucket` on the bucket, and
    /// `AccessDenied` to others, so that reading does not reveal what exists.
    private func requireListBucketForMissingKey(_ call: Call) throws(AWSErrorResponse) {
        guard let context = call.context else { return }
        let request = AuthorizationRequest(action: "s3:ListBucket", resource: "arn:aws:s3:::\(call.bucket)", context: context)
        try self.enforce(call, request)
    }

    /// The headers of a stored object, with the `response-*` overrides of the query.
    static func objectHeaders(_ info: ObjectInfo, query: S3Query, into headers: inout HTTPFields) {
        let attributes = info.attributes
        headers[.eTag] = info.etag
        headers[.lastModified] = AWSDate.httpDate(AWSDate.seconds(info.lastModified))
        headers[S3Headers.acceptRanges] = "bytes"
        headers[.contentType] = query["response-content-type"] ?? attributes.contentType ?? "binary/octet-stream"
        let optional: [(HTTPField.Name, String?, String)] = [
            (.contentEncoding, attributes.contentEncoding, "response-content-encoding"),
            (.contentDisposition, attributes.contentDisposition, "response-content-disposition"),
            (.contentLanguage, attributes.contentLanguage, "response-content-language"),
            (.cacheControl, attributes.cacheControl, "response-cache-control"),
            (.expires, attributes.expires, "response-expires"),
        ]
        for (name, stored, override) in optional {
            if let value = query[override] ?? stored { headers[name] = value }
        }
        for (key, value) in attributes.userMetadata.sorted(by: { $0.key < $1.key }) {
            if let name = HTTPField.Name("x-amz-meta-" + key) { headers[name] = S3MetadataValue.header(value) }
        }
    }

    /// Sends back the `x-amz-checksum-*` header a write was verified against, as S3 does.
    /// `x-amz-checksum-<algorithm>` and `x-amz-checksum-type` of a stored checksum.
    static func checksumHeaders(_ checksum: StoredChecksum?, into headers: inout HTTPFields) {
        guard let checksum, let name = HTTPField.Name(checksum.headerName) else { return }
        headers[name] = checksum.value
        headers[S3Headers.checksumType] = checksum.type.rawValue
    }

    static func echoChecksum(_ request: HTTPFields, into headers: inout HTTPFields) {
        for field in request where S3Checksum.Algorithm(headerName: field.name.canonicalName) != nil {
            headers[field.name] = field.value
        }
    }

    /// `DELETE /bucket/key`: 204 whether or not the key existed.
    func deleteObject(_ call: Call) async throws(AWSErrorResponse) -> Response {
        try self.requireBucket(call)
        try self.authorize(call)
        try await self.store.deleteObject(bucket: call.bucket, key: call.key, ifMatch: call.headers.value(of: .ifMatch))
        return Response(status: .noContent)
    }

    // MARK: Copy

    /// The source of a copy: `x-amz-copy-source` as `bucket/key` or `/bucket/key`, URL-encoded.
    struct CopySource: Sendable, Hashable {
        var bucket: String
        var key: String

        init(header: String) throws(AWSErrorResponse) {
            var text = Substring(header)
            if let question = text.firstIndex(of: "?") {
                let suffix = text[text.index(after: question)...]
                if suffix.hasPrefix("versionId="), suffix.dropFirst("versionId=".count) != "null" {
                    throw S3Errors.notImplemented("Copying a version (versionId in x-amz-copy-source)")
                }
                text = text[..<question]
            }
            if text.hasPrefix("/") { text = text.dropFirst() }
            guard let slash = text.firstIndex(of: "/"),
                let bucket = S3PercentDecoding.decode(text[..<slash], plusIsSpace: false),
                let key = S3PercentDecoding.decode(text[text.index(after: slash)...], plusIsSpace: false),
                !bucket.isEmpty, !key.isEmpty
            else {
                throw S3Errors.invalidArgument(
                    "Copy Source must mention the source bucket and key: sourcebucket/sourcekey", name: "x-amz-copy-source",
                    value: header)
            }
            self.bucket = bucket
            self.key = key
        }
    }

    /// Authorizes reading a copy source (`s3:GetObject` on it) and opens it, checking the
    /// `x-amz-copy-source-if-*` conditions.
    func openCopySource(_ call: Call, range: ByteRange?) async throws(AWSErrorResponse) -> ObjectContent {
        guard let header = call.headers[S3Headers.copySource] else {
            throw S3Errors.invalidRequest("The x-amz-copy-source header is missing.")
        }
        let source = try CopySource(header: header)
        guard self.store.bucketExists(source.bucket) else { throw ObjectStoreError.noSuchBucket(source.bucket) }
        if let context = call.context {
            let request = AuthorizationRequest.s3Object("GetObject", bucket: source.bucket, key: source.key, context: context)
            if case .denied(let message) = self.authorizer.decide(request, bucket: source.bucket, caller: call.caller) {
                throw AWSErrorResponse("AccessDenied", message, status: .forbidden)
            }
        }
        let content: ObjectContent
        do {
            content = try await self.store.getObject(
                bucket: source.bucket, key: source.key, range: range,
                customerKey: try Self.customerKey(call.headers, prefix: Self.copySourceCustomerKeyPrefix))
        } catch {
            if error.code == "NoSuchKey", let context = call.context {
                let list = AuthorizationRequest(action: "s3:ListBucket", resource: "arn:aws:s3:::\(source.bucket)", context: context)
                if case .denied(let message) = self.authorizer.decide(list, bucket: source.bucket, caller: call.caller) {
                    throw AWSErrorResponse("AccessDenied", message, status: .forbidden)
                }
            }
            throw error
        }
        let outcome = S3Conditions.evaluateCopySource(
            call.headers, etag: content.info.etag, lastModified: content.info.lastModified, now: self.state.timeSource.now())
        if case .preconditionFailed(let condition) = outcome { throw S3Errors.preconditionFailed(condition) }
        return content
    }

    /// `PUT /bucket/key` with `x-amz-copy-source`: authorized as `s3:GetObject` on the source and
    /// `s3:PutObject` on the target; the bytes stream from the source file into a new object.
    func copyObject(_ call: Call) async throws(AWSErrorResponse) -> Response {
        try self.requireBucket(call)
        try self.authorize(call)
        let source = try await self.openCopySource(call, range: nil)
        let directive = call.headers[S3Headers.metadataDirective]?.uppercased() ?? "COPY"
        guard directive == "COPY" || directive == "REPLACE" else {
            throw S3Errors.invalidArgument("Unknown metadata directive.", name: "x-amz-metadata-directive", value: directive)
        }
        let encryption = try self.encryptionRequest(call.headers)
        if let header = call.headers[S3Headers.copySource], let parsed = try? CopySource(header: header),
            parsed.bucket == call.bucket, parsed.key == call.key, directive == "COPY", encryption == nil
        {
            throw S3Errors.invalidRequest(
                "This copy request is illegal because it is trying to copy an object to itself without changing the object's "
                    + "metadata, storage class, website redirect location or encryption attributes.")
        }
        let attributes = directive == "REPLACE" ? try Self.attributes(from: call.headers) : source.info.attributes
        let info = try await self.store.putObject(
            bucket: call.bucket, key: call.key, body: source.body, attributes: attributes,
            checks: PayloadChecks(expectedLength: source.contentLength), encryption: encryption)
        var response = Response.xml(S3XML.copyObjectResult(etag: info.etag, lastModified: info.lastModified), requestId: call.requestId)
        Self.encryptionHeaders(info.encryption, into: &response.headers)
        return response
    }
}

/// The conditional request headers of S3 reads and copies.
enum S3Conditions {
    enum Outcome: Sendable, Equatable {
        case proceed
        case notModified
        case preconditionFailed(String)
    }

    /// `If-Match`, `If-Unmodified-Since`, `If-None-Match` and `If-Modified-Since` as S3 documents them:
    /// `If-Match` true makes `If-Unmodified-Since` irrelevant; `If-None-Match` present makes
    /// `If-Modified-Since` irrelevant. A date in the future is ignored, as HTTP prescribes.
    static func evaluate(_ headers: HTTPFields, etag: String, lastModified: Date, now: Date) -> Outcome {
        let modified = Int64(lastModified.timeIntervalSince1970.rounded(.down))
        let current = Int64(now.timeIntervalSince1970.rounded(.down))
        if let ifMatch = headers.value(of: .ifMatch) {
            if !Self.etagList(ifMatch, matches: etag) { return .preconditionFailed("If-Match") }
        } else if let text = headers.value(of: .ifUnmodifiedSince), let date = AWSDate.parseHTTPDateOrISO8601(text), date <= current, modified > date {
            return .preconditionFailed("If-Unmodified-Since")
        }
        if let ifNoneMatch = headers.value(of: .ifNoneMatch) {
            if Self.etagList(ifNoneMatch, matches: etag) { return .notModified }
        } else if let text = headers.value(of: .ifModifiedSince), let date = AWSDate.parseHTTPDateOrISO8601(text), date <= current, modified <= date {
            return .notModified
        }
        return .proceed
    }

    /// The `x-amz-copy-source-if-*` headers, which fail with 412 in every case.
    static func evaluateCopySource(_ headers: HTTPFields, etag: String, lastModified: Date, now: Date) -> Outcome {
        func header(_ name: String) -> String? { HTTPField.Name(name).flatMap { headers[$0] } }
        let modified = Int64(lastModified.timeIntervalSince1970.rounded(.down))
        let current = Int64(now.timeIntervalSince1970.rounded(.down))
        let ifMatch = header("x-amz-copy-source-if-match")
        if let ifMatch, !Self.etagList(ifMatch, matches: etag) { return .preconditionFailed("x-amz-copy-source-If-Match") }
        if ifMatch == nil, let text = header("x-amz-copy-source-if-unmodified-since"), let date = AWSDate.parseHTTPDateOrISO8601(text),
            modified > date
        {
            return .preconditionFailed("x-amz-copy-source-If-Unmodified-Since")
        }
        let ifNoneMatch = header("x-amz-copy-source-if-none-match")
        if let ifNoneMatch, Self.etagList(ifNoneMatch, matches: etag) {
            return .preconditionFailed("x-amz-copy-source-If-None-Match")
        }
        if ifNoneMatch == nil, let text = header("x-amz-copy-source-if-modified-since"), let date = AWSDate.parseHTTPDateOrISO8601(text),
            date <= current, modified <= date
        {
            return .preconditionFailed("x-amz-copy-source-If-Modified-Since")
        }
        return .proceed
    }

    /// Whether a list of entity tags (`"a", "b"`, `*`, quoted or not, weak or strong) names the given one.
    static func etagList(_ list: String, matches etag: String) -> Bool {
        let bare = Self.bare(etag)
        for item in list.split(separator: ",") {
            let candidate = item.trimming(.whitespaces)
            if candidate == "*" || Self.bare(candidate) == bare { return true }
        }
        return false
    }

    private static func bare(_ etag: String) -> String {
        var text = Substring(etag)
        if text.hasPrefix("W/") { text = text.dropFirst(2) }
        if text.hasPrefix("\""), text.hasSuffix("\""), text.count >= 2 { text = text.dropFirst().dropLast() }
        return String(text)
    }
}
