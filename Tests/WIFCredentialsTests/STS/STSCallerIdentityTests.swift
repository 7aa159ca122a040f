import Foundation
import Testing
import WIFHTTP
import WIFSigV4

@testable import WIFCredentials
import WIFTestSupport

/// `GetCallerIdentity`: a request signed with the credentials asked about, its answer read, STS's
/// refusals reported without quoting a secret, and the role named by a role session's ARN.
@Suite struct STSCallerIdentityTests {
    static let credentials = AWSCredentials(
        accessKeyId: "ASIAEXAMPLEKEY000001", secretAccessKey: "secret/Key+Example0000000000000000000000", sessionToken: "session-token-0001")

    static func client(_ transport: STSTestTransport, clock: TestClock = .sts()) throws -> STSClient {
        try STSClient(
            configuration: .init(region: "eu-west-1", retry: .disabled, timeout: .seconds(7)), environment: [:], transport: transport,
            timeSource: clock.timeSource, jitter: { 0 })
    }

    @Test func theRequestIsSignedForSTSAndTheAnswerRead() async throws {
        let xml = """
            <GetCallerIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><GetCallerIdentityResult>\
            <Arn>arn:aws:sts::123456789012:assumed-role/identity-pool-authenticated/CognitoIdentityCredentials</Arn>\
            <UserId>AROAEXAMPLE:CognitoIdentityCredentials</UserId><Account>123456789012</Account></GetCallerIdentityResult>\
            <ResponseMetadata><RequestId>r-1</RequestId></ResponseMetadata></GetCallerIdentityResponse>
            """
        let transport = STSTestTransport([.response(TransportResponse(status: 200, headers: [], body: Array(xml.utf8)))])
        let identity = try await Self.client(transport).getCallerIdentity(credentials: Self.credentials)
        #expect(identity == CallerIdentity(
            account: "123456789012", arn: "arn:aws:sts::123456789012:assumed-role/identity-pool-authenticated/CognitoIdentityCredentials",
            userId: "AROAEXAMPLE:CognitoIdentityCredentials"))
        #expect(identity.roleArn == "arn:aws:iam::123456789012:role/identity-pool-authenticated")

        let request = try #require(transport.requests.first)
        #expect(STSTestTransport.decodeForm(request.body) == ["Action": "GetCallerIdentity", "Version": "2011-06-15"])
        let headers = Dictionary(request.headers.map { ($0.name.lowercased(), $0.value) }, uniquingKeysWith: { $1 })
        let authorization = try #require(headers["authorization"])
        #expect(authorization.hasPrefix("AWS4-HMAC-SHA256 Credential=ASIAEXAMPLEKEY000001/20261121/eu-west-1/sts/aws4_request"), "\(authorization)")
        #expect(headers["x-amz-security-token"] == "session-token-0001")
        #expect(headers["x-amz-date"] == "20261121T120000Z")
    }

    @Test func aRefusalIsReportedWithItsCodeAndNoSecret() async throws {
        let transport = STSTestTransport([
            .response(STSFixtures.errorResponse(code: "ExpiredToken", status: 403, message: "The security token session-token-0001 expired"))
        ])
        let error = try await #require(throws: WIFCredentialsError.self) {
            _ = try await Self.client(transport).getCallerIdentity(credentials: Self.credentials)
        }
        #expect(error.serviceError?.code == "ExpiredToken")
        #expect(!String(describing: error).contains("session-token-0001"), "\(error)")

        let odd = STSTestTransport([.response(TransportResponse(status: 200, headers: [], body: Array("<GetCallerIdentityResponse/>".utf8)))])
        let malformed = try await #require(throws: WIFCredentialsError.self) {
            _ = try await Self.client(odd).getCallerIdentity(credentials: Self.credentials)
        }
        #expect(malformed.code == .malformedResponse)
    }

    @Test(arguments: [
        ("arn:aws:sts::123456789012:assumed-role/admin/session", "arn:aws:iam::123456789012:role/admin"),
        ("arn:aws-cn:sts::123456789012:assumed-role/r/s", "arn:aws-cn:iam::123456789012:role/r"),
        ("arn:aws:iam::123456789012:user/alice", nil),
        ("arn:aws:sts::123456789012:federated-user/bob", nil),
        ("arn:aws:sts::123456789012:assumed-role//s", nil),
        ("not an arn", nil),
    ] as [(String, String?)])
    func theRoleOfASessionArn(arn: String, role: String?) {
        #expect(CallerIdentity(account: "123456789012", arn: arn, userId: "u").roleArn == role)
    }
}
