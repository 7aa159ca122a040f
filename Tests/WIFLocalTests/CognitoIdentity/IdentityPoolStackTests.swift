import Foundation
import NIOCore
import Testing
import WIFCredentials
@testable import WIFLocal

/// Identity pools end to end: the WIFCredentials client and provider against the local stack, with the
/// default pool's Amplify layout enforced by the local S3.
@Suite struct IdentityPoolStackTests {
    static let pool = IdentityPoolDefinition.defaultPoolId
    static let userPoolKey = "cognito-idp.us-east-1.amazonaws.com/us-east-1_wiflocal"

    /// A provider for the default pool with the given logins.
    static func provider(
        _ endpoint: LocalEndpoint, logins: [String: String] = [:], pool: String = Self.pool, identityId: String? = nil,
        flow: IdentityPoolConfiguration.Flow = .enhanced()
    ) throws -> IdentityPoolCredentialProvider {
        try IdentityPoolCredentialProvider(
            configuration: IdentityPoolConfiguration(
                identityPoolId: pool, logins: logins.mapValues { StringTokenSource($0) as any WebIdentityTokenSource }, flow: flow, identityId: identityId,
                endpoint: endpoint.url, stsEndpoint: endpoint.url),
            environment: [:])
    }

    /// A signed-in user of a provider profile: their provider, identity id and credentials.
    static func signIn(
        _ endpoint: LocalEndpoint, provider: String = "google", user: String, groups: [String] = []
    ) async throws -> (provider: IdentityPoolCredentialProvider, identityId: String, credentials: AWSCredentials) {
        let token = try endpoint.developmentToken(provider: provider, user: user, groups: groups)
        let key = try #require(endpoint.configuration.provider(named: provider)?.loginsKey)
        let identityPool = try Self.provider(endpoint, logins: [key: token.token])
        let credentials = try await identityPool.getCredentials()
        let identityId = try #require(await identityPool.identityId())
        return (identityPool, identityId, credentials)
    }

    @Test func guestsReadPublicAndCannotWrite() async throws {
        try await StackTestSupport.withDataDirectory { path in
            try await LocalStack.run(.default(dataDirectory: path)) { endpoint in
                let alice = try await Self.signIn(endpoint, user: "alice")
                #expect(try await S3Calls.send("PUT", "public/hello.txt", "hi", endpoint, alice.credentials).status == 200)

                let guest = try Self.provider(endpoint)
                let credentials = try await guest.getCredentials()
                let guestId = try #require(await guest.identityId())
                #expect(guestId.hasPrefix("us-east-1:"))
                #expect(guestId != alice.identityId)
                let read = try await S3Calls.send("GET", "public/hello.txt", nil, endpoint, credentials)
                #expect(read.status == 200)
                #expect(read.body == "hi")
                let write = try await S3Calls.send("PUT", "public/guest.txt", "x", endpoint, credentials)
                #expect(write.status == 403)
                #expect(write.body.contains("<Code>AccessDenied</Code>"))
                #expect(try await S3Calls.send("GET", "protected/\(alice.identityId)/a.txt", nil, endpoint, credentials).status == 403)
                #expect(try await S3Calls.send("PUT", "private/\(guestId)/a.txt", "x", endpoint, credentials).status == 403)
            }
        }
    }

    @Test func signedInUsersOwnPrivateAndProtectedAndReadOthersProtectedOnly() async throws {
        try await StackTestSupport.withDataDirectory { path in
            try await LocalStack.run(.default(dataDirectory: path)) { endpoint in
                let alice = try await Self.signIn(endpoint, user: "alice")
                let again = try await Self.signIn(endpoint, user: "alice")
                #expect(again.identityId == alice.identityId, "the same login keeps its identity id")
                let bob = try await Self.signIn(endpoint, provider: "oidc", user: "bob")
                #expect(bob.identityId != alice.identityId)

                let a = alice.identityId
                #expect(try await S3Calls.send("PUT", "private/\(a)/diary.txt", "secret", endpoint, alice.credentials).status == 200)
                #expect(try await S3Calls.send("PUT", "protected/\(a)/photo.txt", "shared", endpoint, alice.credentials).status == 200)
                #expect(try await S3Calls.send("GET", "private/\(a)/diary.txt", nil, endpoint, alice.credentials).body == "secret")

                let shared = try await S3Calls.send("GET", "protected/\(a)/photo.txt", nil, endpoint, bob.credentials)
                #expect(shared.status == 200)
                #expect(shared.body == "shared")
                #expect(try await S3Calls.send("GET", "private/\(a)/diary.txt", nil, endpoint, bob.credentials).status == 403)
                #expect(try await S3Calls.send("PUT", "protected/\(a)/photo.txt", "overwritten", endpoint, bob.credentials).status == 403)
                #expect(try await S3Calls.send("DELETE", "protected/\(a)/photo.txt", nil, endpoint, bob.credentials).status == 403)
                // Adversarial keys: a prefix of alice's id, and bob's id with more after it.
                #expect(try await S3Calls.send("PUT", "private/\(a.dropLast(4))/x.txt", "x", endpoint, bob.credentials).status == 403)
                #expect(try await S3Calls.send("PUT", "private/\(bob.identityId)x/x.txt", "x", endpoint, bob.credentials).status == 403)
            }
        }
    }

    @Test func aUserPoolGroupMapsToTheAdminRole() async throws {
        try await StackTestSupport.withDataDirectory { path in
            try await LocalStack.run(.default(dataDirectory: path)) { endpoint in
                let alice = try await Self.signIn(endpoint, user: "alice")
                #expect(try await S3Calls.send("PUT", "private/\(alice.identityId)/diary.txt", "secret", endpoint, alice.credentials).status == 200)

                let admin = try await Self.signIn(endpoint, provider: "cognito-idp", user: "carol", groups: ["admin"])
                let read = try await S3Calls.send("GET", "private/\(alice.identityId)/diary.txt", nil, endpoint, admin.credentials)
                #expect(read.status == 200)
                #expect(read.body == "secret")

                let member = try await Self.signIn(endpoint, provider: "cognito-idp", user: "dave", groups: ["readers"])
                #expect(try await S3Calls.send("GET", "private/\(alice.identityId)/diary.txt", nil, endpoint, member.credentials).status == 403)
                #expect(try await S3Calls.send("PUT", "private/\(member.identityId)/own.txt", "x", endpoint, member.credentials).status == 200)
            }
        }
    }

    @Test func aGuestWhoSignsInKeepsTheirIdentityAndSigningOutMakesThemANewGuest() async throws {
        try await StackTestSupport.withDataDirectory { path in
            try await LocalStack.run(.default(dataDirectory: path)) { endpoint in
                let provider = try Self.provider(endpoint)
                let guestCredentials = try await provider.getCredentials()
                let guestId = try #require(await provider.identityId())
                #expect(try await S3Calls.send("PUT", "private/\(guestId)/a.txt", "x", endpoint, guestCredentials).status == 403)

                let token = try endpoint.developmentToken(provider: "google", user: "erin")
                try await provider.signIn("accounts.google.com", tokenSource: StringTokenSource(token.token))
                let signedIn = try await provider.getCredentials()
                #expect(await provider.identityId() == guestId)
                #expect(signedIn.accessKeyId != guestCredentials.accessKeyId)
                #expect(try await S3Calls.send("PUT", "private/\(guestId)/a.txt", "x", endpoint, signedIn).status == 200)

                // The login is now linked to that identity: GetId for it answers the same id.
                let again = try await Self.signIn(endpoint, user: "erin")
                #expect(again.identityId == guestId)

                // Signed out of the last login, the provider is a new guest, refused erin's folder.
                await provider.signOut(of: "accounts.google.com")
                let guestAgain = try await provider.getCredentials()
                let newGuestId = try #require(await provider.identityId())
                #expect(newGuestId != guestId)
                #expect(guestAgain.accessKeyId != signedIn.accessKeyId)
                #expect(try await S3Calls.send("GET", "private/\(guestId)/a.txt", nil, endpoint, guestAgain).status == 403)
                // The signed-in identity itself refuses guest access.
                let client = try CognitoIdentityClient(configuration: .init(endpoint: endpoint.url), environment: [:])
                let error = try await #require(throws: WIFCredentialsError.self) { try await client.getCredentialsForIdentity(identityId: guestId) }
                #expect(error.serviceError?.code == "NotAuthorizedException")
            }
        }
    }

    @Test func theBasicFlowGoesThroughTheStacksSTS() async throws {
        try await StackTestSupport.withDataDirectory { path in
            try await LocalStack.run(.default(dataDirectory: path)) { endpoint in
                let token = try endpoint.developmentToken(provider: "google", user: "frank")
                let role = "arn:aws:iam::000000000000:role/identity-pool-authenticated"
                let provider = try Self.provider(endpoint, logins: ["accounts.google.com": token.token], flow: .basic(roleArn: role))
                let credentials = try await provider.getCredentials()
                let id = try #require(await provider.identityId())
                #expect(try await S3Calls.send("PUT", "private/\(id)/basic.txt", "x", endpoint, credentials).status == 200)

                // A guest's OpenID token says `unauthenticated`, which the authenticated role's trust policy refuses.
                let guest = try Self.provider(endpoint, flow: .basic(roleArn: role))
                let error = try await #require(throws: WIFCredentialsError.self) { try await guest.getCredentials() }
                #expect(error.serviceError?.code == "AccessDenied")
            }
        }
    }

    @Test func aForgottenIdentityIsReplaced() async throws {
        try await StackTestSupport.withDataDirectory { path in
            try await LocalStack.run(.default(dataDirectory: path)) { endpoint in
                let stale = "us-east-1:00000000-0000-4000-8000-00000000dead"
                let provider = try Self.provider(endpoint, identityId: stale)
                _ = try await provider.getCredentials()
                let id = try #require(await provider.identityId())
                #expect(id != stale)
            }
        }
    }
}
