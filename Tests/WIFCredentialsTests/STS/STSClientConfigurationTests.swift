import Foundation
import Testing

@testable import WIFCredentials
import WIFTestSupport

@Suite struct STSClientConfigurationTests {
    func resolve(
        region: String? = nil,
        endpoint: String? = nil,
        _ environment: [String: String] = [:]
    ) throws -> (region: String, endpoint: String) {
        let resolved = try STSClient.Configuration(region: region, endpoint: endpoint).resolve(environment: environment)
        return (resolved.region, resolved.endpoint.absoluteString)
    }

    func expectInvalid(
        region: String? = nil,
        endpoint: String? = nil,
        _ environment: [String: String] = [:],
        reason expected: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(sourceLocation: sourceLocation) {
            try STSClient.Configuration(region: region, endpoint: endpoint).resolve(environment: environment)
        } throws: { error in
            guard let error = error as? WIFCredentialsError else { return false }
            return error.code == .invalidConfiguration && error.reason.contains(expected)
        }
    }

    @Test func regionalEndpointByDefault() throws {
        #expect(try self.resolve() == ("us-east-1", "https://sts.us-east-1.amazonaws.com"))
        #expect(try self.resolve(region: "eu-west-3") == ("eu-west-3", "https://sts.eu-west-3.amazonaws.com"))
        #expect(try self.resolve(region: "us-gov-west-1").endpoint == "https://sts.us-gov-west-1.amazonaws.com")
        #expect(try self.resolve(region: "cn-north-1").endpoint == "https://sts.cn-north-1.amazonaws.com.cn")
        #expect(try self.resolve(region: "cn-northwest-1").endpoint == "https://sts.cn-northwest-1.amazonaws.com.cn")
    }

    @Test func regionPrecedence() throws {
        let both = ["AWS_REGION": "ap-south-1", "AWS_DEFAULT_REGION": "sa-east-1"]
        #expect(try self.resolve(both).region == "ap-south-1")
        #expect(try self.resolve(["AWS_DEFAULT_REGION": "sa-east-1"]).region == "sa-east-1")
        #expect(try self.resolve(["AWS_REGION": "", "AWS_DEFAULT_REGION": "sa-east-1"]).region == "sa-east-1")
        #expect(try self.resolve(region: "eu-central-1", both) == ("eu-central-1", "https://sts.eu-central-1.amazonaws.com"))
    }

    @Test func endpointPrecedence() throws {
        let environment = [
            "AWS_ENDPOINT_URL": "http://127.0.0.1:4566",
            "AWS_ENDPOINT_URL_STS": "http://localhost:5000/sts",
        ]
        #expect(try self.resolve(["AWS_ENDPOINT_URL": "http://127.0.0.1:4566"]).endpoint == "http://127.0.0.1:4566")
        #expect(try self.resolve(environment).endpoint == "http://localhost:5000/sts")
        #expect(try self.resolve(endpoint: "https://sts.internal.example:8443", environment).endpoint == "https://sts.internal.example:8443")
        // Empty variables are unset, and the opt-out ignores both variables.
        #expect(try self.resolve(["AWS_ENDPOINT_URL_STS": "", "AWS_ENDPOINT_URL": "http://127.0.0.1:4566"]).endpoint == "http://127.0.0.1:4566")
        var ignored = environment
        ignored["AWS_IGNORE_CONFIGURED_ENDPOINT_URLS"] = "TRUE"
        #expect(try self.resolve(region: "eu-west-1", ignored).endpoint == "https://sts.eu-west-1.amazonaws.com")
        // An explicit endpoint is honoured even with the opt-out: it is configuration, not environment.
        #expect(try self.resolve(endpoint: "http://127.0.0.1:9000", ignored).endpoint == "http://127.0.0.1:9000")
    }

    @Test func clientExposesItsEndpoint() throws {
        let client = try STSClient(
            configuration: .init(region: "eu-west-1"),
            environment: ["AWS_ENDPOINT_URL_STS": "http://127.0.0.1:4566"],
            transport: STSTestTransport([]),
            timeSource: TestClock.sts().timeSource
        )
        #expect(client.region == "eu-west-1")
        #expect(client.endpoint.absoluteString == "http://127.0.0.1:4566")
    }

    @Test func invalidEndpointsAreRejected() {
        self.expectInvalid(endpoint: "ftp://sts.example.com", reason: "configured STS endpoint 'ftp://sts.example.com' has scheme 'ftp'; STS endpoints must use http or https")
        self.expectInvalid(endpoint: "sts.example.com", reason: "has scheme ''")
        self.expectInvalid(endpoint: "http://", reason: "configured STS endpoint 'http://' has no host")
        self.expectInvalid(endpoint: "http:///path", reason: "has no host")
        self.expectInvalid(endpoint: "http://exa mple.com", reason: "is not a URL")
        self.expectInvalid(endpoint: "http://127.0.0.1:4566/?Action=x", reason: "has a query or fragment")
        self.expectInvalid(endpoint: "http://127.0.0.1:4566/#top", reason: "has a query or fragment")
        self.expectInvalid(["AWS_ENDPOINT_URL_STS": "file:///etc/passwd"], reason: "AWS_ENDPOINT_URL_STS 'file:///etc/passwd' has scheme 'file'")
        self.expectInvalid(["AWS_ENDPOINT_URL": "localhost"], reason: "AWS_ENDPOINT_URL 'localhost' has scheme ''")
    }

    @Test func userInfoInAnEndpointIsRejectedWithoutEchoingIt() {
        #expect {
            try STSClient.Configuration(endpoint: "https://admin:hunter2@sts.example.com").resolve(environment: [:])
        } throws: { error in
            guard let error = error as? WIFCredentialsError else { return false }
            return error.code == .invalidConfiguration && error.reason.contains("contains user credentials")
                && !error.reason.contains("hunter2")
        }
    }

    @Test func invalidRegionsAreRejected() {
        self.expectInvalid(region: "", reason: "configured region '' is not a region name")
        self.expectInvalid(region: "evil.com/x", reason: "configured region 'evil.com/x' is not a region name")
        self.expectInvalid(region: "US-EAST-1", reason: "is not a region name")
        self.expectInvalid(region: "-east", reason: "is not a region name")
        self.expectInvalid(["AWS_REGION": "eu west 1"], reason: "AWS_REGION 'eu west 1' is not a region name")
        self.expectInvalid(["AWS_DEFAULT_REGION": "x@y"], reason: "AWS_DEFAULT_REGION 'x@y' is not a region name")
    }

    @Test func invalidRetryAndTimeoutSettingsAreRejected() {
        let cases: [(STSClient.Configuration, String)] = [
            (.init(retry: .init(maxAttempts: 0)), "STS retry maxAttempts is 0; it must be at least 1"),
            (.init(retry: .init(baseDelay: .seconds(-1))), "STS retry baseDelay is -1.0 seconds; it must not be negative"),
            (.init(retry: .init(baseDelay: .seconds(2), maxDelay: .seconds(1))), "STS retry maxDelay (1.0 seconds) is shorter than baseDelay (2.0 seconds)"),
            (.init(timeout: .zero), "STS timeout is 0.0 seconds; it must be positive"),
        ]
        for (configuration, expected) in cases {
            #expect {
                try STSClient(configuration: configuration, transport: STSTestTransport([]), timeSource: TestClock.sts().timeSource)
            } throws: { error in
                guard let error = error as? WIFCredentialsError else { return false }
                return error.code == .invalidConfiguration && error.reason == expected
            }
        }
    }
}
