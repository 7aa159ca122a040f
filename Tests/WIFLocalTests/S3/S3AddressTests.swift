import Testing
import WIFTestSupport

@testable import WIFLocal

@Suite("S3 addressing")
struct S3AddressTests {
    static let rule = S3HostRule()

    @Test(
        "path-style requests name the bucket in the first segment",
        arguments: [
            ("127.0.0.1:9000", "/", nil, nil),
            ("127.0.0.1:9000", "/b1", "b1", nil),
            ("127.0.0.1:9000", "/b1/", "b1", nil),
            ("127.0.0.1:9000", "/b1/a/b/c.txt", "b1", "a/b/c.txt"),
            ("127.0.0.1:9000", "/b1//leading-slash", "b1", "/leading-slash"),
            ("localhost:9000", "/b1/k", "b1", "k"),
            ("s3.localhost:9000", "/b1/k", "b1", "k"),
            ("[::1]:9000", "/b1/k", "b1", "k"),
            ("example.com", "/b1/k", "b1", "k"),
            ("127.0.0.1.nip.io:9000", "/b1/k", "b1", "k"),
            ("s3.us-east-1.amazonaws.com", "/b1/k", "b1", "k"),
        ] as [(String, String, String?, String?)]
    )
    func pathStyle(host: String, path: String, bucket: String?, key: String?) throws {
        let address = try S3Address(host: host, rawPath: path, rule: Self.rule)
        #expect(address.bucket == bucket)
        #expect(address.key == key)
        #expect(!address.virtualHosted)
    }

    @Test(
        "virtual-hosted requests name the bucket in the host",
        arguments: [
            ("b1.localhost:9000", "/k", "b1", "k"),
            ("b1.localhost", "/", "b1", nil),
            ("B1.LOCALHOST:9000", "/Key", "b1", "Key"),
            ("my.dotted.bucket.localhost:9000", "/k", "my.dotted.bucket", "k"),
            ("b1.s3.localhost:9000", "/a/b", "b1", "a/b"),
            ("b1.127.0.0.1.nip.io:9000", "/k", "b1", "k"),
            ("b1.10.0.0.7.sslip.io", "/k", "b1", "k"),
            ("b1.s3.amazonaws.com", "/k", "b1", "k"),
            ("b1.s3.eu-west-3.amazonaws.com", "/k", "b1", "k"),
            ("b1.s3-eu-west-3.amazonaws.com", "/k", "b1", "k"),
            ("b1.s3.dualstack.eu-west-3.amazonaws.com", "/k", "b1", "k"),
        ] as [(String, String, String, String?)]
    )
    func virtualHosted(host: String, path: String, bucket: String, key: String?) throws {
        let address = try S3Address(host: host, rawPath: path, rule: Self.rule)
        #expect(address.bucket == bucket)
        #expect(address.key == key)
        #expect(address.virtualHosted)
    }

    @Test("configured base domains are matched before the defaults")
    func configuredBaseDomain() throws {
        let rule = S3HostRule(baseDomains: ["storage.test", "localhost"])
        let address = try S3Address(host: "photos.storage.test:80", rawPath: "/x", rule: rule)
        #expect(address.bucket == "photos")
        #expect(address.key == "x")
        #expect(rule.bucket(inHost: "storage.test") == nil)
        #expect(rule.bucket(inHost: "s3.localhost") == "s3")
    }

    @Test(
        "keys are percent-decoded exactly once and '+' stays a plus",
        arguments: [
            ("/b1/a%2Fb", "a/b"),
            ("/b1/100%25", "100%"),
            ("/b1/a+b", "a+b"),
            ("/b1/a%20b", "a b"),
            ("/b1/%E2%82%AC", "€"),
            ("/b1/%252F", "%2F"),
            ("/b1/..%2F..%2Fetc", "../../etc"),
        ]
    )
    func decoding(path: String, key: String) throws {
        let address = try S3Address(host: "127.0.0.1", rawPath: path, rule: Self.rule)
        #expect(address.key == key)
    }

    @Test("malformed escapes and non-UTF-8 paths are InvalidURI", arguments: ["/b1/%", "/b1/%4", "/b1/%zz", "/b1/%FF%FE", "no-slash"])
    func invalidPaths(path: String) {
        #expect {
            try S3Address(host: "127.0.0.1", rawPath: path, rule: Self.rule)
        } throws: { error in
            (error as? AWSErrorResponse)?.code == "InvalidURI"
        }
    }

    @Test("a key over 1024 bytes is KeyTooLongError")
    func keyTooLong() throws {
        let ok = try S3Address(host: nil, rawPath: "/b1/" + String(repeating: "k", count: 1024), rule: Self.rule)
        #expect(ok.key?.utf8.count == 1024)
        #expect {
            try S3Address(host: nil, rawPath: "/b1/" + String(repeating: "%C3%A9", count: 513), rule: Self.rule)
        } throws: { error in
            (error as? AWSErrorResponse)?.code == "KeyTooLongError"
        }
    }

    @Test("query parameters are decoded, with '+' as a space and bare names as empty values")
    func query() throws {
        let query = try S3Query(raw: "list-type=2&prefix=a%2Fb+c&delimiter=%2F&uploads&empty=")
        #expect(query["list-type"] == "2")
        #expect(query["prefix"] == "a/b c")
        #expect(query["delimiter"] == "/")
        #expect(query.has("uploads"))
        #expect(query["uploads"] == "")
        #expect(query["empty"] == "")
        #expect(query["missing"] == nil)
        #expect(try S3Query(raw: nil).parameters.isEmpty)
        #expect(throws: AWSErrorResponse.self) { try S3Query(raw: "prefix=%G0") }
    }

    @Test("listing keys are URL-encoded as S3 does for encoding-type=url")
    func listingEncoding() {
        #expect(S3PercentDecoding.encodeForListing("a/b c+d") == "a/b%20c%2Bd")
        #expect(S3PercentDecoding.encodeForListing("plain-key_1.txt~") == "plain-key_1.txt~")
        #expect(S3PercentDecoding.encodeForListing("é\n") == "%C3%A9%0A")
    }

    @Test(arguments: [
        ("127.0.0.1", true), ("0.0.0.0", true), ("255.255.255.255", true), ("10.0.0.7", true), ("001.02.3.004", true),
        ("256.0.0.1", false), ("1.2.3", false), ("1.2.3.4.5", false), ("1..2.3", false), (".1.2.3", false),
        ("1.2.3.", false), ("1234.0.0.1", false), ("0001.0.0.1", false), ("1.2.3.a", false), ("", false),
        ("1.2.3.4:80", false), ("１.2.3.4", false), ("1.2.3.٤", false), ("1.2.3.-4", false), ("+1.2.3.4", false),
    ])
    func anIPv4AddressIsFourNumbersUpTo255(text: String, isAddress: Bool) {
        #expect(S3HostRule.isIPv4(text) == isAddress)
    }

    @Test func aHostOfPrintableASCIIIsReadAsItsCharactersAre() {
        // The byte path must answer as the Character path does, on hosts built from the pieces that matter.
        let pieces = ["a", "B", "z", "0", "9", ".", ":", "[", "]", "-", "s3", "localhost", "127.0.0.1", "::1", "nip.io", "X"]
        var generator = SplitMix64(seed: 0x4057)
        for _ in 0..<5_000 {
            let host = (0..<generator.below(7)).map { _ in pieces[generator.below(pieces.count)] }.joined()
            #expect(S3HostRule.hostName(host) == S3HostRule.hostNameByCharacters(host), "\(host)")
            #expect(S3HostRule.isIPAddress(host) == (host.hasPrefix("[") || host.contains(":") || S3HostRule.isIPv4(host)), "\(host)")
        }
        #expect(S3HostRule.hostName("B1.S3.LocalHost.:9000") == "b1.s3.localhost")
        #expect(S3HostRule.hostName("[::1]:9000") == "[::1]")
        // Not printable ASCII: read over Characters, where a combining mark makes ":" part of another one.
        #expect(S3HostRule.hostName("b\u{E9}.localhost:9000") == "b\u{E9}.localhost")
        #expect(S3HostRule.hostName("a:\u{301}9") == "a:\u{301}9")
    }
}
