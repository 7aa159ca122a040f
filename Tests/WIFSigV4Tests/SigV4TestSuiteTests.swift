import Foundation
import Testing
@testable import WIFSigV4

/// The AWS Signature Version 4 test suite (Fixtures/sigv4, from awslabs/aws-c-auth): every request
/// signed with the `Authorization` header and as a presigned URL, compared byte for byte.
@Suite struct SigV4TestSuiteTests {
    /// Every case of the suite. Listed by name so a missing folder fails instead of shrinking the run.
    static let caseNames = [
        "get-header-key-duplicate", "get-header-value-multiline", "get-header-value-order",
        "get-header-value-trim", "get-relative-normalized", "get-relative-relative-normalized",
        "get-relative-relative-unnormalized", "get-relative-unnormalized", "get-slash-dot-slash-normalized",
        "get-slash-dot-slash-unnormalized", "get-slash-normalized", "get-slash-pointless-dot-normalized",
        "get-slash-pointless-dot-unnormalized", "get-slash-unnormalized", "get-slashes-normalized",
        "get-slashes-unnormalized", "get-space-normalized", "get-space-unnormalized", "get-unreserved",
        "get-utf8", "get-vanilla", "get-vanilla-empty-query-key", "get-vanilla-query",
        "get-vanilla-query-order-encoded", "get-vanilla-query-order-key-case", "get-vanilla-query-unreserved",
        "get-vanilla-utf8-query", "get-vanilla-with-session-token", "post-header-key-case",
        "post-header-key-sort", "post-header-value-case", "post-sts-header-after", "post-sts-header-before",
        "post-vanilla", "post-vanilla-empty-query-value", "post-vanilla-query", "post-x-www-form-urlencoded",
        "post-x-www-form-urlencoded-parameters",
    ]

    static let expectedFiles = [
        "context.json", "request.txt",
        "header-canonical-request.txt", "header-string-to-sign.txt", "header-signature.txt",
        "header-signed-request.txt",
        "query-canonical-request.txt", "query-string-to-sign.txt", "query-signature.txt", "query-signed-request.txt",
    ]

    @Test func suiteIsComplete() throws {
        #expect(Self.caseNames.count == 38)
        #expect(Set(Self.caseNames).count == 38)
        let folder = try SigV4Vector.suiteFolder()
        let onDisk = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { name in
                var isDirectory: ObjCBool = false
                return FileManager.default.fileExists(
                    atPath: folder.appending(path: name).path, isDirectory: &isDirectory) && isDirectory.boolValue
            }
        #expect(onDisk.count == 38)
        #expect(Set(onDisk) == Set(Self.caseNames))
        for name in Self.caseNames {
            for file in Self.expectedFiles {
                let path = folder.appending(path: name).appending(path: file).path
                #expect(FileManager.default.fileExists(atPath: path), "missing \(name)/\(file)")
            }
        }
    }

    @Test(arguments: Self.caseNames)
    func headerSigning(_ name: String) throws {
        let vector = try SigV4Vector(name: name)
        let outcome = try vector.signer.signHeaders(
            vector.request, payload: .bytes(vector.body), date: vector.date, capture: true)

        #expect(outcome.canonicalRequest == (try vector.text("header-canonical-request.txt")))
        #expect(outcome.stringToSign == (try vector.text("header-string-to-sign.txt")))
        #expect(outcome.signature == (try vector.text("header-signature.txt")))

        // Every header the suite's signer added is added here with the same value.
        let signed = try SigV4Vector.parseRequest(try vector.text("header-signed-request.txt"))
        let original = Set(vector.request.headers.map { $0.name.lowercased() })
        let expectedAdded = signed.headers.filter { !original.contains($0.name.lowercased()) }
        #expect(!expectedAdded.isEmpty)
        #expect(
            Set(outcome.addedHeaders.map { [$0.name.lowercased(), $0.value] })
                == Set(expectedAdded.map { [$0.name.lowercased(), $0.value] }))

        // `sign(_:)` appends the same headers to the request.
        var request = vector.request
        try vector.signer.sign(&request, payload: .bytes(vector.body), date: vector.date)
        #expect(request.headers == vector.request.headers + outcome.addedHeaders)
    }

    @Test(arguments: Self.caseNames)
    func querySigning(_ name: String) throws {
        let vector = try SigV4Vector(name: name)
        let outcome = try vector.signer.presignQuery(
            vector.request, payload: .bytes(vector.body), date: vector.date, expires: vector.context.expirationInSeconds,
            capture: true)

        #expect(outcome.canonicalRequest == (try vector.text("query-canonical-request.txt")))
        #expect(outcome.stringToSign == (try vector.text("query-string-to-sign.txt")))
        #expect(outcome.signature == (try vector.text("query-signature.txt")))

        // The URL carries the same path and the same query parameters as the suite's request line.
        let signed = try SigV4Vector.parseRequest(try vector.text("query-signed-request.txt"))
        let prefix = "https://\(vector.request.host)"
        #expect(outcome.url.hasPrefix(prefix))
        let target = outcome.url.dropFirst(prefix.count)
        let (path, query) = SigV4Vector.splitTarget(String(target))
        #expect(path == signed.path)
        #expect(query.split(separator: "&").sorted() == signed.query.split(separator: "&").sorted())
    }
}

/// One folder of the suite, parsed.
struct SigV4Vector {
    struct Context: Decodable {
        struct Credentials: Decodable {
            var accessKeyId: String
            var secretAccessKey: String
            var token: String?
            enum CodingKeys: String, CodingKey {
                case accessKeyId = "access_key_id"
                case secretAccessKey = "secret_access_key"
                case token
            }
        }
        var credentials: Credentials
        var expirationInSeconds: Int
        var normalize: Bool
        var region: String
        var service: String
        var signBody: Bool
        var timestamp: String
        var omitSessionToken: Bool?
        enum CodingKeys: String, CodingKey {
            case credentials, normalize, region, service, timestamp
            case expirationInSeconds = "expiration_in_seconds"
            case signBody = "sign_body"
            case omitSessionToken = "omit_session_token"
        }
    }

    struct ParsedRequest {
        var method: String
        var path: String
        var query: String
        var headers: [SigV4Request.Header]
        var body: [UInt8]
    }

    let folder: URL
    let context: Context
    let request: SigV4Request
    let body: [UInt8]
    let date: Date
    let signer: SigV4Signer

    static func suiteFolder() throws -> URL {
        let fixtures = try #require(Bundle.module.url(forResource: "Fixtures", withExtension: nil))
        return fixtures.appending(path: "sigv4")
    }

    init(name: String) throws {
        self.folder = try Self.suiteFolder().appending(path: name)
        self.context = try JSONDecoder().decode(Context.self, from: Data(contentsOf: self.folder.appending(path: "context.json")))
        let parsed = try Self.parseRequest(try String(contentsOf: self.folder.appending(path: "request.txt"), encoding: .utf8))
        let host = try #require(parsed.headers.first { $0.name.lowercased() == "host" }?.value)
        self.request = SigV4Request(
            method: parsed.method, host: host, path: parsed.path, query: parsed.query, headers: parsed.headers)
        self.body = parsed.body
        self.date = try Date(self.context.timestamp, strategy: .iso8601)
        let rules = SigV4Signer.Rules(
            normalizesPath: self.context.normalize,
            encodesPathTwice: true,
            signsContentSHA256Header: self.context.signBody,
            signsSessionToken: !(self.context.omitSessionToken ?? false))
        let credentials = AWSCredentials(
            accessKeyId: self.context.credentials.accessKeyId,
            secretAccessKey: self.context.credentials.secretAccessKey,
            sessionToken: self.context.credentials.token)
        self.signer = SigV4Signer(
            credentials: credentials, region: self.context.region, service: self.context.service, rules: rules,
            keyCache: SigV4SigningKeyCache(capacity: 4))
    }

    func text(_ file: String) throws -> String {
        try String(contentsOf: self.folder.appending(path: file), encoding: .utf8)
    }

    /// Splits `path?query` at the first `?`.
    static func splitTarget(_ target: String) -> (path: String, query: String) {
        guard let mark = target.firstIndex(of: "?") else { return (target, "") }
        return (String(target[..<mark]), String(target[target.index(after: mark)...]))
    }

    /// Parses a raw request: request line, headers (lines starting with whitespace continue the
    /// previous value), a blank line, then the body.
    static func parseRequest(_ text: String) throws -> ParsedRequest {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let requestLine = try #require(lines.first)
        let firstSpace = try #require(requestLine.firstIndex(of: " "))
        let versionStart = try #require(requestLine.range(of: " HTTP/", options: .backwards))
        let method = String(requestLine[..<firstSpace])
        let target = String(requestLine[requestLine.index(after: firstSpace)..<versionStart.lowerBound])
        let (path, query) = Self.splitTarget(target)

        var headers: [SigV4Request.Header] = []
        var index = 1
        while index < lines.count, !lines[index].isEmpty {
            let line = lines[index]
            if line.first == " " || line.first == "\t" {
                let previous = headers.popLast()
                var last = try #require(previous, "a continuation line before any header")
                last.value += "\n" + line
                headers.append(last)
            } else {
                let colon = try #require(line.firstIndex(of: ":"))
                headers.append(.init(String(line[..<colon]), String(line[line.index(after: colon)...])))
            }
            index += 1
        }
        let body = index + 1 < lines.count ? lines[(index + 1)...].joined(separator: "\n") : ""
        return ParsedRequest(method: method, path: path, query: query, headers: headers, body: Array(body.utf8))
    }
}
