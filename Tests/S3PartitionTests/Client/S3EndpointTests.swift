import Testing
import WIFCredentials

@testable import S3Partition

@Suite("Endpoints and addressing")
struct S3EndpointTests {
    static func resolve(_ configuration: S3Client.Configuration = .init(), _ environment: [String: String] = [:]) throws -> (String, S3Endpoint) {
        let resolved = try S3Endpoint.resolve(configuration, environment: environment)
        return (resolved.region, resolved.endpoint)
    }

    @Test("the region comes from configuration, AWS_REGION, AWS_DEFAULT_REGION, then us-east-1")
    func regions() throws {
        #expect(try Self.resolve().0 == "us-east-1")
        #expect(try Self.resolve(.init(), ["AWS_DEFAULT_REGION": "eu-west-1"]).0 == "eu-west-1")
        #expect(try Self.resolve(.init(), ["AWS_DEFAULT_REGION": "eu-west-1", "AWS_REGION": "eu-west-2"]).0 == "eu-west-2")
        #expect(try Self.resolve(.init(region: "ap-south-1"), ["AWS_REGION": "eu-west-2"]).0 == "ap-south-1")
        #expect(try Self.resolve(.init(), ["AWS_REGION": "", "AWS_DEFAULT_REGION": "sa-east-1"]).0 == "sa-east-1")
    }

    @Test("malformed regions are refused naming their origin", arguments: [
        (S3Client.Configuration(region: "evil.com/x"), [String: String](), "configured region 'evil.com/x'"),
        (S3Client.Configuration(region: ""), [:], "configured region ''"),
        (S3Client.Configuration(), ["AWS_REGION": "US-EAST-1"], "AWS_REGION 'US-EAST-1'"),
        (S3Client.Configuration(), ["AWS_DEFAULT_REGION": "-x"], "AWS_DEFAULT_REGION"),
    ])
    func badRegions(configuration: S3Client.Configuration, environment: [String: String], fragment: String) {
        let error = #expect(throws: S3Error.self) { try Self.resolve(configuration, environment) }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.message.contains(fragment) == true, "\(error?.message ?? "")")
    }

    @Test("the endpoint comes from configuration, AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, then the regional one")
    func endpoints() throws {
        #expect(try Self.resolve(.init(region: "eu-west-3")).1.description == "https://s3.eu-west-3.amazonaws.com")
        #expect(try Self.resolve(.init(region: "cn-north-1")).1.description == "https://s3.cn-north-1.amazonaws.com.cn")
        #expect(try Self.resolve(.init(region: "eu-west-3")).1.isCustom == false)
        let environment = ["AWS_ENDPOINT_URL": "http://generic:9000", "AWS_ENDPOINT_URL_S3": "http://127.0.0.1:9001/"]
        #expect(try Self.resolve(.init(), environment).1.description == "http://127.0.0.1:9001")
        #expect(try Self.resolve(.init(), ["AWS_ENDPOINT_URL": "http://generic:9000"]).1.description == "http://generic:9000")
        #expect(try Self.resolve(.init(endpoint: "https://minio.local:443/s3/"), environment).1.description == "https://minio.local/s3")
        let ignored = environment.merging(["AWS_IGNORE_CONFIGURED_ENDPOINT_URLS": "true"]) { $1 }
        #expect(try Self.resolve(.init(region: "eu-west-3"), ignored).1.description == "https://s3.eu-west-3.amazonaws.com")
        let custom = try Self.resolve(.init(), environment).1
        #expect(custom.isCustom)
        #expect(custom.hostIsIPAddress)
        #expect(custom.hostHeader == "127.0.0.1:9001")
        let ipv6 = try Self.resolve(.init(endpoint: "http://[::1]:9000")).1
        #expect(ipv6.host == "[::1]")
        #expect(ipv6.hostHeader == "[::1]:9000")
        #expect(ipv6.hostIsIPAddress)
    }

    @Test("malformed endpoints are refused naming their origin and never echoing passwords", arguments: [
        ("ftp://host", "scheme 'ftp'"), ("not a url at all", "has scheme ''"), ("http://", "has no host"),
        ("http://user:hunter2@host", "user credentials"), ("http://host/?q=1", "query or fragment"), ("http://host#frag", "query or fragment"),
        ("http://host:0", "port 0"), ("http://ho st", "not a URL"),
    ])
    func badEndpoints(text: String, fragment: String) {
        let error = #expect(throws: S3Error.self) { try Self.resolve(.init(), ["AWS_ENDPOINT_URL_S3": text]) }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.message.contains(fragment) == true || error?.message.contains("invalid host") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("AWS_ENDPOINT_URL_S3") == true)
        #expect(error?.message.contains("hunter2") == false)
    }

    @Test("addressing: virtual-hosted on AWS for plain bucket names, path style otherwise", arguments: [
        // endpoint, style, bucket, key, host, path
        ("", S3Client.AddressingStyle.auto, "wif-personal", String?("1001/a b+c.txt"), "wif-personal.s3.eu-west-3.amazonaws.com", "/1001/a%20b%2Bc.txt"),
        ("", .auto, "my.dotted.bucket", "k", "s3.eu-west-3.amazonaws.com", "/my.dotted.bucket/k"),
        ("", .auto, "Upper_Case", "k", "s3.eu-west-3.amazonaws.com", "/Upper_Case/k"),
        ("", .path, "wif-personal", "k", "s3.eu-west-3.amazonaws.com", "/wif-personal/k"),
        ("", .auto, "wif-personal", nil, "wif-personal.s3.eu-west-3.amazonaws.com", "/"),
        ("http://127.0.0.1:9000", .auto, "wif-personal", "ü/é", "127.0.0.1:9000", "/wif-personal/%C3%BC/%C3%A9"),
        ("http://localhost:9000", .auto, "wif-personal", nil, "localhost:9000", "/wif-personal"),
        ("http://localhost:9000", .virtualHosted, "wif-personal", "k", "wif-personal.localhost:9000", "/k"),
        ("https://storage.example/base", .auto, "b", "a/../x", "storage.example", "/base/b/a/../x"),
        ("https://storage.example/base", .auto, "b", "%2F~*", "storage.example", "/base/b/%252F~%2A"),
    ])
    func addressing(endpoint: String, style: S3Client.AddressingStyle, bucket: String, key: String?, host: String, path: String) throws {
        let configuration = S3Client.Configuration(region: "eu-west-3", endpoint: endpoint.isEmpty ? nil : endpoint, addressingStyle: style)
        let resolved = try Self.resolve(configuration).1
        let address = resolved.address(bucket: bucket, key: key, style: style)
        #expect(address.host == host)
        #expect(address.path == path)
    }

    @Test("bucket names are checked before they go into a URL", arguments: ["", ".", "..", "a/b", "a b", "a?b", "bücket", String(repeating: "b", count: 256)])
    func badBuckets(bucket: String) {
        let error = #expect(throws: S3Error.self) { try S3Client.validate(bucket: bucket, key: "k") }
        #expect(error?.code == .invalidBucketName)
    }

    @Test("keys must be 1 to 1,024 bytes")
    func keyBounds() throws {
        try S3Client.validate(bucket: "b", key: String(repeating: "k", count: 1024))
        let empty = #expect(throws: S3Error.self) { try S3Client.validate(bucket: "b", key: "") }
        #expect(empty?.code == .invalidArgument)
        let long = #expect(throws: S3Error.self) { try S3Client.validate(bucket: "b", key: String(repeating: "k", count: 1025)) }
        #expect(long?.code == .keyTooLong)
    }

    @Test("DNS-compatible bucket names", arguments: [
        ("abc", false, true), ("ab", false, false), ("a-b-c", false, true), ("-abc", false, false), ("abc-", false, false),
        ("a.b.c", false, false), ("a.b.c", true, true), ("a..b", true, false), ("ABC", false, false), ("a_b", false, false),
    ])
    func dnsNames(bucket: String, allowingDots: Bool, expected: Bool) {
        #expect(S3BucketName.isDNSCompatible(bucket, allowingDots: allowingDots) == expected)
    }
}
