import Foundation
import NIOCore
import Testing
import WIFCredentials
@testable import WIFLocal

/// What the local Cognito Identity refuses, with AWS's error codes, and its wire format seen raw.
@Suite struct IdentityPoolRefusalTests {
    static let strictPool = "us-east-1:00000000-0000-4000-8000-000000000002"

    /// The default stack plus a pool that takes only Google logins, refuses guests, and names as its
    /// authenticated role one whose trust policy trusts only the default pool.
    static func configuration(_ path: String) -> LocalConfiguration {
        var configuration = LocalConfiguration.default(dataDirectory: path)
        configuration.identityPools.append(
            IdentityPoolDefinition(
                id: Self.strictPool, name: "strict", providers: [.init(profile: "google")],
                roles: .init(authenticated: "arn:aws:iam::000000000000:role/identity-pool-authenticated")))
        return configuration
    }

    static func client(_ endpoint: LocalEndpoint) throws -> CognitoIdentityClient {
        try CognitoIdentityClient(configuration: .init(region: "us-east-1", endpoint: endpoint.url), environment: [:])
    }

    static func serviceCode(_ body: () async throws -> Void) async -> (code: String?, message: String?) {
        do {
            try await body()
            return (nil, nil)
        } catch let error as WIFCredentialsError {
            return (error.serviceError?.code, error.serviceError?.message)
        } catch {
            return ("unexpected \(error)", nil)
        }
    }

    @Test func aPoolThatRefusesGuestsSaysNotAuthorized() async throws {
        try await StackTestSupport.withDataDirectory { path in
            try await LocalStack.run(Self.configuration(path)) { endpoint in
                let client = try Self.client(endpoint)
                let refused = await Self.serviceCode { _ = try await client.getId(identityPoolId: Self.strictPool) }
                #expect(refused.code == "NotAuthorizedException")
                #expect(refused.message == "Unauthenticated access is not supported for this identity pool.")
            }
        }
    }

    @Test func aRoleThatTrustsAnotherPoolIsRefused() async throws {
        try await StackTestSupport.withDataDirectory { path in
            try await LocalStack.run(Self.configuration(path)) { endpoint in
                let client = try Self.client(endpoint)
                let token = try endpoint.developmentToken(provider: "google", user: "alice").token
                let logins = ["accounts.google.com": token]
                let id = try await client.getId(identityPoolId: Self.strictPool, logins: logins)
                let refused = await Self.serviceCode { _ = try await client.getCredentialsForIdentity(identityId: id, logins: logins) }
                #expect(refused.code == "InvalidIdentityPoolConfigurationException")
            }
        }
    }

    @Test func aTokenOfAProviderThePoolDoesNotListIsRefused() async throws {
        try await StackTestSupport.withDataDirectory { path in
            try await LocalStack.run(Self.configuration(path)) { endpoint in
                let client = try Self.client(endpoint)
                let token = try endpoint.developmentToken(provider: "oidc", user: "alice").token
                let refused = await Self.serviceCode { _ = try await client.getId(identityPoolId: Self.strictPool, logins: ["wif.localhost": token]) }
                #expect(refused.code == "NotAuthorizedException")
                #expect(refused.message?.contains("wif.localhost is not a provider of this identity pool") == true)
                // A token sent under another provider's key is refused too.
                let misfiled = await Self.serviceCode {
                    _ = try await client.getId(identityPoolId: IdentityPoolDefinition.defaultPoolId, logins: ["accounts.google.com": token])
                }
                #expect(misfiled.code == "NotAuthorizedException")
                #expect(misfiled.message?.contains(token) == false)
            }
        }
    }

    @Test func aLoginLinkedToAnotherIdentityConflicts() async throws {
        try await StackTestSupport.withDataDirectory { path in
            try await LocalStack.run(.default(dataDirectory: path)) { endpoint in
                let client = try Self.client(endpoint)
                let pool = IdentityPoolDefinition.defaultPoolId
                let alice = ["accounts.google.com": try endpoint.developmentToken(provider: "google", user: "alice").token]
                let bob = ["wif.localhost": try endpoint.developmentToken(provider: "oidc", user: "bob").token]
                _ = try await client.getId(identityPoolId: pool, logins: alice)
                let bobId = try await client.getId(identityPoolId: pool, logins: bob)
                let conflict = await Self.serviceCode { _ = try await client.getCredentialsForIdentity(identityId: bobId, logins: alice) }
                #expect(conflict.code == "ResourceConflictException")
                let both = await Self.serviceCode { _ = try await client.getId(identityPoolId: pool, logins: alice.merging(bob) { $1 }) }
                #expect(both.code == "ResourceConflictException")
                // Without its login, a signed-in identity gets nothing.
                let missing = await Self.serviceCode { _ = try await client.getCredentialsForIdentity(identityId: bobId) }
                #expect(missing.code == "NotAuthorizedException")
                let unknownPool = await Self.serviceCode { _ = try await client.getId(identityPoolId: "us-east-1:00000000-0000-4000-8000-0000000000ff") }
                #expect(unknownPool.code == "ResourceNotFoundException")
            }
        }
    }

    @Test func theWireFormatIsJSON11WithAWSErrorShapes() async throws {
        try await StackTestSupport.withDataDirectory { path in
            try await LocalStack.run(.default(dataDirectory: path)) { endpoint in
                func call(_ operation: String, _ body: String) async throws -> StackTestSupport.Answer {
                    try await StackTestSupport.send(
                        "POST", endpoint.url + "/",
                        headers: [("Content-Type", "application/x-amz-json-1.1"), ("X-Amz-Target", "AWSCognitoIdentityService.\(operation)")],
                        body: ByteBuffer(string: body))
                }
                let bad = try await call("GetId", #"{"IdentityPoolId":"not-a-pool"}"#)
                #expect(bad.status == 400)
                #expect(bad.header("Content-Type") == "application/x-amz-json-1.1")
                let error = try #require(try JSONSerialization.jsonObject(with: Data(bad.body.utf8)) as? [String: String])
                #expect(error["__type"] == "InvalidParameterException")
                #expect(error["message"]?.contains("identityPoolId") == true)

                let google = try endpoint.developmentToken(provider: "google", user: "alice").token
                let created = try await call("GetId", #"{"IdentityPoolId":"\#(IdentityPoolDefinition.defaultPoolId)","Logins":{"accounts.google.com":"\#(google)"}}"#)
                #expect(created.status == 200)
                let id = try #require((try JSONSerialization.jsonObject(with: Data(created.body.utf8)) as? [String: Any])?["IdentityId"] as? String)

                let described = try await call("DescribeIdentity", #"{"IdentityId":"\#(id)"}"#)
                let description = try #require(try JSONSerialization.jsonObject(with: Data(described.body.utf8)) as? [String: Any])
                #expect(description["Logins"] as? [String] == ["accounts.google.com"])
                #expect(description["CreationDate"] is NSNumber)

                let listed = try await call("ListIdentities", #"{"IdentityPoolId":"\#(IdentityPoolDefinition.defaultPoolId)","MaxResults":10}"#)
                let list = try #require(try JSONSerialization.jsonObject(with: Data(listed.body.utf8)) as? [String: Any])
                let identities = try #require(list["Identities"] as? [[String: Any]])
                #expect(identities.map { $0["IdentityId"] as? String } == [id])

                let openId = try await call("GetOpenIdToken", #"{"IdentityId":"\#(id)","Logins":{"accounts.google.com":"\#(google)"}}"#)
                let token = try #require((try JSONSerialization.jsonObject(with: Data(openId.body.utf8)) as? [String: Any])?["Token"] as? String)
                let payload = try #require(StackTestSupport.decodeBase64URL(String(token.split(separator: ".")[1])))
                let claims = try #require(try JSONSerialization.jsonObject(with: payload) as? [String: Any])
                #expect(claims["iss"] as? String == "https://cognito-identity.amazonaws.com")
                #expect(claims["aud"] as? String == IdentityPoolDefinition.defaultPoolId)
                #expect(claims["sub"] as? String == id)
                #expect((claims["amr"] as? [String])?.prefix(2) == ["authenticated", "accounts.google.com"])

                let unknown = try await call("DeleteIdentityPool", "{}")
                #expect(unknown.status == 400)
                #expect(unknown.body.contains("UnknownOperationException"))
            }
        }
    }
}

/// Signed S3 calls with a session's credentials.
enum S3Calls {
    static func send(
        _ method: String, _ key: String, _ text: String?, _ endpoint: LocalEndpoint, _ credentials: AWSCredentials
    ) async throws -> StackTestSupport.Answer {
        let url = try #require(URL(string: endpoint.url + "/wif-personal/" + key))
        var request = try SigV4Request(method: method, url: url)
        let body = Data((text ?? "").utf8)
        let signer = SigV4Signer(credentials: credentials, region: endpoint.configuration.region, service: "s3")
        try signer.sign(&request, payload: .bytes(body), date: Date())
        return try await StackTestSupport.send(
            method, request.urlString, headers: request.headers.map { ($0.name, $0.value) }, body: text.map { ByteBuffer(string: $0) })
    }
}
