import Foundation
import Testing
@testable import WIFSigV4

/// S3 and STS requests signed by botocore (Fixtures/sigv4-s3/cases.json, written by
/// scripts/sigv4-oracle.py), reproduced by the Swift signer.
@Suite struct SigV4BotocoreTests {
    struct Document: Decodable, Equatable {
        var accessKeyId: String
        var secretAccessKey: String
        var cases: [Case]
        enum CodingKeys: String, CodingKey {
            case cases
            case accessKeyId = "access_key_id"
            case secretAccessKey = "secret_access_key"
        }
    }

    struct Case: Decodable, Equatable, CustomTestStringConvertible {
        struct Expected: Decodable, Equatable {
            var canonicalRequest: String
            var stringToSign: String
            var signature: String
            var addedHeaders: [[String]]?
            var url: String?
            enum CodingKeys: String, CodingKey {
                case signature, url
                case canonicalRequest = "canonical_request"
                case stringToSign = "string_to_sign"
                case addedHeaders = "added_headers"
            }
        }
        var name: String
        var mode: String
        var rules: String
        var service: String
        var region: String
        var time: String
        var expires: Int?
        var sessionToken: String?
        var method: String
        var scheme: String
        var host: String
        var path: String
        var query: String
        var headers: [[String]]
        var body: String
        var payload: String
        var expected: Expected
        enum CodingKeys: String, CodingKey {
            case name, mode, rules, service, region, time, expires, method, scheme, host, path, query, headers, body,
                payload, expected
            case sessionToken = "session_token"
        }

        var testDescription: String { self.name }
    }

    static let fixtureCount = 24

    static func committedDocument() throws -> Document {
        let fixtures = try #require(Bundle.module.url(forResource: "Fixtures", withExtension: nil))
        let data = try Data(contentsOf: fixtures.appending(path: "sigv4-s3").appending(path: "cases.json"))
        return try JSONDecoder().decode(Document.self, from: data)
    }

    /// The cases, for the argument table; an unreadable file yields no cases and fails `fixtureIsComplete`.
    static let committedCases: [Case] = (try? committedDocument().cases) ?? []

    @Test func fixtureIsComplete() throws {
        let document = try Self.committedDocument()
        #expect(document.cases.count == Self.fixtureCount)
        #expect(Set(document.cases.map(\.name)).count == document.cases.count)
        #expect(document.cases.contains { $0.mode == "query" && $0.sessionToken != nil && $0.rules == "s3" })
        #expect(document.cases.contains { $0.payload == "unsigned" && $0.mode == "header" })
        #expect(document.cases.contains { $0.rules == "standard" && $0.service == "sts" })
    }

    @Test(arguments: Self.committedCases)
    func swiftSignerMatchesBotocore(_ testCase: Case) throws {
        let document = try Self.committedDocument()
        try Self.check(testCase, accessKeyId: document.accessKeyId, secretAccessKey: document.secretAccessKey)
    }

    /// Whether `python3` can import botocore here.
    static let botocoreAvailable: Bool = {
        guard let result = try? runPython(["-c", "import botocore"]) else { return false }
        return result.status == 0
    }()

    @Test(.enabled(if: Self.botocoreAvailable, "python3 cannot import botocore, so the oracle cannot run live"))
    func liveOracleAgreesWithCommittedFixtureAndSwiftSigner() throws {
        let script = URL(filePath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appending(path: "scripts").appending(path: "sigv4-oracle.py")
        try #require(FileManager.default.fileExists(atPath: script.path), "the oracle script is missing")
        let result = try Self.runPython([script.path, "--output", "-"])
        try #require(result.status == 0, "the oracle failed: \(result.errorOutput)")
        let live = try JSONDecoder().decode(Document.self, from: result.output)

        #expect(live == (try Self.committedDocument()), "cases.json is stale: run scripts/sigv4-oracle.py")
        for testCase in live.cases {
            try Self.check(testCase, accessKeyId: live.accessKeyId, secretAccessKey: live.secretAccessKey)
        }
    }

    static func check(_ testCase: Case, accessKeyId: String, secretAccessKey: String) throws {
        let credentials = AWSCredentials(
            accessKeyId: accessKeyId, secretAccessKey: secretAccessKey, sessionToken: testCase.sessionToken)
        let rules: SigV4Signer.Rules = testCase.rules == "s3" ? .s3 : .standard
        #expect(SigV4Signer.Rules.for(service: testCase.service) == rules)
        let signer = SigV4Signer(
            credentials: credentials, region: testCase.region, service: testCase.service,
            keyCache: SigV4SigningKeyCache(capacity: 4))
        let request = SigV4Request(
            method: testCase.method, scheme: testCase.scheme, host: testCase.host, path: testCase.path,
            query: testCase.query, headers: testCase.headers.map { .init($0[0], $0[1]) })
        let date = try Date(testCase.time, strategy: .iso8601)
        let payload: SigV4Signer.Payload =
            switch testCase.payload {
            case "bytes": .bytes(Array(testCase.body.utf8))
            case "unsigned": .unsigned
            default: .empty
            }

        let outcome: SigV4Signer.Outcome
        if testCase.mode == "header" {
            outcome = try signer.signHeaders(request, payload: payload, date: date, capture: true)
            let expectedHeaders = try #require(testCase.expected.addedHeaders)
            #expect(
                Set(outcome.addedHeaders.map { [$0.name.lowercased(), $0.value] })
                    == Set(expectedHeaders.map { [$0[0].lowercased(), $0[1]] }),
                "\(testCase.name): added headers differ")
        } else {
            // Presigning picks UNSIGNED-PAYLOAD for S3 and the empty hash otherwise by itself.
            outcome = try signer.presignQuery(
                request, payload: nil, date: date, expires: try #require(testCase.expires), capture: true)
            #expect(outcome.url == testCase.expected.url, "\(testCase.name): presigned URL differs")
            #expect(try signer.presign(request, date: date, expires: try #require(testCase.expires)) == outcome.url)
        }
        #expect(outcome.canonicalRequest == testCase.expected.canonicalRequest, "\(testCase.name): canonical request")
        #expect(outcome.stringToSign == testCase.expected.stringToSign, "\(testCase.name): string to sign")
        #expect(outcome.signature == testCase.expected.signature, "\(testCase.name): signature")
    }

    static func runPython(_ arguments: [String]) throws -> (status: Int32, output: Data, errorOutput: String) {
        let process = Process()
        process.executableURL = URL(filePath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, data, String(decoding: errorData, as: UTF8.self))
    }
}
