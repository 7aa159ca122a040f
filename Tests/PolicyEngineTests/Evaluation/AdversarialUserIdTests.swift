import Testing
import WIFTestSupport

@testable import PolicyEngine

/// A user id comes from an identity provider and may contain anything. Substituted into a policy it is
/// always literal text, so no user id can reach another user's folder.
@Suite("Adversarial user ids")
struct AdversarialUserIdTests {
    static let folderPolicy = """
        {"Version": "2012-10-17", "Statement": [
          {"Sid": "List", "Effect": "Allow", "Action": "s3:ListBucket", "Resource": "arn:aws:s3:::shared",
           "Condition": {"StringLike": {"s3:prefix": ["users/${cognito-identity.amazonaws.com:sub}/*"]}}},
          {"Sid": "Objects", "Effect": "Allow", "Action": ["s3:GetObject", "s3:PutObject", "s3:DeleteObject"],
           "Resource": "arn:aws:s3:::shared/users/${cognito-identity.amazonaws.com:sub}/*"}
        ]}
        """

    static let adversarialIds = [
        "*", "?", "/", "..", "../bob", "${", "${*}", "}", "", " ", "*/*", "alice*", "bo?", "a/b", "bob/..",
        "%2e%2e", "\\", ":", "arn:aws:s3:::other/*", "${cognito-identity.amazonaws.com:sub}", "ünïcødé-ユーザー",
        "e\u{301}", "\u{0}", "line\nbreak", String(repeating: "x", count: 10_000), String(repeating: "*", count: 300),
    ]

    let sim: PolicySimulator

    init() throws {
        self.sim = try PolicySimulator(identityJSON: [Self.folderPolicy])
    }

    private func session(_ id: String) throws -> WebIdentitySession {
        try WebIdentitySession(
            .cognito(identityId: id, identityPoolId: "us-east-1:pool"), role: TestSupport.roleArn, sessionName: "adversary")
    }

    @Test(arguments: Self.adversarialIds)
    func neverReachesAnotherUsersFolder(id: String) throws {
        let user = try self.session(id)
        for victim in ["bob", "alice", "*", "x", "", "users"] where victim != id {
            for key in ["users/\(victim)/secret.txt", "users/\(victim)/", "users/\(victim)", "\(victim)/x", "users/x"] {
                let resource = "arn:aws:s3:::shared/\(key)"
                let ownFolder = "users/\(id)/"
                let expected: Decision = key.hasPrefix(ownFolder) ? .allow : .implicitDeny
                #expect(self.sim.decide(.s3("GetObject"), resource, as: user) == expected, "id \(id.debugDescription) key \(key.debugDescription)")
            }
            #expect(self.sim.decideListBucket("shared", prefix: "users/\(victim)/", as: user) == .implicitDeny)
        }
        #expect(self.sim.decide(.s3("GetObject"), "arn:aws:s3:::shared/users/\(id)/mine.txt", as: user) == .allow)
        #expect(self.sim.decideListBucket("shared", prefix: "users/\(id)/", as: user) == .allow)
        #expect(self.sim.decide(.s3("GetObject"), "arn:aws:s3:::shared/other-bucket-key", as: user) == .implicitDeny)
    }

    /// Randomized: for ids and keys drawn from an alphabet full of wildcard and path characters, a user may
    /// read a key exactly when it lies inside `users/<own id>/`.
    @Test func accessIsExactlyTheOwnFolder() throws {
        let alphabet: [Character] = ["a", "b", "*", "?", "/", ".", "$", "{", "}", ":", "é", " "]
        var generator = SplitMix64(seed: 0x5EED)
        func word(_ maximum: Int) -> String {
            String((0..<generator.below(maximum + 1)).map { _ in alphabet[generator.below(alphabet.count)] })
        }
        for _ in 0..<120 {
            let id = word(4)
            let user = try self.session(id)
            for _ in 0..<10 {
                let key = generator.below(3) == 0 ? "users/\(id)/\(word(4))" : "users/\(word(4))/\(word(4))"
                let expected: Decision = key.hasPrefix("users/\(id)/") ? .allow : .implicitDeny
                #expect(self.sim.decide(.s3("PutObject"), "arn:aws:s3:::shared/\(key)", as: user) == expected,
                        "id \(id.debugDescription) key \(key.debugDescription)")
                let prefix = generator.below(3) == 0 ? "users/\(id)/\(word(3))" : "users/\(word(4))/"
                let listExpected: Decision = prefix.hasPrefix("users/\(id)/") ? .allow : .implicitDeny
                #expect(self.sim.decideListBucket("shared", prefix: prefix, as: user) == listExpected,
                        "id \(id.debugDescription) prefix \(prefix.debugDescription)")
            }
        }
    }

    @Test func aMissingIdDeniesEverything() throws {
        let noSub = RequestContext(principal: try RequestPrincipal.assumedRole(roleArn: TestSupport.roleArn, sessionName: "x1"))
        for key in ["users//x", "users/${cognito-identity.amazonaws.com:sub}/x", "users/x"] {
            #expect(self.sim.decide(.s3("GetObject"), "arn:aws:s3:::shared/\(key)", as: noSub) == .implicitDeny)
        }
    }

    @Test func caseOfTheIdMatters() throws {
        let alice = try self.session("Alice")
        #expect(self.sim.decide(.s3("GetObject"), "arn:aws:s3:::shared/users/alice/x", as: alice) == .implicitDeny)
        #expect(self.sim.decide(.s3("GetObject"), "arn:aws:s3:::shared/users/Alice/x", as: alice) == .allow)
    }
}
