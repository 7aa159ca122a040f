import AccessRules
import Foundation
import Testing
@testable import WIFAPIClient
import WIFAPIServer
import WIFCredentials
import WIFTestSupport
@testable import WIFLocal

/// The default stack's `todo` API end to end: every mode with good and bad credentials, the access
/// rules on records, IAM policies on paths, and multi-auth against a real server.
///
/// Serialized: each test starts a stack and drives it hard, and several at once starve the time-limited
/// tests of other suites.
@Suite(.serialized) struct LocalAPITests {
    struct FixedToken: APITokenProvider {
        let token: String
        func latestToken() async throws -> String { self.token }
    }

    static func endpoint(_ stack: LocalEndpoint) -> APIEndpoint {
        APIEndpoint(
            name: "todo", kind: .rest, url: URL(string: "\(stack.url)/apis/todo")!, region: "us-east-1", defaultMode: .userPools,
            modes: [.apiKey, .iam], apiKey: APIDefinition.developmentAPIKey)
    }

    static func client(_ stack: LocalEndpoint, _ credentials: APIClientCredentials) -> APIClient {
        APIClient(endpoint: Self.endpoint(stack), credentials: credentials)
    }

    static func userPool(_ stack: LocalEndpoint, _ user: String, groups: [String] = []) throws -> APIClientCredentials {
        let token = try stack.developmentToken(provider: ProviderProfile.cognitoUserPoolName, user: user, groups: groups).token
        return APIClientCredentials(userPoolTokens: FixedToken(token: token), apiKey: "")
    }

    static func json(_ result: APIResult) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(result.response.body))) as? [String: Any] ?? [:]
    }

    /// Identity pool credentials: a guest's, or a user pool user's.
    static func identityPool(_ stack: LocalEndpoint, user: String?) async throws -> APIClientCredentials {
        let client = try CognitoIdentityClient(configuration: .init(region: "us-east-1", endpoint: stack.url), environment: [:])
        var logins: [String: String] = [:]
        if let user {
            let token = try stack.developmentToken(provider: ProviderProfile.cognitoUserPoolName, user: user).token
            logins["cognito-idp.us-east-1.amazonaws.com/us-east-1_wiflocal"] = token
        }
        let id = try await client.getId(identityPoolId: IdentityPoolDefinition.defaultPoolId, logins: logins)
        let issued = try await client.getCredentialsForIdentity(identityId: id, logins: logins)
        return APIClientCredentials(iam: StaticCredentialProvider(credentials: issued.credentials))
    }

    @Test func theSeedExampleEndToEnd() async throws {
        try await StackTestSupport.withDataDirectory { path in
            try await LocalStack.run(.default(dataDirectory: path)) { stack in
                let alice = Self.client(stack, try Self.userPool(stack, "alice"))
                let created = try await alice.send("POST", "/Todo", body: Array(#"{"content":"buy milk"}"#.utf8))
                #expect(created.response.status == 201)
                #expect(created.mode == .userPools)
                let record = Self.json(created)
                #expect(record["owner"] as? String == "alice")
                let id = try #require(record["id"] as? String)

                // Bob signed in through the user pool is not the owner: reads and writes are refused with the rule.
                let bob = Self.client(stack, try Self.userPool(stack, "bob"))
                let read = try await bob.send("GET", "/Todo/\(id)")
                #expect(read.response.status == 403)
                #expect(Self.json(read)["errorType"] as? String == "ForbiddenException")
                let update = try await bob.send("PUT", "/Todo/\(id)", body: Array(#"{"content":"mine now"}"#.utf8))
                #expect(update.response.status == 403)
                #expect(Self.json(update)["errorType"] as? String == "ConditionalCheckFailedException")
                #expect((Self.json(update)["rule"] as? String)?.contains("owner") == true)
                // Bob's list holds none of Alice's records.
                let list = try await bob.send("GET", "/Todo")
                #expect(list.response.status == 200)
                #expect((Self.json(list)["items"] as? [Any])?.isEmpty == true)

                // The API key reads, but cannot create.
                let guest = Self.client(stack, APIClientCredentials())
                let keyRead = try await guest.send("GET", "/Todo/\(id)", mode: .apiKey)
                #expect(keyRead.response.status == 200)
                #expect(Self.json(keyRead)["content"] as? String == "buy milk")
                let keyCreate = try await guest.send("POST", "/Todo", body: Array(#"{"content":"spam"}"#.utf8), mode: .apiKey)
                #expect(keyCreate.response.status == 403)

                // Alice updates and deletes her own record.
                let renamed = try await alice.send("PUT", "/Todo/\(id)", body: Array(#"{"content":"buy oat milk"}"#.utf8))
                #expect(renamed.response.status == 200)
                #expect(Self.json(renamed)["content"] as? String == "buy oat milk")
                let deleted = try await alice.send("DELETE", "/Todo/\(id)")
                #expect(deleted.response.status == 200)
                #expect(try await alice.send("GET", "/Todo/\(id)").response.status == 404)
            }
        }
    }

    @Test func badCredentialsOfEachModeAre401() async throws {
        try await StackTestSupport.withDataDirectory { path in
            try await LocalStack.run(.default(dataDirectory: path)) { stack in
                let url = "\(stack.url)/apis/todo/Todo"
                let none = try await StackTestSupport.send("GET", url)
                #expect(none.status == 401)
                #expect(none.body.contains("UnauthorizedException"))
                let wrongKey = try await StackTestSupport.send("GET", url, headers: [("x-api-key", "da2-not-a-key")])
                #expect(wrongKey.status == 401)
                #expect(!wrongKey.body.contains("da2-not-a-key"))

                let token = try stack.developmentToken(provider: ProviderProfile.cognitoUserPoolName, user: "alice").token
                // The second-to-last character changes: every bit of it is the signature's, so the token stays well-formed.
                let tampered = String(token.dropLast(2)) + (token.dropLast().hasSuffix("A") ? "B" : "A") + String(token.suffix(1))
                let badSignature = try await StackTestSupport.send("GET", url, headers: [("Authorization", tampered)])
                #expect(badSignature.status == 401)
                #expect(badSignature.body.contains("signature"))
                let otherClient = try stack.developmentToken(provider: ProviderProfile.cognitoUserPoolName, user: "alice", audience: "someoneelse").token
                let wrongAudience = try await StackTestSupport.send("GET", url, headers: [("Authorization", otherClient)])
                #expect(wrongAudience.status == 401)
                #expect(wrongAudience.body.contains("aud"))
                #expect(!wrongAudience.body.contains(otherClient))
                // A Google token is not this API's.
                let google = try stack.developmentToken(provider: "google", user: "alice").token
                let foreign = try await StackTestSupport.send("GET", url, headers: [("Authorization", google)])
                #expect(foreign.status == 401)
                #expect(foreign.body.contains("accounts.google.com"))
            }
        }
    }

    @Test func anExpiredUserPoolTokenIs401() async throws {
        let clock = ManualTimeSource(now: Date())
        try await StackTestSupport.withDataDirectory { path in
            try await LocalStack.run(.default(dataDirectory: path), timeSource: clock.timeSource) { stack in
                let token = try stack.developmentToken(provider: ProviderProfile.cognitoUserPoolName, user: "alice", ttl: 60).token
                let url = "\(stack.url)/apis/todo/Todo"
                #expect(try await StackTestSupport.send("GET", url, headers: [("Authorization", token)]).status == 200)
                clock.advance(seconds: 200)
                let expired = try await StackTestSupport.send("GET", url, headers: [("Authorization", token)])
                #expect(expired.status == 401)
                #expect(expired.body.contains("expired"))
            }
        }
    }

    @Test func iamReadsWithTheAuthenticatedRoleOnlyWhereThePolicyAllows() async throws {
        try await StackTestSupport.withDataDirectory { path in
            try await LocalStack.run(.default(dataDirectory: path)) { stack in
                let alice = Self.client(stack, try await Self.identityPool(stack, user: "alice"))
                let listed = try await alice.send("GET", "/Todo", mode: .iam)
                #expect(listed.response.status == 200)
                // The role may invoke GET only: a create is refused by IAM before any rule is read.
                let created = try await alice.send("POST", "/Todo", body: Array(#"{"content":"x"}"#.utf8), mode: .iam)
                #expect(created.response.status == 403)
                #expect(String(decoding: created.response.body, as: UTF8.self).contains("execute-api:Invoke"))
                // The guest role has no execute-api policy at all.
                let guest = Self.client(stack, try await Self.identityPool(stack, user: nil))
                let refused = try await guest.send("GET", "/Todo", mode: .iam)
                #expect(refused.response.status == 403)
                // A signature of another payload does not verify.
                var request = APIRequest(method: "GET", url: try alice.url(for: "/Todo"))
                try await alice.prepare(&request, mode: .iam)
                let headers = request.headers.filter { $0.name.lowercased() != "host" }.map { ($0.name, $0.value) }
                let forged = try await StackTestSupport.send("GET", "\(stack.url)/apis/todo/Todo/other", headers: headers)
                #expect(forged.status == 401)
            }
        }
    }

    /// `execute-api:Invoke` is decided on the session's keys, not on S3's: a deny that tests S3's
    /// `s3:authType` never applies to an API call, while one on the identity pool's `amr` does.
    @Test func iamDecisionsSeeTheSessionsKeysAndNotS3s() async throws {
        func denying(_ condition: String) -> String {
            #"{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Action":"execute-api:Invoke","Resource":"*","#
                + #""Condition":\#(condition)}]}"#
        }
        for (condition, status) in [
            (#"{"StringEquals":{"s3:authType":"REST-HEADER"}}"#, 200),
            (#"{"ForAnyValue:StringLike":{"cognito-identity.amazonaws.com:amr":"authenticated"}}"#, 403),
        ] {
            try await StackTestSupport.withDataDirectory { path in
                var configuration = LocalConfiguration.default(dataDirectory: path)
                let name = RoleDefinition.identityPoolAuthenticatedRole
                let index = try #require(configuration.roles.firstIndex { $0.name == name })
                configuration.roles[index].permissionPolicies.append(denying(condition))
                try await LocalStack.run(configuration) { stack in
                    let alice = Self.client(stack, try await Self.identityPool(stack, user: "alice"))
                    let listed = try await alice.send("GET", "/Todo", mode: .iam)
                    #expect(listed.response.status == status, "\(condition)")
                }
            }
        }
    }

    @Test func multiAuthFallsBackOnlyAfterAnAuthorizationFailure() async throws {
        try await StackTestSupport.withDataDirectory { path in
            try await LocalStack.run(.default(dataDirectory: path)) { stack in
                let rules = try RuleSet(schema: APIDefinition.todoSchema)
                // Signed in: owner/userPools, then private/iam, then public/apiKey.
                let signedIn = MultiAuthOrder.modes(ruleSet: rules, model: "Todo", operation: .list, signedIn: true)
                #expect(signedIn == [.userPools, .iam, .apiKey])
                let signedOut = MultiAuthOrder.modes(ruleSet: rules, model: "Todo", operation: .list, signedIn: false)
                #expect(signedOut == [.apiKey])

                // A user pool token for another app client is refused with 401, so IAM is tried next and answers.
                let otherClient = try stack.developmentToken(provider: ProviderProfile.cognitoUserPoolName, user: "alice", audience: "x").token
                var credentials = try await Self.identityPool(stack, user: "alice")
                credentials.userPoolTokens = FixedToken(token: otherClient)
                let fallback = try await Self.client(stack, credentials).send("GET", "/Todo", modes: signedIn)
                #expect(fallback.mode == .iam)
                #expect(fallback.attempts.map(\.mode) == [.userPools, .iam])
                #expect(fallback.response.status == 200)

                // A success ends the attempts.
                let alice = Self.client(stack, try Self.userPool(stack, "alice"))
                let first = try await alice.send("GET", "/Todo", modes: signedIn)
                #expect(first.attempts.count == 1)
                #expect(first.mode == .userPools)
                // A 404 is not an authorization failure: no fallback.
                let missing = try await alice.send("GET", "/Todo/nothing-here", modes: signedIn)
                #expect(missing.response.status == 404)
                #expect(missing.attempts.count == 1)
                // Signed out, with no credentials at all for user pools or IAM: the API key answers.
                let guest = Self.client(stack, APIClientCredentials())
                let keyed = try await guest.send("GET", "/Todo", modes: signedIn)
                #expect(keyed.mode == .apiKey)
                #expect(keyed.attempts.map(\.outcome.fallsBack) == [true, true, false])
            }
        }
    }

    @Test func theStackPublishesItsAmplifyOutputs() async throws {
        try await StackTestSupport.withDataDirectory { path in
            try await LocalStack.run(.default(dataDirectory: path)) { stack in
                let answer = try await StackTestSupport.send("GET", "\(stack.url)/.well-known/amplify_outputs.json")
                #expect(answer.status == 200)
                let endpoint = try AmplifyAPIConfiguration.endpoint(named: "todo", in: Array(answer.body.utf8))
                #expect(endpoint.url.absoluteString == "\(stack.url)/apis/todo")
                #expect(endpoint.defaultMode == .userPools)
                #expect(endpoint.modes == [.userPools, .apiKey, .iam])
                #expect(endpoint.apiKey == APIDefinition.developmentAPIKey)
                #expect(answer.body.contains(IdentityPoolDefinition.defaultPoolId))
                let unknown = try await StackTestSupport.send("GET", "\(stack.url)/.well-known/amplify_outputs.json?api=nope")
                #expect(unknown.status == 404)
            }
        }
    }

    static let notesSchema = """
        type Note @model @auth(rules: [{ allow: owner, operations: [create, update, delete] }]) {
          id: ID!
          content: String
          owner: String
        }
        """

    @Test func v1LetsOtherUsersReadWhatV2Refuses() async throws {
        try await StackTestSupport.withDataDirectory { path in
            var configuration = LocalConfiguration.default(dataDirectory: path)
            for semantics in [RuleSemantics.v1, .v2] {
                configuration.apis.append(
                    APIDefinition(name: "notes-\(semantics.rawValue)", schema: Self.notesSchema, authorizationModes: [.userPools], semantics: semantics))
            }
            try await LocalStack.run(configuration) { stack in
                for (semantics, expected) in [("v1", 200), ("v2", 403)] {
                    var endpoint = Self.endpoint(stack)
                    endpoint.url = URL(string: "\(stack.url)/apis/notes-\(semantics)")!
                    let alice = APIClient(endpoint: endpoint, credentials: try Self.userPool(stack, "alice"))
                    let bob = APIClient(endpoint: endpoint, credentials: try Self.userPool(stack, "bob"))
                    let created = try await alice.send("POST", "/Note", body: Array(#"{"id":"n1","content":"mine"}"#.utf8))
                    #expect(created.response.status == 201)
                    #expect(try await bob.send("GET", "/Note/n1").response.status == expected, "\(semantics)")

                    // Bob's update is refused before it is sent, with the reason, by the rules the server runs.
                    let rules = RuleEvaluator(ruleSet: try RuleSet(schema: Self.notesSchema, semantics: semantics == "v1" ? .v1 : .v2))
                    let stored: Record = ["id": "n1", "content": "mine", "owner": "alice"]
                    let check = try await bob.checkSave(rules, model: "Note", stored: stored, changes: ["content": "bob's"], mode: .userPools)
                    #expect(!check.isAllowed)
                    #expect(check.explanation.contains("owner"))
                    let aliceCheck = try await alice.checkSave(rules, model: "Note", stored: stored, changes: ["content": "edited"], mode: .userPools)
                    #expect(aliceCheck.isAllowed)
                    // The server agrees.
                    let sent = try await bob.send("PUT", "/Note/n1", body: Array(#"{"content":"bob's"}"#.utf8))
                    #expect(sent.response.status == 403)
                }
            }
        }
    }

    @Test func recordsOutliveARestartAndBadRequestsLoseNothing() async throws {
        try await StackTestSupport.withDataDirectory { path in
            let id = try await LocalStack.run(.default(dataDirectory: path)) { stack in
                let alice = Self.client(stack, try Self.userPool(stack, "alice"))
                let created = try await alice.send("POST", "/Todo", body: Array(#"{"content":"kept"}"#.utf8))
                return try #require(Self.json(created)["id"] as? String)
            }
            try await LocalStack.run(.default(dataDirectory: path)) { stack in
                let alice = Self.client(stack, try Self.userPool(stack, "alice"))
                #expect(Self.json(try await alice.send("GET", "/Todo/\(id)"))["content"] as? String == "kept")
                let broken = try await alice.send("PUT", "/Todo/\(id)", body: Array("not json".utf8))
                #expect(broken.response.status == 400)
                let badId = try await alice.send("GET", "/Todo/..%2Fescape")
                #expect(badId.response.status == 400 || badId.response.status == 404)
                #expect(Self.json(try await alice.send("GET", "/Todo/\(id)"))["content"] as? String == "kept")
                let unknownModel = try await alice.send("GET", "/Nope")
                #expect(unknownModel.response.status == 404)
                #expect(String(decoding: unknownModel.response.body, as: UTF8.self).contains("Todo"))
                // Bob cannot take the record over by naming himself owner.
                let bob = Self.client(stack, try Self.userPool(stack, "bob"))
                let takeover = try await bob.send("PUT", "/Todo/\(id)", body: Array(#"{"owner":"bob"}"#.utf8))
                #expect(takeover.response.status == 403)
                // Nor create one in Alice's name.
                let forged = try await bob.send("POST", "/Todo", body: Array(#"{"content":"x","owner":"alice"}"#.utf8))
                #expect(forged.response.status == 403)
            }
        }
    }

    @Test func anAPIWithOnlyNONEIsOpenAndOneWithOtherModesIsNot() async throws {
        try await StackTestSupport.withDataDirectory { path in
            var configuration = LocalConfiguration.default(dataDirectory: path)
            configuration.apis.append(APIDefinition(name: "open", schema: "type Note @model { id: ID! text: String }", authorizationModes: [.none]))
            configuration.apis.append(
                APIDefinition(name: "mixed", schema: Self.notesSchema, authorizationModes: [.userPools, .none], defaultMode: .userPools))
            try await LocalStack.run(configuration) { stack in
                let created = try await StackTestSupport.send(
                    "POST", "\(stack.url)/apis/open/Note", headers: [("Content-Type", "application/json")], body: .init(string: #"{"text":"hi"}"#))
                #expect(created.status == 201, "\(created.body)")
                #expect(try await StackTestSupport.send("GET", "\(stack.url)/apis/open/Note").body.contains("hi"))
                // Without credentials on an API that also takes tokens, the rules see a signed-out caller.
                let refused = try await StackTestSupport.send("GET", "\(stack.url)/apis/mixed/Note")
                #expect(refused.status == 403, "\(refused.body)")
            }
        }
    }

    @Test func userPoolAccessTokensAreAcceptedAsAppSyncAcceptsThem() async throws {
        try await StackTestSupport.withDataDirectory { path in
            try await LocalStack.run(.default(dataDirectory: path)) { stack in
                let access = try stack.developmentToken(provider: ProviderProfile.cognitoUserPoolName, user: "alice", tokenUse: .access).token
                let claims = try #require(UnverifiedJWTClaims(token: access))
                #expect(claims.audience.isEmpty)
                let alice = Self.client(stack, APIClientCredentials(userPoolTokens: FixedToken(token: access)))
                let created = try await alice.send("POST", "/Todo", body: Array(#"{"content":"from an access token"}"#.utf8))
                #expect(created.response.status == 201)
                #expect(Self.json(created)["owner"] as? String == "alice")
                // The ID token of the same user owns the same record.
                let id = try #require(Self.json(created)["id"] as? String)
                let withID = Self.client(stack, try Self.userPool(stack, "alice"))
                #expect(try await withID.send("DELETE", "/Todo/\(id)").response.status == 200)
                // Access tokens are a user pool's alone.
                #expect(throws: LocalStackError.self) { _ = try stack.developmentToken(provider: "google", user: "alice", tokenUse: .access) }
            }
        }
    }

    @Test func expiredIdentityPoolCredentialsAre401() async throws {
        let clock = ManualTimeSource(now: Date())
        try await StackTestSupport.withDataDirectory { path in
            try await LocalStack.run(.default(dataDirectory: path), timeSource: clock.timeSource) { stack in
                let alice = Self.client(stack, try await Self.identityPool(stack, user: "alice"))
                #expect(try await alice.send("GET", "/Todo", mode: .iam).response.status == 200)
                // Past the session's hour, signed at the stack's time so only the session's expiry is wrong.
                clock.advance(seconds: 2 * 3600)
                let credentials = try #require(try await alice.credentials.iam?.getCredentials())
                var request = try SigV4Request(method: "GET", url: try alice.url(for: "/Todo"))
                try SigV4Signer(credentials: credentials, region: "us-east-1", service: "execute-api")
                    .sign(&request, payload: .bytes([UInt8]()), date: clock.now)
                let headers = request.headers.filter { $0.name.lowercased() != "host" }.map { ($0.name, $0.value) }
                let expired = try await StackTestSupport.send("GET", "\(stack.url)/apis/todo/Todo", headers: headers)
                #expect(expired.status == 401)
                #expect(expired.body.contains("UnauthorizedException"))
                #expect(expired.body.contains("ExpiredToken"), "\(expired.body)")
            }
        }
    }
}
