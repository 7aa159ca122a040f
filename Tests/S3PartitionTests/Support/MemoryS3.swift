import Crypto
import Foundation
import Synchronization

/// A small S3 in memory, served by a ``FaultServer``, with faults injected on chosen requests.
///
/// It speaks path-style requests for the operations the client uses — objects, ranges, `If-Match`,
/// multipart uploads, listings, batch deletes — and checks the bodies it receives against their
/// `x-amz-content-sha256` and `x-amz-checksum-*` headers as S3 does, so that a part sent wrong after a
/// retry would be caught. Signatures are not checked; a key id in ``rejectedKeys`` is answered with
/// ``rejection``.
final class MemoryS3: Sendable {
    /// A logged request.
    struct Logged: Sendable {
        var method: String
        var path: String
        var query: [String: String]
        var accessKeyId: String?
        var headers: [(name: String, value: String)]
        var bodyCount: Int

        func header(_ name: String) -> String? {
            self.headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    /// What an injected fault does.
    enum FaultAction: Sendable {
        /// Answer with this status and an S3 error document with this code (no document when `nil`).
        case error(status: Int, code: String?)
        /// The same, with extra headers (such as `Date`).
        case errorWithHeaders(status: Int, code: String, headers: [(String, String)])
        /// Handle the request normally, then send only this many bytes of the body and close.
        case truncate(after: Int)
        /// Close the connection without answering (after reading the request).
        case close
        /// Answer exactly this.
        case reply(FaultServer.Reply)
    }

    private struct Fault {
        var matches: @Sendable (FaultServer.Request) -> Bool
        var remaining: Int
        var action: FaultAction
    }

    private struct Upload {
        var bucket: String
        var key: String
        var parts: [Int: (bytes: [UInt8], eTag: String)] = [:]
    }

    private struct State {
        var buckets: Set<String> = []
        var objects: [String: [String: (bytes: [UInt8], eTag: String, contentType: String)]] = [:]
        var uploads: [String: Upload] = [:]
        var aborted: [String] = []
        var completed: [String] = []
        var nextUpload = 1
        var faults: [Fault] = []
        var log: [Logged] = []
        var rejectedKeys: Set<String> = []
    }

    private let state = Mutex(State())
    /// The answer to a request signed with a rejected key.
    let rejection: (status: Int, code: String)

    init(buckets: [String] = ["bucket"], rejection: (status: Int, code: String) = (400, "ExpiredToken")) {
        self.rejection = rejection
        self.state.withLock { $0.buckets = Set(buckets) }
    }

    /// Answers `KEY…` ids in this set with ``rejection``.
    func reject(accessKeyId: String) {
        self.state.withLock { _ = $0.rejectedKeys.insert(accessKeyId) }
    }

    /// Injects a fault on the next `times` requests that match.
    func inject(_ action: FaultAction, times: Int = 1, when matches: @escaping @Sendable (FaultServer.Request) -> Bool) {
        self.state.withLock { $0.faults.append(Fault(matches: matches, remaining: times, action: action)) }
    }

    /// Stores an object directly, with its MD5 as ETag unless another is given.
    func store(_ bytes: [UInt8], bucket: String = "bucket", key: String, eTag: String? = nil) {
        self.state.withLock { $0.objects[bucket, default: [:]][key] = (bytes, eTag ?? Self.md5Hex(bytes), "application/octet-stream") }
    }

    func object(bucket: String = "bucket", key: String) -> [UInt8]? {
        self.state.withLock { $0.objects[bucket]?[key]?.bytes }
    }

    var log: [Logged] { self.state.withLock { $0.log } }
    var abortedUploads: [String] { self.state.withLock { $0.aborted } }
    var completedUploads: [String] { self.state.withLock { $0.completed } }
    var openUploads: Int { self.state.withLock { $0.uploads.count } }

    /// The handler to give a ``FaultServer``.
    var handler: @Sendable (FaultServer.Request) -> FaultServer.Reply {
        { request in self.handle(request) }
    }

    func handle(_ request: FaultServer.Request) -> FaultServer.Reply {
        let fault: FaultAction? = self.state.withLock { state in
            state.log.append(
                Logged(
                    method: request.method, path: request.path, query: request.query, accessKeyId: request.accessKeyId,
                    headers: request.headers, bodyCount: request.body.count))
            if let keyId = request.accessKeyId, state.rejectedKeys.contains(keyId) {
                return .error(status: self.rejection.status, code: self.rejection.code)
            }
            guard let index = state.faults.firstIndex(where: { $0.remaining > 0 && $0.matches(request) }) else { return nil }
            state.faults[index].remaining -= 1
            return state.faults[index].action
        }
        switch fault {
        case .error(let status, let code)?:
            return Self.error(status: status, code: code)
        case .errorWithHeaders(let status, let code, let extra)?:
            guard case .response(let status, let headers, let body) = Self.error(status: status, code: code) else { return .closeConnection }
            return .response(status: status, headers: headers + extra, body: body)
        case .close?:
            return .closeConnection
        case .reply(let reply)?:
            return reply
        case .truncate(let after)?:
            if case .response(let status, let headers, let body) = self.serve(request) {
                return .truncated(status: status, headers: headers, body: body, sending: after)
            }
            return .closeConnection
        case nil:
            return self.serve(request)
        }
    }

    // MARK: Operations

    private func serve(_ request: FaultServer.Request) -> FaultServer.Reply {
        let components = request.path.dropFirst().split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        let bucket = components.first.map(String.init) ?? ""
        let key = components.count > 1 ? String(components[1]) : ""
        let query = request.query
        if let problem = Self.checkBody(request) { return problem }
        return self.state.withLock { state -> FaultServer.Reply in
            guard state.buckets.contains(bucket) else { return Self.error(status: 404, code: "NoSuchBucket") }
            switch (request.method, key.isEmpty) {
            case ("GET", true) where query["list-type"] == "2":
                return Self.list(state.objects[bucket] ?? [:], query: query)
            case ("POST", true) where query["delete"] != nil:
                let keys = Self.elements("Key", in: request.body)
                for key in keys { state.objects[bucket]?[key] = nil }
                return .response(status: 200, headers: [], body: Array("<DeleteResult></DeleteResult>".utf8))
            case ("POST", false) where query["uploads"] != nil:
                let id = "upload-\(state.nextUpload)"
                state.nextUpload += 1
                state.uploads[id] = Upload(bucket: bucket, key: key)
                return Self.xml("<InitiateMultipartUploadResult><Bucket>\(bucket)</Bucket><Key>\(key)</Key><UploadId>\(id)</UploadId></InitiateMultipartUploadResult>")
            case ("PUT", false) where query["uploadId"] != nil:
                guard let id = query["uploadId"], state.uploads[id] != nil, let number = Int(query["partNumber"] ?? "") else {
                    return Self.error(status: 404, code: "NoSuchUpload")
                }
                let eTag = "\"\(Self.md5Hex(request.body))\""
                state.uploads[id]?.parts[number] = (request.body, eTag)
                return .response(status: 200, headers: [("ETag", eTag)], body: [])
            case ("POST", false) where query["uploadId"] != nil:
                guard let id = query["uploadId"], let upload = state.uploads[id] else { return Self.error(status: 404, code: "NoSuchUpload") }
                let numbers = Self.elements("PartNumber", in: request.body).compactMap { Int($0) }
                let eTags = Self.elements("ETag", in: request.body)
                var bytes: [UInt8] = []
                var md5s: [UInt8] = []
                for (number, eTag) in zip(numbers, eTags) {
                    guard let part = upload.parts[number], part.eTag == eTag else { return Self.error(status: 400, code: "InvalidPart") }
                    bytes += part.bytes
                    md5s += Array(Insecure.MD5.hash(data: part.bytes))
                }
                let eTag = Self.hex(Array(Insecure.MD5.hash(data: md5s))) + "-\(numbers.count)"
                state.objects[bucket, default: [:]][key] = (bytes, eTag, "application/octet-stream")
                state.uploads[id] = nil
                state.completed.append(id)
                return Self.xml("<CompleteMultipartUploadResult><Key>\(key)</Key><ETag>\"\(eTag)\"</ETag></CompleteMultipartUploadResult>")
            case ("DELETE", false) where query["uploadId"] != nil:
                guard let id = query["uploadId"], state.uploads.removeValue(forKey: id) != nil else {
                    return Self.error(status: 404, code: "NoSuchUpload")
                }
                state.aborted.append(id)
                return .response(status: 204, headers: [], body: [])
            case ("PUT", false):
                if request.header("if-none-match") == "*", state.objects[bucket]?[key] != nil {
                    return Self.error(status: 412, code: "PreconditionFailed")
                }
                let eTag = Self.md5Hex(request.body)
                state.objects[bucket, default: [:]][key] = (request.body, eTag, request.header("content-type") ?? "binary/octet-stream")
                return .response(status: 200, headers: [("ETag", "\"\(eTag)\"")], body: [])
            case ("GET", false), ("HEAD", false):
                guard let object = state.objects[bucket]?[key] else {
                    return request.method == "HEAD" ? .response(status: 404, headers: [], body: []) : Self.error(status: 404, code: "NoSuchKey")
                }
                if let ifMatch = request.header("if-match"), ifMatch != "\"\(object.eTag)\"" {
                    return Self.error(status: 412, code: "PreconditionFailed")
                }
                var headers: [(String, String)] = [("ETag", "\"\(object.eTag)\""), ("Content-Type", object.contentType)]
                if let range = request.header("range"), let (start, end) = Self.parseRange(range, size: object.bytes.count) {
                    headers.append(("Content-Range", "bytes \(start)-\(end)/\(object.bytes.count)"))
                    return .response(status: 206, headers: headers, body: Array(object.bytes[start...end]))
                }
                return .response(status: 200, headers: headers, body: object.bytes)
            case ("DELETE", false):
                state.objects[bucket]?[key] = nil
                return .response(status: 204, headers: [], body: [])
            default:
                return Self.error(status: 405, code: "MethodNotAllowed")
            }
        }
    }

    /// Checks a body against `x-amz-content-sha256` and `x-amz-checksum-sha256`, as S3 does.
    private static func checkBody(_ request: FaultServer.Request) -> FaultServer.Reply? {
        let digest = SHA256.hash(data: request.body)
        if let declared = request.header("x-amz-content-sha256"), declared != "UNSIGNED-PAYLOAD", declared != Self.hex(Array(digest)) {
            return Self.error(status: 400, code: "XAmzContentSHA256Mismatch")
        }
        if let declared = request.header("x-amz-checksum-sha256"), declared != Data(digest).base64EncodedString() {
            return Self.error(status: 400, code: "XAmzContentChecksumMismatch")
        }
        return nil
    }

    private static func list(_ objects: [String: (bytes: [UInt8], eTag: String, contentType: String)], query: [String: String]) -> FaultServer.Reply {
        let prefix = query["prefix"] ?? ""
        let maxKeys = Int(query["max-keys"] ?? "") ?? 1000
        let after = query["continuation-token"] ?? ""
        let keys = objects.keys.filter { $0.hasPrefix(prefix) && $0 > after }.sorted()
        let page = keys.prefix(maxKeys)
        var xml = "<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Prefix>\(prefix)</Prefix><KeyCount>\(page.count)</KeyCount>"
        xml += "<IsTruncated>\(keys.count > maxKeys)</IsTruncated>"
        if keys.count > maxKeys, let last = page.last { xml += "<NextContinuationToken>\(Self.escape(last))</NextContinuationToken>" }
        for key in page {
            xml += "<Contents><Key>\(Self.escape(key))</Key><Size>\(objects[key]?.bytes.count ?? 0)</Size><ETag>&quot;\(objects[key]?.eTag ?? "")&quot;</ETag></Contents>"
        }
        return Self.xml(xml + "</ListBucketResult>")
    }

    private static func parseRange(_ header: String, size: Int) -> (Int, Int)? {
        guard header.hasPrefix("bytes=") else { return nil }
        let bounds = header.dropFirst(6).split(separator: "-", omittingEmptySubsequences: false)
        guard bounds.count == 2, let start = Int(bounds[0]), start < size else { return nil }
        let end = min(Int(bounds[1]) ?? (size - 1), size - 1)
        return (start, end)
    }

    /// The texts of every `<name>` element, unescaped (enough for the documents the client sends).
    static func elements(_ name: String, in body: [UInt8]) -> [String] {
        let text = String(decoding: body, as: UTF8.self)
        var result: [String] = []
        var rest = Substring(text)
        while let open = rest.range(of: "<\(name)>"), let close = rest[open.upperBound...].range(of: "</\(name)>") {
            result.append(Self.unescape(String(rest[open.upperBound..<close.lowerBound])))
            rest = rest[close.upperBound...]
        }
        return result
    }

    static func error(status: Int, code: String?) -> FaultServer.Reply {
        guard let code else { return .response(status: status, headers: [], body: []) }
        let body = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>\(code)</Code><Message>injected \(code)</Message><RequestId>REQ-\(status)</RequestId></Error>"
        return .response(status: status, headers: [("Content-Type", "application/xml"), ("x-amz-request-id", "REQ-\(status)")], body: Array(body.utf8))
    }

    private static func xml(_ text: String) -> FaultServer.Reply {
        .response(status: 200, headers: [("Content-Type", "application/xml")], body: Array(text.utf8))
    }

    static func md5Hex(_ bytes: [UInt8]) -> String { Self.hex(Array(Insecure.MD5.hash(data: bytes))) }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }

    private static func unescape(_ text: String) -> String {
        text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
    }
}
