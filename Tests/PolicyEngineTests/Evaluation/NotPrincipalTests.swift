import Testing

@testable import PolicyEngine

/// `NotPrincipal` with `Deny` and with `Allow`, on the cases of "AWS JSON policy elements: NotPrincipal":
/// an IAM user listed with its account, a role session listed with its role and account, and an account.
/// A `Deny` exempts a caller only when every identity of the caller is listed (AWS may check the account,
/// then the role, then the session); an `Allow` leaves out a caller listed by any one of its identities.
@Suite("NotPrincipal")
struct NotPrincipalTests {
    /// The account of the documentation's principals; the bucket belongs to `TestSupport.account`.
    static let account = "444455556666"
    static let bobArn = "arn:aws:iam::444455556666:user/Bob"
    static let roleArn = "arn:aws:iam::444455556666:role/cross-account-read-only-role"
    static let sessionArn = "arn:aws:sts::444455556666:assumed-role/cross-account-read-only-role/cross-account-audit-app"
    static let accountRoot = "arn:aws:iam::444455556666:root"

    enum Caller: String, CaseIterable, Sendable, CustomStringConvertible {
        case bob, alice, root, auditApp, otherSession, otherRoleSession, stranger, anonymous

        var description: String { self.rawValue }

        func principal() throws -> RequestPrincipal? {
            switch self {
            case .bob: return try .iamUser(arn: NotPrincipalTests.bobArn)
            case .alice: return try .iamUser(arn: "arn:aws:iam::444455556666:user/Alice")
            case .root: return try .root(accountId: NotPrincipalTests.account)
            case .auditApp: return try .assumedRole(roleArn: NotPrincipalTests.roleArn, sessionName: "cross-account-audit-app")
            case .otherSession: return try .assumedRole(roleArn: NotPrincipalTests.roleArn, sessionName: "someone-else")
            case .otherRoleSession:
                return try .assumedRole(roleArn: "arn:aws:iam::444455556666:role/other-role", sessionName: "cross-account-audit-app")
            case .stranger: return try .iamUser(arn: "arn:aws:iam::777788889999:user/Carol")
            case .anonymous: return nil
            }
        }
    }

    static let userListed = [bobArn, accountRoot]
    static let sessionListed = [sessionArn, roleArn, accountRoot]

    static func list(_ values: [String]) -> String {
        "[" + values.map { "\"\($0)\"" }.joined(separator: ", ") + "]"
    }

    /// Explains a request for `s3:GetObject` on a bucket of another account (111122223333), where the caller's
    /// identity policies allow `s3:*` and the bucket policy holds `statements`; checks that the explanation
    /// and the fast path agree.
    func explain(_ statements: String, _ caller: Caller, boundary: Bool = false) throws -> Explanation {
        let resource = try TestSupport.policy(#"{"Version": "2012-10-17", "Statement": ["# + statements + "]}", kind: .resource)
        let identity = try TestSupport.policy(#"{"Version": "2012-10-17", "Statement": {"Effect": "Allow", "Action": "s3:*", "Resource": "*"}}"#)
        let limit = try TestSupport.policy(
            #"{"Version": "2012-10-17", "Statement": {"Effect": "Allow", "Action": "*", "Resource": "*"}}"#, kind: .permissionsBoundary)
        let evaluator = PolicyEvaluator(
            identityPolicies: [identity], resourcePolicy: resource, permissionsBoundary: boundary ? limit : nil)
        let request = AuthorizationRequest(
            action: "s3:GetObject", resource: "arn:aws:s3:::bucket-accountaudit/report.csv",
            context: RequestContext(principal: try caller.principal(), time: TestSupport.time), resourceAccount: TestSupport.account)
        let explanation = evaluator.explain(request)
        #expect(explanation.outcome == evaluator.evaluate(request).outcome)
        return explanation
    }

    static func denyExcept(_ listed: [String]) -> String {
        #"{"Effect": "Deny", "NotPrincipal": {"AWS": "# + self.list(listed)
            + #"}, "Action": "s3:*", "Resource": ["arn:aws:s3:::bucket-accountaudit", "arn:aws:s3:::bucket-accountaudit/*"]}"#
    }

    /// The grant the documentation says a `Deny` + `NotPrincipal` needs beside it: the account may read.
    static let accountMayRead = #"{"Effect": "Allow", "Principal": {"AWS": "444455556666"}, "Action": "s3:GetObject", "Resource": "arn:aws:s3:::bucket-accountaudit/*"}"#

    static func allowExcept(_ listed: [String]) -> String {
        #"{"Effect": "Allow", "NotPrincipal": {"AWS": "# + self.list(listed)
            + #"}, "Action": "s3:GetObject", "Resource": "arn:aws:s3:::bucket-accountaudit/*"}"#
    }

    // MARK: Deny

    @Test(arguments: [
        // The IAM user example: Bob and his account are listed.
        (userListed, Caller.bob, Decision.Outcome.allow),
        (userListed, .alice, .explicitDeny),
        (userListed, .root, .allow),
        (userListed, .stranger, .explicitDeny),
        (userListed, .anonymous, .explicitDeny),
        // Without the account, AWS may deny Bob's account first, and Bob with it.
        ([bobArn], .bob, .explicitDeny),
        // The role example: session, role and account are listed.
        (sessionListed, .auditApp, .allow),
        (sessionListed, .otherSession, .explicitDeny),
        (sessionListed, .otherRoleSession, .explicitDeny),
        (sessionListed, .bob, .explicitDeny),
        // Without the role, or without the account, the session is denied.
        ([sessionArn, accountRoot], .auditApp, .explicitDeny),
        ([sessionArn, roleArn], .auditApp, .explicitDeny),
        ([roleArn, accountRoot], .auditApp, .explicitDeny),
        // Listing only the account exempts the account itself, not its users and sessions.
        ([account], .root, .allow),
        ([account], .bob, .explicitDeny),
        ([account], .auditApp, .explicitDeny),
    ])
    func denyExemptsOnlyCallersWithEveryIdentityListed(listed: [String], caller: Caller, expected: Decision.Outcome) throws {
        let explanation = try self.explain(Self.denyExcept(listed) + ", " + Self.accountMayRead, caller)
        #expect(explanation.outcome == expected, "\(explanation.text)")
        let deny = explanation.policies[1].statements[0]
        #expect(deny.applies == (expected == .explicitDeny))
        #expect(deny.principal?.matched == (expected == .explicitDeny))
    }

    @Test func denyExplainsWhichIdentityIsMissing() throws {
        let bobOnly = try self.explain(Self.denyExcept([Self.bobArn]) + ", " + Self.accountMayRead, .bob)
        #expect(bobOnly.policies[1].statements[0].principal?.detail == """
            the caller '\(Self.bobArn)' is not exempt from this Deny: a NotPrincipal Deny exempts a caller only when \
            every identity of the caller is listed, and NotPrincipal does not list its account 444455556666
            """)

        let noRole = try self.explain(Self.denyExcept([Self.sessionArn, Self.accountRoot]), .auditApp)
        #expect(noRole.policies[1].statements[0].principal?.detail.hasSuffix("does not list its role '\(Self.roleArn)'") == true)

        let exempt = try self.explain(Self.denyExcept(Self.sessionListed) + ", " + Self.accountMayRead, .auditApp)
        #expect(exempt.policies[1].statements[0].principal == ElementExplanation(
            matched: false,
            detail: """
                the caller '\(Self.sessionArn)' is exempt from this Deny: NotPrincipal lists every identity of the caller \
                (account 444455556666, role '\(Self.roleArn)', session '\(Self.sessionArn)')
                """))
    }

    @Test func denyAlwaysAppliesToACallerWithABoundary() throws {
        let explanation = try self.explain(Self.denyExcept(Self.sessionListed) + ", " + Self.accountMayRead, .auditApp, boundary: true)
        #expect(explanation.outcome == .explicitDeny)
        #expect(explanation.policies[1].statements[0].principal?.detail.hasSuffix(
            "but a NotPrincipal Deny statement always applies to a caller with a permissions boundary") == true)
    }

    // MARK: Allow

    @Test(arguments: [
        // The same lists with Allow: everyone not listed, including anonymous callers, is granted.
        (userListed, Caller.bob, Decision.Outcome.implicitDeny),
        (userListed, .alice, .implicitDeny),
        (userListed, .root, .implicitDeny),
        (userListed, .stranger, .allow),
        (userListed, .anonymous, .allow),
        ([bobArn], .bob, .implicitDeny),
        ([bobArn], .alice, .allow),
        (sessionListed, .auditApp, .implicitDeny),
        (sessionListed, .otherSession, .implicitDeny),
        (sessionListed, .stranger, .allow),
        // Any one identity is enough to leave the caller out.
        ([sessionArn], .auditApp, .implicitDeny),
        ([sessionArn], .otherSession, .allow),
        ([roleArn], .auditApp, .implicitDeny),
        ([roleArn], .otherSession, .implicitDeny),
        ([roleArn], .otherRoleSession, .allow),
        ([account], .root, .implicitDeny),
        ([account], .bob, .implicitDeny),
        ([accountRoot], .auditApp, .implicitDeny),
        ([account], .stranger, .allow),
    ])
    func allowLeavesOutCallersListedByAnyIdentity(listed: [String], caller: Caller, expected: Decision.Outcome) throws {
        let explanation = try self.explain(Self.allowExcept(listed), caller)
        #expect(explanation.outcome == expected, "\(explanation.text)")
        let allow = explanation.policies[1].statements[0]
        #expect(allow.applies == (expected == .allow))
        #expect(allow.principal?.matched == (expected == .allow))
    }

    @Test func allowExplainsWhichIdentityLeftTheCallerOut() throws {
        let bob = try self.explain(Self.allowExcept(Self.userListed), .bob)
        let detail = try #require(bob.policies[1].statements[0].principal?.detail)
        #expect(detail == """
            the caller '\(Self.bobArn)' is left out of this Allow: NotPrincipal lists its account 444455556666, \
            user '\(Self.bobArn)', and an Allow with NotPrincipal does not cover a caller listed by any of its identities
            """)
        #expect(!detail.contains("must be listed"))

        let session = try self.explain(Self.allowExcept([Self.roleArn]), .otherSession)
        #expect(session.policies[1].statements[0].principal?.detail.contains("NotPrincipal lists its role '\(Self.roleArn)'") == true)

        let alice = try self.explain(Self.allowExcept([Self.bobArn]), .alice)
        #expect(alice.policies[1].statements[0].principal == ElementExplanation(
            matched: true,
            detail: """
                the caller 'arn:aws:iam::444455556666:user/Alice' is not listed in NotPrincipal by any of its identities \
                (account 444455556666, user 'arn:aws:iam::444455556666:user/Alice'), so the Allow covers it
                """))
    }

    /// The case from the issue: in the bucket owner's own account, with no identity policy, an Allow with
    /// NotPrincipal naming the caller granted the caller itself.
    @Test func allowWithNotPrincipalDoesNotGrantTheNamedUser() throws {
        let resource = try TestSupport.policy(
            """
            {"Version": "2012-10-17", "Statement": {"Effect": "Allow",
              "NotPrincipal": {"AWS": "arn:aws:iam::111122223333:user/test-user"}, "Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/*"}}
            """, kind: .resource)
        let evaluator = PolicyEvaluator(resourcePolicy: resource)
        func request(_ user: String) throws -> AuthorizationRequest {
            AuthorizationRequest(
                action: "s3:GetObject", resource: "arn:aws:s3:::b/k",
                context: RequestContext(principal: try .iamUser(arn: "arn:aws:iam::111122223333:user/\(user)"), time: TestSupport.time))
        }
        let named = evaluator.explain(try request("test-user"))
        #expect(named.outcome == .implicitDeny)
        #expect(evaluator.evaluate(try request("test-user")) == .implicitDeny)
        #expect(named.summary == "Implicitly denied: no statement allows s3:GetObject on arn:aws:s3:::b/k.")
        #expect(named.policies[0].statements[0].principal?.matched == false)
        #expect(!named.text.contains("every identity"))

        let other = evaluator.explain(try request("someone-else"))
        #expect(other.outcome == .allow)
        #expect(other.summary.hasPrefix("Allowed by resource policy"))
    }
}
