import Testing

import PolicyEngine

/// Several roles keeping their users' folders in one bucket: each role's users against every other role's
/// users, when the roles name their users by different keys (providers) or by the same key (the roles of
/// one identity pool).
@Suite struct CrossRoleIsolationTests {
    typealias F = ProverFixtures

    /// The shipped policy of a provider, as a role with that provider's template, key and ids.
    static func role(
        _ path: String, name: String, template: String, idKey: String, alphabet: String?
    ) throws -> IsolationRole {
        let policy = try TestSupport.policy(try ShippedPolicies.text(path), kind: .identity, name: path)
        return IsolationRole(
            name: name, policies: PolicyEvaluator(identityPolicies: [policy]), template: try PartitionTemplate(template),
            idKey: idKey, alphabet: try alphabet.map { try IdentifierAlphabet($0) } ?? .any)
    }

    static func answer(_ answers: [RoleIsolationResult], _ caller: String, _ owner: String) -> IsolationResult? {
        answers.first { $0.caller == caller && $0.owner == owner }?.result
    }

    @Test func twoProvidersThatBothKeepFoldersAtTheRootShareFolders() throws {
        let facebook = try Self.role(
            "facebook/personal-store.json", name: "facebook", template: "{id}/", idKey: "graph.facebook.com:id", alphabet: "[0-9]")
        let google = try Self.role(
            "google/personal-store.json", name: "google", template: "{id}/", idKey: "accounts.google.com:sub", alphabet: "[0-9]")
        let answers = try F.prover().proveIsolation(across: [facebook, google])
        #expect(answers.count == 4)
        // Each role alone keeps its own users apart.
        #expect(Self.answer(answers, "facebook", "facebook")?.name == "proved")
        #expect(Self.answer(answers, "google", "google")?.name == "proved")
        // But Facebook's user 12 and Google's user 12 are two users with one folder.
        guard case .counterexample(let found) = Self.answer(answers, "facebook", "google") else {
            Issue.record("expected a counterexample, got \(answers)")
            return
        }
        #expect(found.callerRole == "facebook" && found.ownerRole == "google")
        #expect(found.resource.hasPrefix("arn:aws:s3:::wif-personal/\(found.ownerId)/") || found.requestKeys["s3:prefix"] != nil)
        #expect(found.summary.contains("of role 'google'"), "\(found.summary)")
        // The request is the Facebook user's own, replayed with only the Facebook key.
        let simulator = PolicySimulator(identityPolicies: facebook.policies.identityPolicies)
        var values: [String: ContextValue] = ["graph.facebook.com:id": ContextValue(found.callerId)]
        for (key, value) in found.requestKeys { values[key] = ContextValue(value) }
        let context = RequestContext(principal: PolicyProver.defaultPrincipal, values: values)
        #expect(simulator.decide(ActionName(found.action), found.resource, as: context) == .allow)
        #expect(Self.answer(answers, "google", "facebook")?.name == "counterexample")
    }

    @Test func theLocalStacksProvidersNeverShareFolders() throws {
        // The local stack's layout: one bucket, a folder per provider, a folder per user inside it.
        let roles = try [
            ("facebook", "graph.facebook.com:id", "[0-9]"), ("google", "accounts.google.com:sub", "[0-9]"),
            ("amazon", "www.amazon.com:user_id", "[a-zA-Z0-9.]"),
            ("cognito", "cognito-identity.amazonaws.com:sub", "[a-z0-9:-]"), ("oidc", "wif.localhost:sub", "[^/]"),
        ].map { name, key, alphabet in
            try Self.role("local/\(name).json", name: name, template: "\(name)/{id}/", idKey: key, alphabet: alphabet)
        }
        let answers = try F.prover().proveIsolation(across: roles)
        #expect(answers.count == 25)
        for answer in answers {
            #expect(answer.result.name == "proved", "\(answer.caller) against \(answer.owner): \(answer.result)")
        }
    }

    @Test func aProviderWhoseIdsCannotSpellAnotherFolderNameIsKeptOutOfIt() throws {
        // Facebook ids are digits, so `${id}/*` never starts with the letters of `google/`, and Google's
        // `google/${id}/*` never starts with a digit.
        let facebook = try Self.role(
            "facebook/personal-store.json", name: "facebook", template: "{id}/", idKey: "graph.facebook.com:id", alphabet: "[0-9]")
        let google = try Self.role(
            "local/google.json", name: "google", template: "google/{id}/", idKey: "accounts.google.com:sub", alphabet: "[0-9]")
        let answers = try F.prover().proveIsolation(across: [facebook, google])
        for answer in answers {
            #expect(answer.result.name == "proved", "\(answer.caller) against \(answer.owner): \(answer.result)")
        }
        // Ids of any character can spell `google`: Facebook's user `google` owns Google's folders.
        var anything = facebook
        anything.alphabet = .any
        let refuted = try F.prover().proveIsolation(across: [anything, google])
        guard case .counterexample(let found) = Self.answer(refuted, "facebook", "google") else {
            Issue.record("expected a counterexample, got \(refuted)")
            return
        }
        #expect(found.callerId.hasPrefix("google"), "\(found.summary)")
    }

    @Test func rolesOfOneIdentityPoolShareTheirUsers() throws {
        // Guest and signed-in roles name users by the same identity id: the same id is the same user, and
        // a guest's access to their own private folder is no leak; a guest role that reads every private
        // folder is.
        let key = "cognito-identity.amazonaws.com:sub"
        func role(_ name: String, _ resource: String) throws -> IsolationRole {
            let policy = try F.policy(#"{"Effect": "Allow", "Action": ["s3:GetObject", "s3:PutObject"], "Resource": "\#(resource)"}"#, name: name)
            return IsolationRole(
                name: name, policies: PolicyEvaluator(identityPolicies: [policy]), template: try PartitionTemplate("private/{id}/"),
                idKey: key, alphabet: try IdentifierAlphabet("[a-z0-9:-]"))
        }
        let signedIn = try role("authenticated", "arn:aws:s3:::wif-personal/private/${\(key)}/*")
        let guest = try role("guest", "arn:aws:s3:::wif-personal/private/${\(key)}/*")
        let together = try F.prover().proveIsolation(across: [signedIn, guest])
        #expect(together.allSatisfy { $0.result.name == "proved" }, "\(together)")

        let nosy = try role("guest", "arn:aws:s3:::wif-personal/private/*")
        let answers = try F.prover().proveIsolation(across: [signedIn, nosy])
        #expect(Self.answer(answers, "authenticated", "guest")?.name == "proved")
        guard case .counterexample(let found) = Self.answer(answers, "guest", "authenticated") else {
            Issue.record("expected a counterexample, got \(answers)")
            return
        }
        // The same key: the two users are two ids.
        #expect(found.callerId != found.ownerId)
        #expect(found.resource.hasPrefix("arn:aws:s3:::wif-personal/private/\(found.ownerId)/"))
    }
}
