import Foundation
import Testing
@testable import WIFSigV4

/// The package-level pieces a verifying endpoint uses to recompute a signature.
@Suite struct SigV4CanonicalTests {
    static let secret = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
    static let date = Date(timeIntervalSince1970: 1_714_558_830)  // 2024-05-01T10:20:30Z
    static let signer = SigV4Signer(
        credentials: AWSCredentials(accessKeyId: "AKIDEXAMPLE", secretAccessKey: secret, sessionToken: "tok/en+="),
        region: "us-east-1", service: "s3", keyCache: SigV4SigningKeyCache(capacity: 4))

    static func authorizationParts(_ value: String) throws -> (scope: String, signedHeaders: [String], signature: String) {
        let fields = value.dropFirst("AWS4-HMAC-SHA256 ".count).split(separator: ", ")
        var parts: [String: String] = [:]
        for field in fields {
            let pair = field.split(separator: "=", maxSplits: 1)
            parts[String(pair[0])] = String(pair[1])
        }
        let credential = try #require(parts["Credential"])
        let scope = String(credential.drop { $0 != "/" }.dropFirst())
        return (
            scope, try #require(parts["SignedHeaders"]).split(separator: ";").map(String.init),
            try #require(parts["Signature"])
        )
    }

    @Test func verifierRecomputesAHeaderSignature() throws {
        var request = SigV4Request(
            method: "PUT", host: "127.0.0.1:9000", path: "/wif-users/users/alice/a%20b.txt", query: "tagging=",
            headers: [.init("Content-Type", "text/plain"), .init("User-Agent", "test")])
        let expected = try Self.signer.signHeaders(request, payload: .unsigned, date: Self.date, capture: true)
        try Self.signer.sign(&request, payload: .unsigned, date: Self.date)

        // What a server sees: the headers as received, plus Host.
        let received = request.headers + [.init("Host", request.host)]
        let authorization = try #require(request.headerValue("Authorization"))
        let parts = try Self.authorizationParts(authorization)
        let amzDate = try #require(request.headerValue("x-amz-date"))
        let canonical = try SigV4Canonical.canonicalRequest(
            method: request.method, path: request.path, query: request.query, headers: received,
            signedHeaderNames: parts.signedHeaders,
            payloadHash: try #require(request.headerValue("x-amz-content-sha256")), rules: .s3)
        #expect(canonical == expected.canonicalRequest)

        let stringToSign = SigV4Canonical.stringToSign(canonicalRequest: canonical, amzDate: amzDate, scope: parts.scope)
        #expect(stringToSign == expected.stringToSign)
        let key = SigV4SigningKey(secretAccessKey: Self.secret, day: amzDate.prefix(8), region: "us-east-1", service: "s3")
        let signature = SigV4Canonical.signature(stringToSign: stringToSign, key: key)
        #expect(SigV4Canonical.constantTimeEquals(signature, parts.signature))

        // A tampered header no longer verifies.
        var tampered = received
        tampered[0].value = "text/html"
        let tamperedCanonical = try SigV4Canonical.canonicalRequest(
            method: request.method, path: request.path, query: request.query, headers: tampered,
            signedHeaderNames: parts.signedHeaders, payloadHash: "UNSIGNED-PAYLOAD", rules: .s3)
        let tamperedSignature = SigV4Canonical.signature(
            stringToSign: SigV4Canonical.stringToSign(canonicalRequest: tamperedCanonical, amzDate: amzDate, scope: parts.scope),
            key: key)
        #expect(!SigV4Canonical.constantTimeEquals(tamperedSignature, parts.signature))
    }

    @Test func verifierRecomputesAPresignedSignature() throws {
        let request = SigV4Request(method: "GET", host: "bucket.s3.amazonaws.com", path: "/report%20(1).pdf")
        let presigned = try Self.signer.presignQuery(request, payload: nil, date: Self.date, expires: 600, capture: true)
        let query = String(presigned.url.split(separator: "?", maxSplits: 1)[1])
        let canonical = try SigV4Canonical.canonicalRequest(
            method: "GET", path: request.path, query: query, headers: [.init("Host", request.host)],
            signedHeaderNames: ["host"], payloadHash: "UNSIGNED-PAYLOAD", rules: .s3,
            excludingQueryParameter: "X-Amz-Signature")
        #expect(canonical == presigned.canonicalRequest)
    }

    @Test func missingSignedHeaderIsAnError() throws {
        #expect(throws: SigV4Error.signing("")) {
            try SigV4Canonical.canonicalRequest(
                method: "GET", path: "/", query: "", headers: [.init("Host", "h")],
                signedHeaderNames: ["host", "x-amz-date"], payloadHash: "UNSIGNED-PAYLOAD", rules: .s3)
        }
        do {
            _ = try SigV4Canonical.canonicalRequest(
                method: "GET", path: "/", query: "", headers: [.init("Host", "h")],
                signedHeaderNames: ["host", "x-amz-date"], payloadHash: "UNSIGNED-PAYLOAD", rules: .s3)
        } catch let error as SigV4Error {
            #expect(error.reason.contains("'x-amz-date' is not in the request"))
        }
    }

    @Test(arguments: [
        ("", ""),
        ("b=2&a=1&a=0", "a=0&a=1&b=2"),
        ("flag", "flag="),
        ("a=1&&b", "a=1&b="),
        ("%7e=%2f", "~=%2F"),
        ("q=a+b", "q=a%2Bb"),
        ("q=a b", "q=a%20b"),
        ("q=100%", "q=100%25"),
        ("k=v=w", "k=v%3Dw"),
        ("B=1&a=1&_=1", "B=1&_=1&a=1"),
        ("%E1%88%B4=x&%e1%88%b4=w", "%E1%88%B4=w&%E1%88%B4=x"),
    ])
    func canonicalQuery(_ query: String, _ expected: String) {
        var buffer: [UInt8] = []
        SigV4Canonical.appendCanonicalQuery(query, to: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self) == expected)
    }

    @Test func canonicalQueryExcludesAParameter() {
        var buffer: [UInt8] = []
        SigV4Canonical.appendCanonicalQuery("b=1&X-Amz-Signature=abc&a=2", excluding: "X-Amz-Signature", to: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self) == "a=2&b=1")
    }

    @Test(arguments: [
        ("/", "/"), ("//", "/"), ("/./", "/"), ("/a/..", "/"), ("/a/../..", "/"), ("/a/b/../c/", "/a/c/"),
        ("//a//b//", "/a/b/"), ("/a/./b", "/a/b"), ("a/b", "a/b"), ("/..a/b.", "/..a/b."),
    ])
    func dotSegmentRemoval(_ path: String, _ expected: String) {
        var path = path
        let result = path.withUTF8 { SigV4Canonical.removingDotSegments($0) }
        #expect(String(decoding: result, as: UTF8.self) == expected)
    }

    /// The fast check agrees with the removal on every path of up to seven characters from `/`, `.` and `a`:
    /// a path counts as normal exactly when the removal would give it back unchanged.
    @Test func aPathIsNormalExactlyWhenRemovalKeepsIt() {
        var paths: [[UInt8]] = [[]]
        var frontier: [[UInt8]] = [[]]
        for _ in 0..<7 {
            frontier = frontier.flatMap { path in Array("/.a".utf8).map { path + [$0] } }
            paths += frontier
        }
        #expect(paths.count == 3_280)
        for path in paths {
            path.withUnsafeBufferPointer { bytes in
                let unchanged = SigV4Canonical.removingDotSegments(bytes) == path
                #expect(SigV4Canonical.isNormalPath(bytes) == unchanged, "\(String(decoding: path, as: UTF8.self))")
            }
        }
    }

    @Test func constantTimeEquality() {
        #expect(SigV4Canonical.constantTimeEquals("abc", "abc"))
        #expect(!SigV4Canonical.constantTimeEquals("abc", "abd"))
        #expect(!SigV4Canonical.constantTimeEquals("abc", "abcd"))
        #expect(SigV4Canonical.constantTimeEquals("", ""))
        #expect(SigV4Canonical.constantTimeEquals("abc"[...], "xabc".dropFirst()))
    }
}
