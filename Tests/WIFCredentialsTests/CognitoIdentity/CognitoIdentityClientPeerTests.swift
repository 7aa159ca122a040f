import AsyncHTTPClient
import Foundation
import NIOCore
import Testing

@testable import WIFCredentials
import WIFTestSupport

/// The Cognito Identity client against moto's cognito-identity, a third-party implementation of the wire
/// format (moto checks no token, so this proves shapes, not security).
@Suite struct CognitoIdentityClientPeerTests {
    /// Creates a pool through moto's CreateIdentityPool, which the client does not offer.
    static func createPool(_ server: MotoServer) async throws -> String {
        var request = HTTPClientRequest(url: server.endpoint.absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-amz-json-1.1")
        request.headers.add(name: "X-Amz-Target", value: "AWSCognitoIdentityService.CreateIdentityPool")
        request.body = .bytes(ByteBuffer(string: #"{"IdentityPoolName":"wif_tests","AllowUnauthenticatedIdentities":true}"#))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 1 << 20)
        let object = try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any]
        return try #require(object?["IdentityPoolId"] as? String, "moto answered \(String(buffer: body))")
    }

    @Test(.enabled(if: MotoServer.isAvailable, MotoServer.skipReason), .timeLimit(.minutes(2)))
    func aGuestGetsAnIdentityCredentialsAndAnOpenIdTokenFromMoto() async throws {
        try await MotoServer.withServer { server in
            let pool = try await Self.createPool(server)
            let client = try CognitoIdentityClient(
                configuration: .init(region: "us-east-1", endpoint: server.endpoint.absoluteString, retry: .disabled), environment: [:])
            let id = try await client.getId(identityPoolId: pool)
            #expect(id.hasPrefix("us-east-1:"))
            let result = try await client.getCredentialsForIdentity(identityId: id)
            #expect(result.identityId == id)
            #expect(!result.credentials.accessKeyId.isEmpty)
            #expect(!result.credentials.secretAccessKey.isEmpty)
            #expect(result.credentials.sessionToken?.isEmpty == false)
            let expiration = try #require(result.credentials.expiration)
            #expect(expiration > Date())
            let token = try await client.getOpenIdToken(identityId: id)
            #expect(token.identityId == id)
            #expect(!token.token.isEmpty)
        }
    }
}
