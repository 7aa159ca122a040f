import AccessRules
import Foundation
import Testing
@testable import WIFAPIClient
import WIFAPIServer
import WIFCredentials
import WIFTestSupport
@testable import WIFLocal

/// Each mode of the local API with good, missing, expired, wrong-audience and wrong-signature
/// credentials where ``LocalAPITests`` leaves one out: OIDC tokens, an expired API key, IAM signed for
/// another service or region and a role allowed only some paths; and the seed `Todo` schema under both
/// of Amplify's transformers.
///
/// Serialized: each test starts a stack.
@Suite(.serialized) struct LocalAPIModeTests {
    static let oidcSchema = """
        type Todo @model @auth(rules: [{ allow: owner, provider: oidc, identityClaim: "sub" }]) {
          id: ID!
          content: String!
          owner: String
        }
        """

    @Test func oidcTokensAreVerifiedAgainstTheIssuer() async throws {
        let clock = ManualTimeSource(now: Date())
        try await StackTestSupport.withDataDirectory { path in
            var configuration = LocalConfiguration.default(dataDirectory: path)
            configuration.apis.append(APIDefinition(name: "corp", schema: Self.oidcSchema, authorizationModes: [.oidc]))
            try await LocalStack.run(configuration, timeSource: clock.timeSource) { stack in
                let url = "\(stack.url)/apis/corp/Todo"
                let json = ("Content-Type", "application/json")
                let alice = try stack.developmentToken(provider: "oidc", user: "alice", ttl: 600).token
                let created = try await StackTestSupport.send(
                    "POST", url, headers: [json, ("Authorization", alice)], body: .init(string: #"{"id":"t1","content":"from oidc"}"#))
                #expect(created.status == 201, "\(created.body)")
                #expect(created.body.contains(#""owner":"alice""#), "\(created.body)")
                #expect(try await StackTestSupport.send("GET", "\(url)/t1", headers: [("Authorization", "Bearer \(alice)")]).status == 200)
                // Another user of the same issuer is not the owner.
                let bob = try stack.developmentToken(provider: "oidc", user: "bob").token
                #expect(try await StackTestSupport.send("GET", "\(url)/t1", headers: [("Authorization", bob)]).status == 403)

                // Missing, wrong audience, wrong signature: 401, the token never echoed.
                let missing = try await StackTestSupport.send("GET", url)
                #expect(missing.status == 401)
                #expect(missing.body.contains("OPENID_CONNECT"), "\(missing.body)")
                let otherApp = try stack.developmentToken(provider: "oidc", user: "alice", audience: "another-app").token
                let wrongAudience = try await StackTestSupport.send("GET", url, headers: [("Authorization", otherApp)])
                #expect(wrongAudience.status == 401)
                #expect(wrongAudience.body.contains("aud"), "\(wrongAudience.body)")
                #expect(!wrongAudience.body.contains(otherApp))
                // The second-to-last character changes: every bit of it is the signature's, so the token stays well-formed.
                let tampered = String(bob.dropLast(2)) + (bob.dropLast().hasSuffix("A") ? "B" : "A") + String(bob.suffix(1))
                let badSignature = try await StackTestSupport.send("GET", url, headers: [("Authorization", tampered)])
                #expect(badSignature.status == 401)
                #expect(badSignature.body.contains("signature"), "\(badSignature.body)")
                // A user pool token is not this API's: its issuer is not the OIDC provider's.
                let pool = try stack.developmentToken(provider: ProviderProfile.cognitoUserPoolName, user: "alice").token
                #expect(try await StackTestSupport.send("GET", url, headers: [("Authorization", pool)]).status == 401)

                // Past its lifetime (and the stack's leeway), the token that worked is refused.
                clock.advance(seconds: 900)
                let expired = try await StackTestSupport.send("GET", "\(url)/t1", headers: [("Authorization", alice)])
                #expect(expired.status == 401)
                #expect(expired.body.contains("expired"), "\(expired.body)")
            }
        }
    }

    @Test func anExpiredAPIKeyIs401() async throws {
        let clock = ManualTimeSource(now: Date())
        try await StackTestSupport.withDataDirectory { path in
            var configuration = LocalConfiguration.default(dataDirectory: path)
            let key = APIKey(name: "short", value: "da2-shortlivedkey000000000000", expires: clock.now.addingTimeInterval(60))
            configuration.apis.append(
                APIDefinition(
                    name: "keyed", schema: "type Note @model @auth(rules: [{ allow: public, provider: apiKey }]) { id: ID! text: String }",
                    authorizationModes: [.apiKey], apiKeys: [key]))
            try await LocalStack.run(configuration, timeSource: clock.timeSource) { stack in
                let url = "\(stack.url)/apis/keyed/Note"
                #expect(try await StackTestSupport.send("GET", url, headers: [("x-api-key", key.value)]).status == 200)
                clock.advance(seconds: 120)
                let expired = try await StackTestSupport.send("GET", url, headers: [("x-api-key", key.value)])
                #expect(expired.status == 401)
                #expect(expired.body.contains("expired"), "\(expired.body)")
                #expect(!expired.body.contains(key.value))
            }
        }
    }

    @Test func iamIsAllowedOnlyThePathsItsPolicyNamesAndOnlySignedForTheAPI() async throws {
        try await StackTestSupport.withDataDirectory { path in
            var configuration = LocalConfiguration.default(dataDirectory: path)
            let name = RoleDefinition.identityPoolAuthenticatedRole
            let index = try #require(configuration.roles.firstIndex { $0.name == name })
            configuration.roles[index].permissionPolicies.removeAll { $0.contains("execute-api") }
            configuration.roles[index].permissionPolicies.append(
                APIDefinition.invokePolicy(resources: ["arn:aws:execute-api:us-east-1:000000000000:todo/local/GET/Todo/shared-*"]))
            try await LocalStack.run(configuration) { stack in
                let alice = LocalAPITests.client(stack, try await LocalAPITests.identityPool(stack, user: "alice"))
                // Allowed by IAM, then no such record: 404, not 403.
                let shared = try await alice.send("GET", "/Todo/shared-1", mode: .iam)
                #expect(shared.response.status == 404, "\(String(decoding: shared.response.body, as: UTF8.self))")
                for refused in ["/Todo/private-1", "/Todo"] {
                    let answer = try await alice.send("GET", refused, mode: .iam)
                    #expect(answer.response.status == 403, "\(refused)")
                    #expect(String(decoding: answer.response.body, as: UTF8.self).contains("execute-api:Invoke"), "\(refused)")
                }

                // Signed for another service or region, the signature is not the API's.
                let credentials = try #require(try await alice.credentials.iam?.getCredentials())
                for (service, region) in [("s3", "us-east-1"), ("execute-api", "eu-west-1")] {
                    var request = try SigV4Request(method: "GET", url: try alice.url(for: "/Todo/shared-1"))
                    try SigV4Signer(credentials: credentials, region: region, service: service).sign(&request, payload: .bytes([UInt8]()), date: Date())
                    let headers = request.headers.filter { $0.name.lowercased() != "host" }.map { ($0.name, $0.value) }
                    let answer = try await StackTestSupport.send("GET", "\(stack.url)/apis/todo/Todo/shared-1", headers: headers)
                    #expect(answer.status == 401, "\(service) \(region): \(answer.body)")
                    #expect(answer.body.contains("UnauthorizedException"))
                }
            }
        }
    }

    /// The seed example under both transformers. Amplify's older rules protect only the operations a
    /// rule lists (``LocalAPITests/v1LetsOtherUsersReadWhatV2Refuses()``), but here reads are listed, by
    /// the API key and IAM rules, and neither serves a user pool caller: another user is refused under both.
    @Test func theSeedTodoRefusesOtherUsersUnderBothTransformersAndBeforeSending() async throws {
        try await StackTestSupport.withDataDirectory { path in
            var configuration = LocalConfiguration.default(dataDirectory: path)
            var v1 = APIDefinition.todo()
            v1.name = "todov1"
            v1.semantics = .v1
            configuration.apis.append(v1)
            try await LocalStack.run(configuration) { stack in
                for (api, semantics) in [("todov1", RuleSemantics.v1), ("todo", .v2)] {
                    var endpoint = LocalAPITests.endpoint(stack)
                    endpoint.url = URL(string: "\(stack.url)/apis/\(api)")!
                    let alice = APIClient(endpoint: endpoint, credentials: try LocalAPITests.userPool(stack, "alice"))
                    let bob = APIClient(endpoint: endpoint, credentials: try LocalAPITests.userPool(stack, "bob"))
                    let created = try await alice.send("POST", "/Todo", body: Array(#"{"content":"buy milk"}"#.utf8))
                    #expect(created.response.status == 201)
                    let id = try #require(LocalAPITests.json(created)["id"] as? String)
                    #expect(try await bob.send("GET", "/Todo/\(id)").response.status == 403, "\(api)")
                    // The API key's public read rule serves a signed-out reader under both.
                    let guest = APIClient(endpoint: endpoint, credentials: APIClientCredentials())
                    #expect(try await guest.send("GET", "/Todo/\(id)", mode: .apiKey).response.status == 200, "\(api)")

                    // Under either, Bob's update is refused before it is sent, with the reason …
                    let rules = RuleEvaluator(ruleSet: try RuleSet(schema: APIDefinition.todoSchema, semantics: semantics))
                    let stored: Record = ["id": .string(id), "content": "buy milk", "owner": "alice"]
                    let check = try await bob.checkSave(rules, model: "Todo", stored: stored, changes: ["content": "mine now"], mode: .userPools)
                    #expect(!check.isAllowed, "\(api)")
                    #expect(check.explanation.contains("owner"), "\(api): \(check.explanation)")
                    // … and the server agrees.
                    let sent = try await bob.send("PUT", "/Todo/\(id)", body: Array(#"{"content":"mine now"}"#.utf8))
                    #expect(sent.response.status == 403, "\(api)")
                }
            }
        }
    }
}
