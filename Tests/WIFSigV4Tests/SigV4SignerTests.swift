import Foundation
import Testing
import WIFTestSupport
@testable import WIFSigV4

@Suite struct SigV4SignerTests {
    static let secret = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
    static let token = "FwoGZXIvYXdzEXAMPLE/token+with=reserved"
    static let date = Date(timeIntervalSince1970: 1_709_251_199)  // 2024-02-29T23:59:59Z

    static func signer(
        service: String = "s3",
        token: String? = nil,
        rules: SigV4Signer.Rules? = nil,
        cache: SigV4SigningKeyCache = SigV4SigningKeyCache(capacity: 8)
    ) -> SigV4Signer {
        SigV4Signer(
            credentials: AWSCredentials(accessKeyId: "AKIDEXAMPLE", secretAccessKey: Self.secret, sessionToken: token),
            region: "eu-west-3", service: service, rules: rules, keyCache: cache)
    }

    static func canonicalLines(_ outcome: SigV4Signer.Outcome) throws -> [Substring] {
        try #require(outcome.canonicalRequest).split(separator: "\n", omittingEmptySubsequences: false)
    }

    // MARK: Session tokens

    @Test func sessionTokenIsSentAndSignedAsHeader() throws {
        var request = SigV4Request(method: "GET", host: "s3.eu-west-3.amazonaws.com", path: "/bucket/key")
        try Self.signer(token: Self.token).sign(&request, payload: .empty, date: Self.date)

        #expect(request.headerValue("X-Amz-Security-Token") == Self.token)
        let authorization = try #require(request.headerValue("authorization"))
        #expect(authorization.contains("SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token,"))

        let outcome = try Self.signer(token: Self.token).signHeaders(
            SigV4Request(method: "GET", host: "s3.eu-west-3.amazonaws.com", path: "/bucket/key"),
            payload: .empty, date: Self.date, capture: true)
        #expect(try Self.canonicalLines(outcome).contains("x-amz-security-token:\(Self.token)"))

        // Without a token there is no token header, and the signature differs.
        var plain = SigV4Request(method: "GET", host: "s3.eu-west-3.amazonaws.com", path: "/bucket/key")
        try Self.signer().sign(&plain, payload: .empty, date: Self.date)
        #expect(plain.headerValue("x-amz-security-token") == nil)
        #expect(plain.headerValue("authorization") != authorization)
    }

    @Test func sessionTokenIsInPresignedQuery() throws {
        let request = SigV4Request(method: "GET", host: "bucket.s3.amazonaws.com", path: "/key.txt")
        let outcome = try Self.signer(token: Self.token).presignQuery(
            request, payload: nil, date: Self.date, expires: 900, capture: true)
        let encoded = "X-Amz-Security-Token=FwoGZXIvYXdzEXAMPLE%2Ftoken%2Bwith%3Dreserved"
        #expect(outcome.url.contains("&" + encoded + "&X-Amz-Signature="))
        #expect(try Self.canonicalLines(outcome)[2].contains(encoded))

        let withoutToken = try Self.signer().presign(request, date: Self.date, expires: 900)
        #expect(!withoutToken.contains("X-Amz-Security-Token"))
    }

    @Test func unsignedSessionTokenIsAddedAfterSigning() throws {
        var rules = SigV4Signer.Rules.standard
        rules.signsSessionToken = false
        let signer = Self.signer(service: "iotdevicegateway", token: Self.token, rules: rules)
        let request = SigV4Request(method: "GET", host: "example.iot.eu-west-3.amazonaws.com", path: "/mqtt")

        let headers = try signer.signHeaders(request, payload: .empty, date: Self.date, capture: true)
        #expect(headers.addedHeaders.contains(.init("X-Amz-Security-Token", Self.token)))
        #expect(headers.signedHeaders == "host;x-amz-date")

        let query = try signer.presignQuery(request, payload: nil, date: Self.date, expires: 60, capture: true)
        #expect(query.url.contains("X-Amz-Security-Token="))
        #expect(try !Self.canonicalLines(query)[2].contains("X-Amz-Security-Token"))
    }

    // MARK: S3 and standard path rules

    @Test(arguments: [
        // path, S3 canonical URI, standard canonical URI
        ("/bucket/a/../b//c/./d", "/bucket/a/../b//c/./d", "/bucket/b/c/d"),
        ("/bucket/my%20file.txt", "/bucket/my%20file.txt", "/bucket/my%2520file.txt"),
        ("/bucket/a%2Fb", "/bucket/a%2Fb", "/bucket/a%252Fb"),
        ("/bucket/a%2fb%7e", "/bucket/a%2Fb~", "/bucket/a%252fb%257e"),
        ("/bucket/raw space+plus", "/bucket/raw%20space%2Bplus", "/bucket/raw%20space%2Bplus"),
        ("/bucket/100%", "/bucket/100%25", "/bucket/100%25"),
        ("//", "//", "/"),
        ("", "/", "/"),
        ("/bucket/dir/", "/bucket/dir/", "/bucket/dir/"),
    ])
    func pathRules(_ path: String, s3: String, standard: String) throws {
        let request = SigV4Request(method: "GET", host: "example.amazonaws.com", path: path)
        let s3Outcome = try Self.signer(rules: .s3).signHeaders(request, payload: .empty, date: Self.date, capture: true)
        #expect(try Self.canonicalLines(s3Outcome)[1] == s3[...])
        let standardOutcome = try Self.signer(service: "sts").signHeaders(
            request, payload: .empty, date: Self.date, capture: true)
        #expect(try Self.canonicalLines(standardOutcome)[1] == standard[...])
    }

    @Test func s3AddsContentHashHeaderAndStandardDoesNot() throws {
        let request = SigV4Request(method: "PUT", host: "bucket.s3.amazonaws.com", path: "/key")
        let s3 = try Self.signer().signingHeaders(for: request, payload: .unsigned, date: Self.date)
        #expect(s3.contains(.init("X-Amz-Content-SHA256", "UNSIGNED-PAYLOAD")))
        let body = try Self.signer().signingHeaders(for: request, payload: .bytes(Array("hello".utf8)), date: Self.date)
        #expect(body.contains(.init("X-Amz-Content-SHA256", "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824")))

        let sts = try Self.signer(service: "sts").signingHeaders(for: request, payload: .empty, date: Self.date)
        #expect(!sts.contains { $0.name.lowercased() == "x-amz-content-sha256" })
    }

    // MARK: Headers

    @Test func headersAreCanonicalised() throws {
        let request = SigV4Request(
            method: "POST", host: "sts.amazonaws.com", path: "/",
            headers: [
                .init("Content-Type", "application/x-www-form-urlencoded; charset=utf-8"),
                .init("User-Agent", "wif-tool/1.0"),
                .init("Connection", "keep-alive"),
                .init("X-Multi", "  first\n   second  "),
                .init("x-multi", "third"),
            ])
        let outcome = try Self.signer(service: "sts").signHeaders(
            request, payload: .empty, date: Self.date, capture: true)
        #expect(outcome.signedHeaders == "content-type;host;x-amz-date;x-multi")
        let lines = try Self.canonicalLines(outcome)
        #expect(lines.contains("host:sts.amazonaws.com"))
        #expect(lines.contains("x-multi:first second,third"))
        #expect(!lines.contains { $0.hasPrefix("user-agent") })
    }

    @Test func signingAgainReplacesTheEarlierSignature() throws {
        let signer = Self.signer(token: Self.token)
        var request = SigV4Request(method: "GET", host: "bucket.s3.amazonaws.com", path: "/key")
        try signer.sign(&request, payload: .empty, date: Self.date)
        let later = Self.date.addingTimeInterval(60)
        try signer.sign(&request, payload: .empty, date: later)

        for name in ["authorization", "x-amz-date", "x-amz-security-token", "x-amz-content-sha256"] {
            #expect(request.headers.filter { $0.name.lowercased() == name }.count == 1, "\(name) repeated")
        }
        #expect(request.headerValue("X-Amz-Date") == "20240301T000059Z")
        let fresh = try signer.signingHeaders(
            for: SigV4Request(method: "GET", host: "bucket.s3.amazonaws.com", path: "/key"), payload: .empty, date: later)
        #expect(request.headerValue("Authorization") == fresh.first { $0.name == "Authorization" }?.value)
    }

    @Test func explicitHostHeaderWins() throws {
        let request = SigV4Request(
            method: "GET", host: "ignored.example.com", path: "/", headers: [.init("Host", "127.0.0.1:9000")])
        let outcome = try Self.signer().signHeaders(request, payload: .empty, date: Self.date, capture: true)
        let lines = try Self.canonicalLines(outcome)
        #expect(lines.contains("host:127.0.0.1:9000"))
        #expect(!lines.contains { $0.contains("ignored") })
    }

    // MARK: Presigning

    @Test func presignedURLFromURL() throws {
        let url = try #require(URL(string: "https://bucket.s3.eu-west-3.amazonaws.com:443/my%20key?versionId=3"))
        let presigned = try Self.signer().presign(url: url, date: Self.date, expires: 3600)
        let text = presigned.absoluteString
        #expect(text.hasPrefix("https://bucket.s3.eu-west-3.amazonaws.com/my%20key?versionId=3&X-Amz-Algorithm=AWS4-HMAC-SHA256&"))
        #expect(text.contains("&X-Amz-Credential=AKIDEXAMPLE%2F20240229%2Feu-west-3%2Fs3%2Faws4_request&"))
        #expect(text.contains("&X-Amz-Date=20240229T235959Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host&X-Amz-Signature="))
    }

    @Test func presignDefaultsPayloadByRules() throws {
        let request = SigV4Request(method: "GET", host: "h.example.com")
        let s3 = try Self.signer().presignQuery(request, payload: nil, date: Self.date, expires: 5, capture: true)
        #expect(try Self.canonicalLines(s3).last == "UNSIGNED-PAYLOAD")
        let sts = try Self.signer(service: "sts").presignQuery(request, payload: nil, date: Self.date, expires: 5, capture: true)
        #expect(try Self.canonicalLines(sts).last == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    // MARK: Errors

    static func signingError(_ body: () throws -> Void) -> SigV4Error? {
        do {
            try body()
            return nil
        } catch let error as SigV4Error {
            return error
        } catch {
            return nil
        }
    }

    @Test func unusableInputIsRejectedWithAReason() throws {
        let request = SigV4Request(method: "GET", host: "bucket.s3.amazonaws.com", path: "/key")
        let cases: [(String, () throws -> Void)] = [
            ("no host", { _ = try Self.signer().signingHeaders(for: SigV4Request(method: "GET", host: ""), payload: .empty, date: Self.date) }),
            ("HTTP method", { _ = try Self.signer().signingHeaders(for: SigV4Request(method: "", host: "h"), payload: .empty, date: Self.date) }),
            ("payload hash", { _ = try Self.signer().signingHeaders(for: request, payload: .hash("abc"), date: Self.date) }),
            ("region", {
                let signer = SigV4Signer(credentials: .init(accessKeyId: "AKID", secretAccessKey: Self.secret), region: "", service: "s3")
                _ = try signer.signingHeaders(for: request, payload: .empty, date: Self.date)
            }),
            ("service 'a/b'", {
                let signer = SigV4Signer(credentials: .init(accessKeyId: "AKID", secretAccessKey: Self.secret), region: "us-east-1", service: "a/b")
                _ = try signer.signingHeaders(for: request, payload: .empty, date: Self.date)
            }),
            ("access key id is empty", {
                let signer = SigV4Signer(credentials: .init(accessKeyId: "", secretAccessKey: Self.secret), region: "us-east-1", service: "s3")
                _ = try signer.signingHeaders(for: request, payload: .empty, date: Self.date)
            }),
            ("secret access key is empty", {
                let signer = SigV4Signer(credentials: .init(accessKeyId: "AKID", secretAccessKey: ""), region: "us-east-1", service: "s3")
                _ = try signer.signingHeaders(for: request, payload: .empty, date: Self.date)
            }),
            ("1 to 604800 seconds, not 0", { _ = try Self.signer().presign(request, date: Self.date, expires: 0) }),
            ("1 to 604800 seconds, not 604801", { _ = try Self.signer().presign(request, date: Self.date, expires: 604_801) }),
            ("already holds X-Amz-", {
                var signed = request
                signed.query = "X-Amz-Signature=abc"
                _ = try Self.signer().presign(signed, date: Self.date, expires: 60)
            }),
            ("outside 1970", { _ = try Self.signer().signingHeaders(for: request, payload: .empty, date: Date(timeIntervalSince1970: -1)) }),
            ("no host", { _ = try SigV4Request(method: "GET", url: try #require(URL(string: "https:///path"))) }),
            ("scheme must be http or https", { _ = try SigV4Request(method: "GET", url: try #require(URL(string: "ftp://h.example.com/x?secret=1"))) }),
        ]
        for (expected, body) in cases {
            let error = try #require(Self.signingError(body), "no error for \(expected)")
            #expect(error == SigV4Error.signing(""))
            #expect(error.code == .signing)
            #expect(error.reason.contains(expected), "\(error.reason) should mention \(expected)")
            #expect(!error.description.contains(Self.secret))
            #expect(!error.description.contains("secret=1"))
        }
    }

    @Test func descriptionHidesSecrets() {
        let signer = Self.signer(token: Self.token)
        for text in [signer.description, "\(signer)", String(reflecting: signer)] {
            #expect(text.contains("AKIDEXAMPLE"))
            #expect(!text.contains(Self.secret))
            #expect(!text.contains(Self.token))
        }
    }

    @Test func signedRequestDescriptionHidesSecrets() throws {
        let signer = Self.signer(token: Self.token)
        var request = SigV4Request(method: "GET", host: "bucket.s3.amazonaws.com", path: "/key", query: "versionId=1")
        try signer.sign(&request, payload: .empty, date: Self.date)
        let authorization = try #require(request.headerValue("Authorization"))
        let presigned = try signer.presign(url: try #require(URL(string: request.urlString)), date: Self.date, expires: 60)
        let presignedRequest = try SigV4Request(method: "GET", url: presigned)
        let signature = String(authorization.suffix(64))

        for text in [
            request.description, "\(request)", String(reflecting: request), presignedRequest.description,
            request.headers.map(\.description).joined(),
        ] {
            #expect(!text.contains(Self.token))
            #expect(!text.contains("FwoGZXIvYXdzEXAMPLE"))
            #expect(!text.contains(signature))
            #expect(!text.contains(String(presigned.absoluteString.suffix(64))))
        }
        #expect(request.description.contains("GET https://bucket.s3.amazonaws.com/key?versionId=1"))
        #expect(request.description.contains("X-Amz-Security-Token: <redacted>"))
        #expect(request.description.contains("X-Amz-Date: 20240229T235959Z"))
        #expect(presignedRequest.description.contains("X-Amz-Signature=<redacted>"))
    }

    // MARK: Building blocks

    @Test func rulesByService() {
        #expect(SigV4Signer.Rules.for(service: "s3") == .s3)
        #expect(SigV4Signer.Rules.for(service: "s3-object-lambda") == .s3)
        #expect(SigV4Signer.Rules.for(service: "sts") == .standard)
        #expect(Self.signer(service: "sts").rules == .standard)
        #expect(Self.signer(service: "s3").rules == .s3)
        #expect(SigV4Signer.Rules.s3 != .standard)
    }

    @Test func requestFromURL() throws {
        let request = try SigV4Request(
            method: "PUT", url: try #require(URL(string: "http://LocalHost:9000/b/a%20b%2Bc?x=1%202&y")))
        #expect(request.scheme == "http")
        #expect(request.host == "localhost:9000")
        #expect(request.path == "/b/a%20b%2Bc")
        #expect(request.query == "x=1%202&y")
        #expect(request.urlString == "http://localhost:9000/b/a%20b%2Bc?x=1%202&y")

        let bare = try SigV4Request(method: "GET", url: try #require(URL(string: "https://sts.amazonaws.com")))
        #expect(bare.host == "sts.amazonaws.com")
        #expect(bare.path == "/")
        #expect(bare.query == "")
        let defaultPort = try SigV4Request(method: "GET", url: try #require(URL(string: "http://h.example.com:80/")))
        #expect(defaultPort.host == "h.example.com")
        let loopback = try SigV4Request(method: "GET", url: try #require(URL(string: "http://[::1]:9000/b/k")))
        #expect(loopback.host == "[::1]:9000")
        #expect(loopback.path == "/b/k")
    }

    @Test func percentEncoding() {
        #expect(SigV4Request.percentEncode("a b+c=d~e/f.é", keepingSlashes: true) == "a%20b%2Bc%3Dd~e/f.%C3%A9")
        #expect(SigV4Request.percentEncode("a b+c=d~e/f", keepingSlashes: false) == "a%20b%2Bc%3Dd~e%2Ff")
        #expect(SigV4Request.percentEncode("100%", keepingSlashes: false) == "100%25")
    }

    @Test func payloads() {
        #expect(SigV4Signer.Payload.empty == .bytes([UInt8]()))
        #expect(SigV4Signer.Payload.empty.hashText == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SigV4Signer.Payload.hash("E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855") == .empty)
        #expect(SigV4Signer.Payload.unsigned.hashText == "UNSIGNED-PAYLOAD")
        #expect(SigV4Signer.Payload.unsigned.isValid)
        #expect(!SigV4Signer.Payload.hash(String(repeating: "g", count: 64)).isValid)
        #expect(SigV4Signer.Payload.bytes(Data("hello".utf8)).hashText
            == "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824")
    }

    @Test(arguments: [
        (0, "19700101T000000Z"),
        (951_782_400, "20000229T000000Z"),
        (1_709_251_199, "20240229T235959Z"),
        (1_709_251_200, "20240301T000000Z"),
        (4_107_542_399, "21000228T235959Z"),
        (4_107_542_400, "21000301T000000Z"),
        (253_402_300_799, "99991231T235959Z"),
    ] as [(Int64, String)])
    func timestampFormatting(_ seconds: Int64, _ expected: String) throws {
        #expect(SigV4Timestamp(secondsSince1970: seconds).amzDate == expected)
        let timestamp = try SigV4Timestamp(Date(timeIntervalSince1970: Double(seconds) + 0.999))
        #expect(timestamp.amzDate == expected)
        #expect(timestamp.day == expected.prefix(8))
    }

    @Test func timestampAgreesWithFoundation() {
        let style = Date.ISO8601FormatStyle(dateSeparator: .omitted, timeSeparator: .omitted, timeZone: .gmt)
        var generator = SplitMix64(seed: 0x5167_3456)
        for _ in 0..<2_000 {
            let seconds = Int64(generator.next() % 253_402_300_800)
            let expected = style.format(Date(timeIntervalSince1970: Double(seconds)))
            #expect(SigV4Timestamp(secondsSince1970: seconds).amzDate == expected, "\(seconds)")
        }
    }
}
