import Foundation
import Testing

@testable import WIFCredentials
import WIFFoundation
import WIFHTTP
import WIFTestSupport

/// The Cognito Identity client against a scripted transport: what goes on the wire, the bounds checked
/// before sending, and AWS's error shapes.
@Suite struct CognitoIdentityClientTests {
    static let pool = "us-east-1:00000000-0000-4000-8000-000000000001"
    static let identity = "us-east-1:11111111-2222-4333-8444-555555555555"

    static func client(_ transport: STSTestTransport, clock: TestClock = .sts()) throws -> CognitoIdentityClient {
        try CognitoIdentityClient(
            configuration: .init(region: "us-east-1", retry: .init(maxAttempts: 2, baseDelay: .milliseconds(10), maxDelay: .milliseconds(10))),
            transport: transport, timeSource: clock.timeSource, jitter: { 0 })
    }

    static func json(_ text: String, status: Int = 200, headers: [(name: String, value: String)] = []) -> STSTestTransport.Answer {
        .response(TransportResponse(status: status, headers: [("Content-Type", "application/x-amz-json-1.1")] + headers, body: Array(text.utf8)))
    }

    @Test func getIdSendsTheJSON11CallUnsignedToTheRegionalEndpoint() async throws {
        let transport = STSTestTransport([Self.json(#"{"IdentityId":"\#(Self.identity)"}"#)])
        let id = try await Self.client(transport).getId(identityPoolId: Self.pool, logins: ["accounts.google.com": "token-abc"])
        #expect(id == Self.identity)
        let request = try #require(transport.requests.first)
        #expect(request.url.absoluteString == "https://cognito-identity.us-east-1.amazonaws.com/")
        #expect(request.method == "POST")
        #expect(request.header("X-Amz-Target") == "AWSCognitoIdentityService.GetId")
        #expect(request.header("Content-Type") == "application/x-amz-json-1.1")
        #expect(request.header("Authorization") == nil)
        let body = try JSONParser.parse(request.body)
        #expect(body.member("IdentityPoolId")?.stringValue == Self.pool)
        #expect(body.member("Logins")?.member("accounts.google.com")?.stringValue == "token-abc")
    }

    @Test func credentialsUseSecretKeyAndEpochSecondsCorrectedForClockSkew() async throws {
        let clock = TestClock.sts()
        let now = clock.timeSource.now()
        // The service's clock is 60 s ahead of ours (12:00:00 here, 12:01:00 there); AWS writes the
        // expiration as a number with an exponent.
        let transport = STSTestTransport([
            Self.json(
                #"{"IdentityId":"\#(Self.identity)","Credentials":{"AccessKeyId":"ASIAEXAMPLE","SecretKey":"secret","SessionToken":"session","Expiration":1.79526606E9}}"#,
                headers: [("Date", "Sat, 21 Nov 2026 12:01:00 GMT")])
        ])
        let result = try await Self.client(transport, clock: clock).getCredentialsForIdentity(identityId: Self.identity)
        #expect(result.identityId == Self.identity)
        #expect(result.credentials.accessKeyId == "ASIAEXAMPLE")
        #expect(result.credentials.secretAccessKey == "secret")
        #expect(result.credentials.sessionToken == "session")
        let local = try #require(result.credentials.expiration)
        #expect(abs(local.timeIntervalSince(now) - 3600) < 2)
    }

    @Test(arguments: [
        ("NotAuthorizedException", 400), ("com.amazonaws.cognito.identity.model#ResourceNotFoundException", 400),
        ("ResourceConflictException", 400), ("InvalidParameterException", 400), ("InvalidIdentityPoolConfigurationException", 400),
    ])
    func serviceErrorsKeepTheirCodeWithoutNamespaceAndHideTokens(type: String, status: Int) async throws {
        let transport = STSTestTransport([
            Self.json(#"{"__type":"\#(type)","message":"Invalid login token secret-token-value"}"#, status: status, headers: [("x-amzn-RequestId", "req-1")])
        ])
        let error = try await #require(throws: WIFCredentialsError.self) {
            try await Self.client(transport).getCredentialsForIdentity(identityId: Self.identity, logins: ["wif.localhost": "secret-token-value"])
        }
        let service = try #require(error.serviceError)
        #expect(service.code == String(type.split(separator: "#").last ?? ""))
        #expect(service.requestId == "req-1")
        #expect(service.httpStatus == status)
        #expect(service.message == "Invalid login token <redacted>")
        #expect(!error.description.contains("secret-token-value"))
        #expect(transport.requests.count == 1, "a refusal is not retried")
    }

    @Test func throttlingIsRetried() async throws {
        let transport = STSTestTransport([
            Self.json(#"{"__type":"TooManyRequestsException","message":"slow down"}"#, status: 400),
            Self.json(#"{"IdentityId":"\#(Self.identity)"}"#),
        ])
        let id = try await Self.client(transport).getId(identityPoolId: Self.pool)
        #expect(id == Self.identity)
        #expect(transport.requests.count == 2)
    }

    @Test(arguments: ["us-east-1", "us-east-1:", ":abc", "us-east-1:XYZ", "us east 1:abc", String(repeating: "a", count: 50) + ":abcdef"])
    func malformedPoolIdsAreRefusedBeforeSending(pool: String) async throws {
        let transport = STSTestTransport([])
        let error = try await #require(throws: WIFCredentialsError.self) {
            try await Self.client(transport).getId(identityPoolId: pool)
        }
        #expect(error.code == .invalidParameter)
        #expect(error.reason.contains("IdentityPoolId"))
        #expect(transport.requests.isEmpty)
    }

    @Test func loginBoundsAreCheckedBeforeSending() async throws {
        let transport = STSTestTransport([])
        let client = try Self.client(transport)
        let eleven = Dictionary(uniqueKeysWithValues: (0..<11).map { ("provider\($0).example.com", "token") })
        let tooMany = try await #require(throws: WIFCredentialsError.self) { try await client.getId(identityPoolId: Self.pool, logins: eleven) }
        #expect(tooMany.reason.contains("at most 10"))
        let longToken = try await #require(throws: WIFCredentialsError.self) {
            try await client.getId(identityPoolId: Self.pool, logins: ["wif.localhost": String(repeating: "t", count: 50_001)])
        }
        #expect(longToken.reason.contains("1 to 50000"))
        let emptyToken = try await #require(throws: WIFCredentialsError.self) {
            try await client.getOpenIdToken(identityId: Self.identity, logins: ["wif.localhost": ""])
        }
        #expect(emptyToken.code == .invalidParameter)
        let shortRole = try await #require(throws: WIFCredentialsError.self) {
            try await client.getCredentialsForIdentity(identityId: Self.identity, customRoleArn: "arn:aws:iam::1")
        }
        #expect(shortRole.reason.contains("CustomRoleArn"))
        #expect(transport.requests.isEmpty)
    }

    @Test func openIdTokenDescriptionHidesTheToken() {
        let token = IdentityPoolOpenIdToken(identityId: Self.identity, token: "eyJsecret")
        #expect(!token.description.contains("eyJsecret"))
        #expect(token.description.contains(Self.identity))
    }
}
