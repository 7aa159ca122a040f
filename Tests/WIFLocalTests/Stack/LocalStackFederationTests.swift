import AsyncHTTPClient
import Foundation
import NIOCore
import Testing
import WIFCredentials
@testable import WIFLocal

/// The README's local-stack example, end to end through the one port: a development token, STS
/// AssumeRoleWithWebIdentity with the WIFCredentials client, then S3 with the temporary credentials.
@Suite struct LocalStackFederationTests {
    @Test(arguments: ["google", "facebook", "oidc"])
    func aDevelopmentUserFederatesIntoTheirOwnFolder(provider: String) async throws {
        try await StackTestSupport.withDataDirectory { path in
            try await LocalStack.run(.default(dataDirectory: path)) { endpoint in
                let alice = try endpoint.developmentToken(provider: provider, user: "alice")
                let roleArn = try #require(alice.roleArn)
                let credentials = try await WebIdentityCredentialProvider(
                    configuration: WebIdentityConfiguration(
                        roleArn: roleArn,
                        tokenSource: StringTokenSource(alice.token),
                        providerId: alice.providerId,
                        region: endpoint.configuration.region,
                        stsEndpoint: endpoint.url
                    ),
                    environment: [:]
                ).getCredentials()
                #expect(credentials.accessKeyId.hasPrefix("ASIA"))
                #expect(credentials.sessionToken != nil)

                let prefix = try #require(alice.prefix)
                let own = try await Self.put("hello", at: "/wif-personal/\(prefix)notes.txt", endpoint: endpoint, credentials: credentials)
                #expect(own.status == 200, "got: \(own.body)")
                let other = try await Self.put("hello", at: "/wif-personal/\(provider)/bob/notes.txt", endpoint: endpoint, credentials: credentials)
                #expect(other.status == 403)
                #expect(other.body.contains("<Code>AccessDenied</Code>"))
            }
        }
    }

    /// The README's example as written there.
    @Test func theReadmeExampleRuns() async throws {
        try await StackTestSupport.withDataDirectory { path in
            let accessKeyId = try await LocalStack.run(.default(dataDirectory: path)) { endpoint in
                let alice = try endpoint.developmentToken(provider: "google", user: "alice")
                // alice.roleArn: arn:aws:iam::000000000000:role/personal-store-google; alice.prefix: google/alice/
                let credentials = try await WebIdentityCredentialProvider(configuration: WebIdentityConfiguration(
                    roleArn: alice.roleArn ?? "",
                    tokenSource: StringTokenSource(alice.token),
                    providerId: alice.providerId,          // graph.facebook.com / www.amazon.com for those providers
                    region: "us-east-1",
                    stsEndpoint: endpoint.url
                )).getCredentials()
                #expect(alice.roleArn == "arn:aws:iam::000000000000:role/personal-store-google")
                #expect(alice.prefix == "google/alice/")
                return credentials.accessKeyId
            }
            #expect(accessKeyId.hasPrefix("ASIA"))
        }
    }

    static func put(_ text: String, at path: String, endpoint: LocalEndpoint, credentials: AWSCredentials) async throws -> StackTestSupport.Answer {
        let url = try #require(URL(string: endpoint.url + path))
        var request = try SigV4Request(method: "PUT", url: url)
        let body = Data(text.utf8)
        let signer = SigV4Signer(credentials: credentials, region: endpoint.configuration.region, service: "s3")
        try signer.sign(&request, payload: .bytes(body), date: Date())
        return try await StackTestSupport.send(
            "PUT", request.urlString, headers: request.headers.map { ($0.name, $0.value) }, body: ByteBuffer(bytes: body))
    }
}
