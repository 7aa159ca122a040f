import Foundation
import Testing

@testable import WIFCredentials
import WIFFoundation
import WIFHTTP
import WIFTestSupport

/// The identity pool provider against a scripted service: the logins' tokens are read on each refresh,
/// the identity id is reused, and a vanished identity is replaced once.
@Suite struct IdentityPoolCredentialProviderTests {
    static let pool = "us-east-1:00000000-0000-4000-8000-000000000001"
    static let first = "us-east-1:11111111-2222-4333-8444-555555555555"
    static let second = "us-east-1:66666666-7777-4888-9999-000000000000"

    static func credentials(_ id: String, key: String, expiration: Int) -> STSTestTransport.Answer {
        CognitoIdentityClientTests.json(
            #"{"IdentityId":"\#(id)","Credentials":{"AccessKeyId":"\#(key)","SecretKey":"s","SessionToken":"t","Expiration":\#(expiration)}}"#)
    }

    static func target(_ request: TransportRequest) -> String {
        String((request.header("X-Amz-Target") ?? "").dropFirst("AWSCognitoIdentityService.".count))
    }

    static func login(_ request: TransportRequest) throws -> String? {
        try JSONParser.parse(request.body).member("Logins")?.member("accounts.google.com")?.stringValue
    }

    @Test func tokensAreReadOnEachRefreshTheIdentityIsReusedAndAVanishedOneReplaced() async throws {
        let clock = TestClock.sts()
        let start = Int(clock.timeSource.now().timeIntervalSince1970)
        let transport = STSTestTransport([
            CognitoIdentityClientTests.json(#"{"IdentityId":"\#(Self.first)"}"#),
            Self.credentials(Self.first, key: "ASIAFIRST", expiration: start + 1000),
            Self.credentials(Self.first, key: "ASIASECOND", expiration: start + 3000),
            CognitoIdentityClientTests.json(#"{"__type":"ResourceNotFoundException","message":"Identity not found."}"#, status: 400),
            CognitoIdentityClientTests.json(#"{"IdentityId":"\#(Self.second)"}"#),
            Self.credentials(Self.second, key: "ASIATHIRD", expiration: start + 9000),
        ])
        let tokens = STSTestTokenSource("token-1", "token-2", "token-3")
        let provider = try IdentityPoolCredentialProvider(
            configuration: IdentityPoolConfiguration(identityPoolId: Self.pool, logins: ["accounts.google.com": tokens]),
            transport: transport, timeSource: clock.timeSource, jitter: { 0 })

        #expect(try await provider.getCredentials().accessKeyId == "ASIAFIRST")
        #expect(try await provider.getCredentials().accessKeyId == "ASIAFIRST", "cached until near expiry")
        clock.advance(by: 1000)
        #expect(try await provider.getCredentials().accessKeyId == "ASIASECOND")
        #expect(await provider.identityId() == Self.first)
        clock.advance(by: 2000)
        #expect(try await provider.getCredentials().accessKeyId == "ASIATHIRD")
        #expect(await provider.identityId() == Self.second)

        let requests = transport.requests
        #expect(requests.map(Self.target) == [
            "GetId", "GetCredentialsForIdentity", "GetCredentialsForIdentity", "GetCredentialsForIdentity", "GetId",
            "GetCredentialsForIdentity",
        ])
        #expect(try requests.map(Self.login) == ["token-1", "token-1", "token-2", "token-3", "token-3", "token-3"])
        #expect(try JSONParser.parse(requests[2].body).member("IdentityId")?.stringValue == Self.first)
        #expect(tokens.calls.allSatisfy { $0 == false }, "a refresh reads the source's current token")
    }

    @Test func aMalformedPoolIdOrTooManyLoginsIsRefusedAtCreation() throws {
        let transport = STSTestTransport([])
        #expect(throws: WIFCredentialsError.self) {
            _ = try IdentityPoolCredentialProvider(
                configuration: .init(identityPoolId: "not-a-pool"), transport: transport, timeSource: TestClock.sts().timeSource)
        }
        let eleven = Dictionary(uniqueKeysWithValues: (0..<11).map { ("p\($0).example.com", STSTestTokenSource("t") as any WebIdentityTokenSource) })
        let error = try #require(throws: WIFCredentialsError.self) {
            _ = try IdentityPoolCredentialProvider(
                configuration: .init(identityPoolId: Self.pool, logins: eleven), transport: transport, timeSource: TestClock.sts().timeSource)
        }
        #expect(error.code == .invalidParameter)
        #expect(transport.requests.isEmpty)
        let provider = try IdentityPoolCredentialProvider(
            configuration: .init(identityPoolId: Self.pool), transport: transport, timeSource: TestClock.sts().timeSource)
        #expect(provider.description == "IdentityPoolCredentialProvider(identityPoolId: \(Self.pool))")
        let configuration = IdentityPoolConfiguration(
            identityPoolId: Self.pool, logins: ["accounts.google.com": STSTestTokenSource("secret-token")], flow: .basic(roleArn: "arn:aws:iam::1:role/r"))
        #expect(configuration.description == "IdentityPoolConfiguration(identityPoolId: \(Self.pool), logins: [accounts.google.com], flow: basic(roleArn: arn:aws:iam::1:role/r))")
        #expect(!String(describing: configuration).contains("secret-token"))
    }
}
