import Testing

@testable import PolicyEngine

/// How policy types combine, per "Policy evaluation logic", "Policy evaluation for requests within a single
/// account" (the flow chart for an IAM role), "Session policies", "Permissions boundaries for IAM entities"
/// and "Cross-account policy evaluation logic" in the IAM User Guide.
@Suite("Policy evaluation logic")
struct PolicyEvaluatorTests {
    static let bucket = "arn:aws:s3:::photos"

    static func identity(_ statements: String, name: String? = nil) throws -> Policy {
        try TestSupport.policy(#"{"Version": "2012-10-17", "Statement": ["# + statements + "]}", kind: .identity, name: name)
    }

    static func resource(_ statements: String) throws -> Policy {
        try TestSupport.policy(#"{"Version": "2012-10-17", "Statement": ["# + statements + "]}", kind: .resource, name: "bucket-policy")
    }

    static func allow(_ action: String, _ resource: String, sid: String? = nil) -> String {
        let sidText = sid.map { #""Sid": ""# + $0 + #"", "# } ?? ""
        return "{" + sidText + #""Effect": "Allow", "Action": ""# + action + #"", "Resource": ""# + resource + #""}"#
    }

    static func deny(_ action: String, _ resource: String, sid: String? = nil) -> String {
        let sidText = sid.map { #""Sid": ""# + $0 + #"", "# } ?? ""
        return "{" + sidText + #""Effect": "Deny", "Action": ""# + action + #"", "Resource": ""# + resource + #""}"#
    }

    static func grant(_ principal: String, _ action: String, effect: String = "Allow") -> String {
        #"{"Effect": ""# + effect + #"", "Principal": {"AWS": ""# + principal + #""}, "Action": ""# + action
            + #"", "Resource": "arn:aws:s3:::photos/*"}"#
    }

    let alice: WebIdentitySession
    let context: RequestContext

    init() throws {
        self.alice = try TestSupport.cognitoSession("us-east-1:alice", sessionName: "alice")
        self.context = self.alice.context(at: TestSupport.time)
    }

    private func request(_ action: String, _ key: String = "alice/cat.jpg", resourceAccount: String? = nil) -> AuthorizationRequest {
        AuthorizationRequest(action: action, resource: "\(Self.bucket)/\(key)", context: self.context, resourceAccount: resourceAccount)
    }

    // MARK: Identity policies

    @Test func noPoliciesMeansImplicitDeny() {
        let decision = PolicyEvaluator().evaluate(self.request("s3:GetObject"))
        #expect(decision == .implicitDeny)
        #expect(decision.statements.isEmpty)
    }

    @Test func identityPoliciesAreAUnionAndReportTheAllowingStatements() throws {
        let reads = try Self.identity(Self.allow("s3:GetObject", "\(Self.bucket)/*", sid: "Read"), name: "reads")
        let writes = try Self.identity(Self.allow("s3:PutObject", "\(Self.bucket)/*", sid: "Write"), name: "writes")
        let evaluator = PolicyEvaluator(identityPolicies: [reads, writes])
        let get = evaluator.evaluate(self.request("s3:GetObject"))
        #expect(get == .allow)
        #expect(get.statements == [StatementReference(policyName: "reads", policyKind: .identity, index: 0, sid: "Read")])
        #expect(get.description == "allow by identity policy 'reads' Statement[0] (Sid Read)")
        #expect(evaluator.evaluate(self.request("s3:PutObject")).statements.map(\.policyName) == ["writes"])
        #expect(evaluator.evaluate(self.request("s3:DeleteObject")) == .implicitDeny)
    }

    @Test func explicitDenyAnywhereWinsAndListsEveryDeny() throws {
        let allow = try Self.identity(Self.allow("s3:*", "*"), name: "admin")
        let deny = try Self.identity(
            Self.deny("s3:DeleteObject", "\(Self.bucket)/*", sid: "NoDelete") + "," + Self.deny("s3:Delete*", "*", sid: "NoDeleteAnywhere"),
            name: "guardrails")
        let decision = PolicyEvaluator(identityPolicies: [allow, deny]).evaluate(self.request("s3:DeleteObject"))
        #expect(decision == .explicitDeny)
        #expect(decision.statements.map(\.sid) == ["NoDelete", "NoDeleteAnywhere"])
    }

    @Test func unnamedPoliciesAreNamedByIdOrPosition() throws {
        let withId = try TestSupport.policy(#"{"Version": "2012-10-17", "Id": "ById", "Statement": {"Effect": "Allow", "Action": "s3:GetObject", "Resource": "*"}}"#)
        let anonymous = try TestSupport.policy(#"{"Version": "2012-10-17", "Statement": {"Effect": "Allow", "Action": "s3:PutObject", "Resource": "*"}}"#)
        let evaluator = PolicyEvaluator(identityPolicies: [withId, anonymous])
        #expect(evaluator.evaluate(self.request("s3:GetObject")).statements.first?.policyName == "ById")
        #expect(evaluator.evaluate(self.request("s3:PutObject")).statements.first?.policyName == "identity[1]")
    }

    // MARK: Permissions boundaries

    @Test func boundaryIntersectsIdentityPermissions() throws {
        let identity = try Self.identity(Self.allow("s3:*", "\(Self.bucket)/*"))
        let boundary = try TestSupport.policy(
            #"{"Version": "2012-10-17", "Statement": {"Sid": "Ceiling", "Effect": "Allow", "Action": "s3:GetObject", "Resource": "*"}}"#,
            kind: .permissionsBoundary, name: "ceiling")
        let evaluator = PolicyEvaluator(identityPolicies: [identity], permissionsBoundary: boundary)
        let get = evaluator.evaluate(self.request("s3:GetObject"))
        #expect(get == .allow)
        #expect(get.statements.map(\.policyKind) == [.identity, .permissionsBoundary])
        #expect(evaluator.evaluate(self.request("s3:PutObject")) == .implicitDeny)
    }

    @Test func boundaryAloneGrantsNothing() throws {
        let boundary = try TestSupport.policy(
            #"{"Version": "2012-10-17", "Statement": {"Effect": "Allow", "Action": "*", "Resource": "*"}}"#, kind: .permissionsBoundary)
        #expect(PolicyEvaluator(permissionsBoundary: boundary).evaluate(self.request("s3:GetObject")) == .implicitDeny)
    }

    @Test func explicitDenyInTheBoundaryWins() throws {
        let identity = try Self.identity(Self.allow("s3:*", "*"))
        let boundary = try TestSupport.policy(
            #"{"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"},"#
                + #"{"Sid": "NoDeletes", "Effect": "Deny", "Action": "s3:DeleteObject", "Resource": "*"}]}"#,
            kind: .permissionsBoundary)
        let decision = PolicyEvaluator(identityPolicies: [identity], permissionsBoundary: boundary)
            .evaluate(self.request("s3:DeleteObject"))
        #expect(decision == .explicitDeny)
        #expect(decision.statements.map(\.policyKind) == [.permissionsBoundary])
    }

    // MARK: Session policies

    @Test func sessionPolicyIntersectsTheRolePermissions() throws {
        let role = try Self.identity(Self.allow("s3:*", "\(Self.bucket)/*"))
        let session = try TestSupport.policy(
            #"{"Version": "2012-10-17", "Statement": {"Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::photos/${aws:userid}/*"}}"#,
            kind: .session)
        let evaluator = PolicyEvaluator(identityPolicies: [role], sessionPolicies: [session])
        #expect(evaluator.evaluate(self.request("s3:GetObject", "\(self.alice.userId)/x")) == .allow)
        #expect(evaluator.evaluate(self.request("s3:GetObject", "bob/x")) == .implicitDeny)
        #expect(evaluator.evaluate(self.request("s3:PutObject", "\(self.alice.userId)/x")) == .implicitDeny)
    }

    @Test func sessionPolicyCannotGrantMoreThanTheRole() throws {
        let role = try Self.identity(Self.allow("s3:GetObject", "\(Self.bucket)/*"))
        let session = try TestSupport.policy(
            #"{"Version": "2012-10-17", "Statement": {"Effect": "Allow", "Action": "*", "Resource": "*"}}"#, kind: .session)
        #expect(PolicyEvaluator(identityPolicies: [role], sessionPolicies: [session]).evaluate(self.request("s3:PutObject")) == .implicitDeny)
    }

    @Test func severalSessionPoliciesAreAUnion() throws {
        let role = try Self.identity(Self.allow("s3:*", "*"))
        let get = try TestSupport.policy(#"{"Version": "2012-10-17", "Statement": {"Effect": "Allow", "Action": "s3:GetObject", "Resource": "*"}}"#, kind: .session)
        let put = try TestSupport.policy(#"{"Version": "2012-10-17", "Statement": {"Effect": "Allow", "Action": "s3:PutObject", "Resource": "*"}}"#, kind: .session)
        let evaluator = PolicyEvaluator(identityPolicies: [role], sessionPolicies: [get, put])
        #expect(evaluator.evaluate(self.request("s3:GetObject")) == .allow)
        #expect(evaluator.evaluate(self.request("s3:PutObject")) == .allow)
        #expect(evaluator.evaluate(self.request("s3:DeleteObject")) == .implicitDeny)
    }

    // MARK: Resource policies

    @Test func resourcePolicyNamingTheSessionArnGrantsDespiteSessionPolicyAndBoundary() throws {
        // "Session policies": a resource policy that names the session ARN adds permissions after the session
        // policy is applied; "Permissions boundaries": such grants are not limited by the boundary.
        let bucketPolicy = try Self.resource(Self.grant(self.alice.sessionArn, "s3:PutObject"))
        let session = try TestSupport.policy(
            #"{"Version": "2012-10-17", "Statement": {"Effect": "Allow", "Action": "s3:GetObject", "Resource": "*"}}"#, kind: .session)
        let boundary = try TestSupport.policy(
            #"{"Version": "2012-10-17", "Statement": {"Effect": "Allow", "Action": "s3:GetObject", "Resource": "*"}}"#,
            kind: .permissionsBoundary)
        let evaluator = PolicyEvaluator(resourcePolicy: bucketPolicy, sessionPolicies: [session], permissionsBoundary: boundary)
        let decision = evaluator.evaluate(self.request("s3:PutObject"))
        #expect(decision == .allow)
        #expect(decision.statements == [StatementReference(policyName: "bucket-policy", policyKind: .resource, index: 0)])
        #expect(evaluator.explain(self.request("s3:PutObject")).summary.contains("names the caller directly"))
    }

    @Test func resourcePolicyNamingTheRoleArnIsLimitedBySessionPolicy() throws {
        let bucketPolicy = try Self.resource(Self.grant(TestSupport.roleArn, "s3:PutObject"))
        let session = try TestSupport.policy(
            #"{"Version": "2012-10-17", "Statement": {"Effect": "Allow", "Action": "s3:GetObject", "Resource": "*"}}"#, kind: .session)
        // Without a session policy the role grant suffices, even with no identity policy.
        #expect(PolicyEvaluator(resourcePolicy: bucketPolicy).evaluate(self.request("s3:PutObject")) == .allow)
        let limited = PolicyEvaluator(resourcePolicy: bucketPolicy, sessionPolicies: [session])
        #expect(limited.evaluate(self.request("s3:PutObject")) == .implicitDeny)
        #expect(limited.explain(self.request("s3:PutObject")).summary
            == "Implicitly denied: no session policy allows s3:PutObject on arn:aws:s3:::photos/alice/cat.jpg, so the role's grants do not count for this session.")
    }

    @Test func resourcePolicyNamingTheRoleArnIsLimitedByTheBoundary() throws {
        let bucketPolicy = try Self.resource(Self.grant(TestSupport.roleArn, "s3:PutObject"))
        let boundary = try TestSupport.policy(
            #"{"Version": "2012-10-17", "Statement": {"Effect": "Allow", "Action": "s3:GetObject", "Resource": "*"}}"#,
            kind: .permissionsBoundary)
        #expect(PolicyEvaluator(resourcePolicy: bucketPolicy, permissionsBoundary: boundary).evaluate(self.request("s3:PutObject")) == .implicitDeny)
    }

    @Test func resourcePolicyNamingTheAccountOnlyDelegatesToIdentityPolicies() throws {
        let bucketPolicy = try Self.resource(Self.grant("arn:aws:iam::111122223333:root", "s3:GetObject"))
        #expect(PolicyEvaluator(resourcePolicy: bucketPolicy).evaluate(self.request("s3:GetObject")) == .implicitDeny)
        let identity = try Self.identity(Self.allow("s3:GetObject", "*"))
        #expect(PolicyEvaluator(identityPolicies: [identity], resourcePolicy: bucketPolicy).evaluate(self.request("s3:GetObject")) == .allow)
    }

    @Test func resourcePolicyNamingSomeoneElseDoesNotApply() throws {
        let bucketPolicy = try Self.resource(
            Self.grant("arn:aws:sts::111122223333:assumed-role/app-users/bob", "s3:GetObject") + ","
                + Self.grant("arn:aws:sts::111122223333:assumed-role/app-users/bob", "s3:GetObject", effect: "Deny"))
        let identity = try Self.identity(Self.allow("s3:GetObject", "*"))
        #expect(PolicyEvaluator(resourcePolicy: bucketPolicy).evaluate(self.request("s3:GetObject")) == .implicitDeny)
        #expect(PolicyEvaluator(identityPolicies: [identity], resourcePolicy: bucketPolicy).evaluate(self.request("s3:GetObject")) == .allow)
    }

    @Test func resourcePolicyDenyForTheRoleCoversItsSessions() throws {
        let bucketPolicy = try Self.resource(Self.grant(TestSupport.roleArn, "s3:DeleteObject", effect: "Deny"))
        let identity = try Self.identity(Self.allow("s3:*", "*"))
        #expect(PolicyEvaluator(identityPolicies: [identity], resourcePolicy: bucketPolicy).evaluate(self.request("s3:DeleteObject")) == .explicitDeny)
    }

    @Test func resourceStatementsWithoutAPrincipalNeverApply() throws {
        // Such a statement is invalid in a resource policy; parsed without a kind, it must still not grant.
        let policy = try TestSupport.policy(
            #"{"Version": "2012-10-17", "Statement": {"Effect": "Allow", "Action": "s3:GetObject", "Resource": "*"}}"#, kind: nil)
        #expect(PolicyEvaluator(resourcePolicy: policy).evaluate(self.request("s3:GetObject")) == .implicitDeny)
    }

    // MARK: Cross-account

    @Test func crossAccountNeedsBothSides() throws {
        let identity = try Self.identity(Self.allow("s3:GetObject", "*"))
        let bucketPolicy = try Self.resource(Self.grant(TestSupport.roleArn, "s3:GetObject"))
        let request = self.request("s3:GetObject", resourceAccount: TestSupport.otherAccount)
        #expect(PolicyEvaluator(identityPolicies: [identity], resourcePolicy: bucketPolicy).evaluate(request) == .allow)
        #expect(PolicyEvaluator(identityPolicies: [identity]).evaluate(request) == .implicitDeny)
        #expect(PolicyEvaluator(resourcePolicy: bucketPolicy).evaluate(request) == .implicitDeny)
        let accountGrant = try Self.resource(Self.grant("111122223333", "s3:GetObject"))
        #expect(PolicyEvaluator(identityPolicies: [identity], resourcePolicy: accountGrant).evaluate(request) == .allow)
        let sessionGrant = try Self.resource(Self.grant(self.alice.sessionArn, "s3:GetObject"))
        #expect(PolicyEvaluator(resourcePolicy: sessionGrant).evaluate(request) == .implicitDeny)
        let explanation = PolicyEvaluator(identityPolicies: [identity]).explain(request)
        #expect(explanation.summary.hasPrefix("Implicitly denied: the resource belongs to account 444455556666"))
    }

    // MARK: Anonymous and service callers

    @Test func anonymousCallersNeedAPublicGrant() throws {
        let publicRead = try Self.resource(#"{"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::photos/public/*"}"#)
        let identity = try Self.identity(Self.allow("s3:*", "*"))
        let evaluator = PolicyEvaluator(identityPolicies: [identity], resourcePolicy: publicRead)
        let anonymous = RequestContext(principal: nil, time: TestSupport.time)
        #expect(evaluator.evaluate(AuthorizationRequest(action: "s3:GetObject", resource: "arn:aws:s3:::photos/public/a", context: anonymous)) == .allow)
        #expect(evaluator.evaluate(AuthorizationRequest(action: "s3:GetObject", resource: "arn:aws:s3:::photos/private/a", context: anonymous)) == .implicitDeny)
        #expect(anonymous["aws:PrincipalType"] == "Anonymous")
    }

    @Test func servicePrincipalsAreMatchedByName() throws {
        let policy = try Self.resource(
            #"{"Effect": "Allow", "Principal": {"Service": "logging.s3.amazonaws.com"}, "Action": "s3:PutObject", "Resource": "arn:aws:s3:::photos/logs/*"}"#)
        let evaluator = PolicyEvaluator(resourcePolicy: policy)
        let service = RequestContext(principal: .service("logging.s3.amazonaws.com"))
        let other = RequestContext(principal: .service("cloudtrail.amazonaws.com"))
        #expect(evaluator.evaluate(AuthorizationRequest(action: "s3:PutObject", resource: "arn:aws:s3:::photos/logs/1", context: service)) == .allow)
        #expect(evaluator.evaluate(AuthorizationRequest(action: "s3:PutObject", resource: "arn:aws:s3:::photos/logs/1", context: other)) == .implicitDeny)
    }

    // MARK: Users and federated users

    @Test func iamUserNamedByAResourcePolicyIsNotLimitedByItsBoundary() throws {
        let user = try RequestPrincipal.iamUser(arn: "arn:aws:iam::111122223333:user/bob")
        let bucketPolicy = try Self.resource(Self.grant(user.arn, "s3:GetObject"))
        let boundary = try TestSupport.policy(
            #"{"Version": "2012-10-17", "Statement": {"Effect": "Allow", "Action": "sqs:*", "Resource": "*"}}"#, kind: .permissionsBoundary)
        let request = AuthorizationRequest(action: "s3:GetObject", resource: "arn:aws:s3:::photos/a", context: RequestContext(principal: user))
        #expect(PolicyEvaluator(resourcePolicy: bucketPolicy, permissionsBoundary: boundary).evaluate(request) == .allow)
    }

    @Test func federatedUserSessionsMatchTheirIamUserWithLimits() throws {
        let federated = try RequestPrincipal.federatedUser(arn: "arn:aws:sts::111122223333:federated-user/bob")
        #expect(federated.userArn == "arn:aws:iam::111122223333:user/bob")
        let viaUser = try Self.resource(Self.grant("arn:aws:iam::111122223333:user/bob", "s3:GetObject"))
        let session = try TestSupport.policy(
            #"{"Version": "2012-10-17", "Statement": {"Effect": "Allow", "Action": "s3:ListBucket", "Resource": "*"}}"#, kind: .session)
        let request = AuthorizationRequest(action: "s3:GetObject", resource: "arn:aws:s3:::photos/a", context: RequestContext(principal: federated))
        #expect(PolicyEvaluator(resourcePolicy: viaUser).evaluate(request) == .allow)
        #expect(PolicyEvaluator(resourcePolicy: viaUser, sessionPolicies: [session]).evaluate(request) == .implicitDeny)
        let direct = try Self.resource(Self.grant(federated.arn, "s3:GetObject"))
        #expect(PolicyEvaluator(resourcePolicy: direct, sessionPolicies: [session]).evaluate(request) == .allow)
    }

    // MARK: Requests

    @Test func evaluateWithExplainReturnsBoth() throws {
        let evaluator = PolicyEvaluator(identityPolicies: [try Self.identity(Self.allow("s3:GetObject", "*"))])
        let quiet = evaluator.evaluate(self.request("s3:GetObject"), explain: false)
        #expect(quiet.decision == .allow)
        #expect(quiet.explanation == nil)
        let loud = evaluator.evaluate(self.request("s3:GetObject"), explain: true)
        #expect(loud.decision == .allow)
        #expect(loud.explanation?.outcome == .allow)
    }

    @Test func requestsCanBeChangedAfterCreation() throws {
        let evaluator = PolicyEvaluator(identityPolicies: [try Self.identity(Self.allow("s3:GetObject", "\(Self.bucket)/alice/*"))])
        var request = self.request("s3:PutObject", "bob/x")
        #expect(evaluator.evaluate(request) == .implicitDeny)
        request.action = "S3:GetObject"
        request.resource = "\(Self.bucket)/alice/x"
        #expect(evaluator.evaluate(request) == .allow)
    }

    @Test func s3RequestBuildersSetTheS3Keys() {
        let list = AuthorizationRequest.s3ListBucket(bucket: "photos", prefix: "alice/", delimiter: "/", maxKeys: 50, context: self.context)
        #expect(list.action == "s3:ListBucket")
        #expect(list.resource == "arn:aws:s3:::photos")
        #expect(list.context["s3:prefix"] == "alice/")
        #expect(list.context["s3:delimiter"] == "/")
        #expect(list.context["s3:max-keys"] == "50")
        #expect(AuthorizationRequest.s3ListBucket(bucket: "photos", context: self.context).context["s3:prefix"] == "")
        let object = AuthorizationRequest.s3Object("GetObject", bucket: "photos", key: "a/b.jpg", context: self.context, partition: "aws-cn")
        #expect(object.resource == "arn:aws-cn:s3:::photos/a/b.jpg")
    }
}
