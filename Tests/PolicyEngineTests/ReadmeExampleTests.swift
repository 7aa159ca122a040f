import PolicyEngine
import Testing

/// The README's PolicyEngine example, compiled and run so it cannot drift from the API.
@Suite struct PolicyReadmeExampleTests {
    static let facebookPolicyJSON = """
        {
          "Version": "2012-10-17",
          "Statement": [{
            "Effect": "Allow",
            "Action": ["s3:GetObject", "s3:PutObject", "s3:DeleteObject"],
            "Resource": "arn:aws:s3:::wif-personal/${graph.facebook.com:id}/*"
          }]
        }
        """

    @Test func aliceReachesOnlyHerFolder() throws {
        let simulator = try PolicySimulator(identityJSON: [Self.facebookPolicyJSON])
        let alice = try WebIdentitySession(
            .facebook(userId: "1001", appId: "my-app"),
            role: "arn:aws:iam::123456789012:role/personal-store-facebook",
            sessionName: "alice"
        )
        #expect(simulator.decide(.s3("GetObject"), "arn:aws:s3:::wif-personal/1001/notes.txt", as: alice) == .allow)
        #expect(simulator.decide(.s3("GetObject"), "arn:aws:s3:::wif-personal/1002/notes.txt", as: alice) == .implicitDeny)
        let explanation = simulator.explain(.s3("GetObject"), "arn:aws:s3:::wif-personal/1002/notes.txt", as: alice).text
        #expect(!explanation.isEmpty)
    }
}
