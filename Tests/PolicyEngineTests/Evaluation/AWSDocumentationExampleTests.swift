import Testing

@testable import PolicyEngine

/// Scenarios from the IAM User Guide, each named after the page it comes from. The policies follow the
/// documented structure (elements, keys and variables) with this project's own names.
@Suite("AWS documentation examples")
struct AWSDocumentationExampleTests {
    // MARK: "Identifying users with web identity federation" / "IAM policy variables"

    /// Per-user folders keyed by each provider's user id variable.
    @Test(arguments: [
        ("amazon", "${www.amazon.com:user_id}", WebIdentity.amazon(userId: "amzn1.account.ALICE", appId: "amzn1.application.1"), "amzn1.account.ALICE"),
        ("facebook", "${graph.facebook.com:id}", WebIdentity.facebook(userId: "1000123", appId: "app-1"), "1000123"),
        ("google", "${accounts.google.com:sub}", WebIdentity.google(subject: "1098765", audience: "client-1"), "1098765"),
        ("cognito", "${cognito-identity.amazonaws.com:sub}", WebIdentity.cognito(identityId: "us-east-1:a1b2", identityPoolId: "us-east-1:pool"), "us-east-1:a1b2"),
        ("oidc", "${auth.example.com:sub}", WebIdentity.oidc(issuer: "https://auth.example.com", subject: "user-42", audiences: ["app"]), "user-42"),
    ])
    func webIdentityFederationPerUserFolders(provider: String, variable: String, identity: WebIdentity, userId: String) throws {
        let sim = try PolicySimulator(identityJSON: [
            """
            {"Version": "2012-10-17", "Statement": {"Effect": "Allow",
              "Action": ["s3:PutObject", "s3:GetObject", "s3:DeleteObject"],
              "Resource": ["arn:aws:s3:::mybucket/\(provider)/mynumbersgame/\(variable)",
                           "arn:aws:s3:::mybucket/\(provider)/mynumbersgame/\(variable)/*"]}}
            """
        ])
        let user = try WebIdentitySession(identity, role: TestSupport.roleArn, sessionName: "player")
        let folder = "arn:aws:s3:::mybucket/\(provider)/mynumbersgame/\(userId)"
        #expect(sim.decide(.s3("PutObject"), folder, as: user) == .allow)
        #expect(sim.decide(.s3("GetObject"), folder + "/save-1.json", as: user) == .allow)
        #expect(sim.decide(.s3("DeleteObject"), folder + "/deep/save.json", as: user) == .allow)
        #expect(sim.decide(.s3("GetObject"), "arn:aws:s3:::mybucket/\(provider)/mynumbersgame/someone-else/save.json", as: user) == .implicitDeny)
        #expect(sim.decide(.s3("GetObject"), folder + "-suffix/save.json", as: user) == .implicitDeny)
        #expect(sim.decide(.s3("GetObject"), "arn:aws:s3:::mybucket/\(provider)/othergame/\(userId)/save.json", as: user) == .implicitDeny)
        #expect(sim.decide(.s3("ListBucket"), "arn:aws:s3:::mybucket", as: user) == .implicitDeny)
    }

    // MARK: "Amazon S3: Allows Amazon Cognito users to access objects in their bucket"

    @Test func cognitoUsersAccessObjectsInTheirBucket() throws {
        let sim = try PolicySimulator(identityJSON: [
            """
            {"Version": "2012-10-17", "Statement": [
              {"Sid": "ListYourObjects", "Effect": "Allow", "Action": "s3:ListBucket", "Resource": ["arn:aws:s3:::photo-app"],
               "Condition": {"StringLike": {"s3:prefix": ["cognito/photo-app/${cognito-identity.amazonaws.com:sub}/*"]}}},
              {"Sid": "ReadWriteDeleteYourObjects", "Effect": "Allow",
               "Action": ["s3:DeleteObject", "s3:GetObject", "s3:PutObject"],
               "Resource": ["arn:aws:s3:::photo-app/cognito/photo-app/${cognito-identity.amazonaws.com:sub}/*"]}
            ]}
            """
        ])
        let alice = try WebIdentitySession(
            .cognito(identityId: "us-east-1:0000-alice", identityPoolId: "us-east-1:pool"),
            role: TestSupport.roleArn, sessionName: "alice")
        let own = "cognito/photo-app/us-east-1:0000-alice/"
        #expect(sim.decideListBucket("photo-app", prefix: own, as: alice) == .allow)
        #expect(sim.decideListBucket("photo-app", prefix: own + "2024/", as: alice) == .allow)
        #expect(sim.decideListBucket("photo-app", prefix: "cognito/photo-app/us-east-1:0000-bob/", as: alice) == .implicitDeny)
        #expect(sim.decideListBucket("photo-app", prefix: "cognito/photo-app/", as: alice) == .implicitDeny)
        #expect(sim.decideListBucket("photo-app", prefix: nil, as: alice) == .implicitDeny)
        #expect(sim.decide(.s3("PutObject"), "arn:aws:s3:::photo-app/\(own)cat.jpg", as: alice) == .allow)
        #expect(sim.decide(.s3("GetObject"), "arn:aws:s3:::photo-app/cognito/photo-app/us-east-1:0000-bob/cat.jpg", as: alice) == .implicitDeny)
        #expect(sim.decide(.s3("PutObjectAcl"), "arn:aws:s3:::photo-app/\(own)cat.jpg", as: alice) == .implicitDeny)
    }

    // MARK: "Amazon S3: Allows federated users access to their S3 home directory"

    @Test func federatedUsersHomeDirectoryByUserId() throws {
        let sim = try PolicySimulator(identityJSON: [
            """
            {"Version": "2012-10-17", "Statement": [
              {"Effect": "Allow", "Action": ["s3:ListAllMyBuckets", "s3:GetBucketLocation"], "Resource": "*"},
              {"Effect": "Allow", "Action": "s3:ListBucket", "Resource": "arn:aws:s3:::homes",
               "Condition": {"StringLike": {"s3:prefix": ["", "home/", "home/${aws:userid}/*"]}}},
              {"Effect": "Allow", "Action": "s3:*",
               "Resource": ["arn:aws:s3:::homes/home/${aws:userid}", "arn:aws:s3:::homes/home/${aws:userid}/*"]}
            ]}
            """
        ])
        let john = try WebIdentitySession(
            .google(subject: "123", audience: "client"), role: TestSupport.roleArn, roleId: "AROAXXT2NJT7D3SIQN7Z6", sessionName: "John")
        #expect(john.userId == "AROAXXT2NJT7D3SIQN7Z6:John")
        #expect(sim.decideListBucket("homes", prefix: nil, as: john) == .allow)
        #expect(sim.decideListBucket("homes", prefix: "home/", as: john) == .allow)
        #expect(sim.decideListBucket("homes", prefix: "home/AROAXXT2NJT7D3SIQN7Z6:John/docs/", as: john) == .allow)
        #expect(sim.decideListBucket("homes", prefix: "home/AROAXXT2NJT7D3SIQN7Z6:Jane/", as: john) == .implicitDeny)
        #expect(sim.decide(.s3("PutObject"), "arn:aws:s3:::homes/home/AROAXXT2NJT7D3SIQN7Z6:John/a.txt", as: john) == .allow)
        #expect(sim.decide(.s3("GetObject"), "arn:aws:s3:::homes/home/AROAXXT2NJT7D3SIQN7Z6:Jane/a.txt", as: john) == .implicitDeny)
        #expect(sim.decide(.s3("ListAllMyBuckets"), "*", as: john) == .allow)
    }

    // MARK: "IAM JSON policy elements: NotAction"

    @Test func notActionAllowsEverythingButIAM() throws {
        let sim = try PolicySimulator(identityJSON: [
            #"{"Version": "2012-10-17", "Statement": {"Effect": "Allow", "NotAction": "iam:*", "Resource": "*"}}"#
        ])
        let user = TestSupport.user
        #expect(sim.decide(.s3("GetObject"), "arn:aws:s3:::b/k", as: user) == .allow)
        #expect(sim.decide(.service("dynamodb", "PutItem"), "arn:aws:dynamodb:us-east-1:111122223333:table/T", as: user) == .allow)
        #expect(sim.decide(.iam("CreateUser"), "arn:aws:iam::111122223333:user/x", as: user) == .implicitDeny)
    }

    @Test func notActionDenyWithoutMFAExceptIAM() throws {
        let sim = try PolicySimulator(identityJSON: [
            """
            {"Version": "2012-10-17", "Statement": [
              {"Effect": "Allow", "Action": "*", "Resource": "*"},
              {"Sid": "DenyAllUsersNotUsingMFA", "Effect": "Deny", "NotAction": "iam:*", "Resource": "*",
               "Condition": {"BoolIfExists": {"aws:MultiFactorAuthPresent": "false"}}}
            ]}
            """
        ])
        let noKey = RequestContext(principal: TestSupport.user)
        let withMFA = RequestContext(principal: TestSupport.user, values: ["aws:MultiFactorAuthPresent": true])
        let withoutMFA = RequestContext(principal: TestSupport.user, values: ["aws:MultiFactorAuthPresent": false])
        #expect(sim.decide(.s3("GetObject"), "arn:aws:s3:::b/k", as: noKey) == .explicitDeny)
        #expect(sim.decide(.s3("GetObject"), "arn:aws:s3:::b/k", as: withoutMFA) == .explicitDeny)
        #expect(sim.decide(.s3("GetObject"), "arn:aws:s3:::b/k", as: withMFA) == .allow)
        #expect(sim.decide(.iam("ChangePassword"), "arn:aws:iam::111122223333:user/carol", as: withoutMFA) == .allow)
    }

    // MARK: "IAM JSON policy elements: NotResource"

    @Test func notResourceDeniesEverythingOutsideTheBucketFolder() throws {
        let sim = try PolicySimulator(identityJSON: [
            """
            {"Version": "2012-10-17", "Statement": [
              {"Effect": "Allow", "Action": "s3:*", "Resource": "*"},
              {"Effect": "Deny", "Action": "s3:*",
               "NotResource": ["arn:aws:s3:::hr-bucket/Payroll", "arn:aws:s3:::hr-bucket/Payroll/*"]}
            ]}
            """
        ])
        #expect(sim.decide(.s3("GetObject"), "arn:aws:s3:::hr-bucket/Payroll/2024.csv", as: TestSupport.user) == .allow)
        #expect(sim.decide(.s3("GetObject"), "arn:aws:s3:::hr-bucket/Payroll", as: TestSupport.user) == .allow)
        #expect(sim.decide(.s3("GetObject"), "arn:aws:s3:::hr-bucket/Reviews/2024.csv", as: TestSupport.user) == .explicitDeny)
        #expect(sim.decide(.s3("GetObject"), "arn:aws:s3:::other/x", as: TestSupport.user) == .explicitDeny)
    }

    // MARK: "IAM JSON policy elements: Condition operators" — IP addresses

    @Test func ipAddressConditionWithIPv4AndIPv6Ranges() throws {
        let sim = try PolicySimulator(identityJSON: [
            """
            {"Version": "2012-10-17", "Statement": {"Effect": "Allow", "Action": "s3:GetObject", "Resource": "*",
              "Condition": {"IpAddress": {"aws:SourceIp": ["203.0.113.0/24", "2001:DB8:1234:5678::/64"]}}}}
            """
        ])
        func from(_ ip: String) -> RequestContext {
            RequestContext(principal: TestSupport.user, values: ["aws:SourceIp": ContextValue(ip)])
        }
        #expect(sim.decide(.s3("GetObject"), "arn:aws:s3:::b/k", as: from("203.0.113.200")) == .allow)
        #expect(sim.decide(.s3("GetObject"), "arn:aws:s3:::b/k", as: from("2001:db8:1234:5678::beef")) == .allow)
        #expect(sim.decide(.s3("GetObject"), "arn:aws:s3:::b/k", as: from("198.51.100.1")) == .implicitDeny)
        #expect(sim.decide(.s3("GetObject"), "arn:aws:s3:::b/k", as: from("2001:db8:1234:9999::1")) == .implicitDeny)
    }

    // MARK: "Policy evaluation for requests within a single account" — identity plus resource policy

    @Test func identityAndResourcePolicyInTheSameAccountAreAUnion() throws {
        let carlos = try RequestPrincipal.iamUser(arn: "arn:aws:iam::111122223333:user/carlossalazar")
        let sim = try PolicySimulator(
            identityJSON: [
                """
                {"Version": "2012-10-17", "Statement": {"Sid": "AllowS3ListRead", "Effect": "Allow",
                  "Action": ["s3:GetBucketLocation", "s3:GetObject", "s3:ListBucket"],
                  "Resource": ["arn:aws:s3:::carlossalazar-logs", "arn:aws:s3:::carlossalazar-logs/*"]}}
                """
            ],
            resourceJSON: """
                {"Version": "2012-10-17", "Statement": {"Sid": "AllowCarlosWrite", "Effect": "Allow",
                  "Principal": {"AWS": "arn:aws:iam::111122223333:user/carlossalazar"},
                  "Action": "s3:PutObject", "Resource": "arn:aws:s3:::carlossalazar-logs/*"}}
                """)
        let put = sim.decide(.s3("PutObject"), "arn:aws:s3:::carlossalazar-logs/today.log", as: carlos)
        #expect(put == .allow)
        #expect(put.statements.map(\.sid) == ["AllowCarlosWrite"])
        #expect(sim.decide(.s3("GetObject"), "arn:aws:s3:::carlossalazar-logs/today.log", as: carlos).statements.map(\.sid) == ["AllowS3ListRead"])
        #expect(sim.decide(.s3("DeleteObject"), "arn:aws:s3:::carlossalazar-logs/today.log", as: carlos) == .implicitDeny)
    }

    // MARK: "Amazon Cognito: Role trust and permissions" — the authenticated-role trust policy

    @Test func cognitoAuthenticatedRoleTrustPolicy() throws {
        let trust = try Policy.parse(
            """
            {"Version": "2012-10-17", "Statement": {"Effect": "Allow",
              "Principal": {"Federated": "cognito-identity.amazonaws.com"},
              "Action": "sts:AssumeRoleWithWebIdentity",
              "Condition": {"StringEquals": {"cognito-identity.amazonaws.com:aud": "us-east-1:pool-1"},
                            "ForAnyValue:StringLike": {"cognito-identity.amazonaws.com:amr": "authenticated"}}}}
            """, kind: .trust, name: "trust")
        let evaluator = PolicyEvaluator(resourcePolicy: trust)
        func assume(_ identity: WebIdentity) throws -> Decision {
            let session = try WebIdentitySession(identity, role: TestSupport.roleArn, sessionName: "s-1")
            return evaluator.evaluate(AuthorizationRequest(
                action: "sts:AssumeRoleWithWebIdentity", resource: TestSupport.roleArn, context: session.assumeRoleContext()))
        }
        #expect(try assume(.cognito(identityId: "us-east-1:u", identityPoolId: "us-east-1:pool-1")) == .allow)
        #expect(try assume(.cognito(identityId: "us-east-1:u", identityPoolId: "us-east-1:pool-2")) == .implicitDeny)
        #expect(try assume(.cognito(identityId: "us-east-1:u", identityPoolId: "us-east-1:pool-1", amr: ["unauthenticated"])) == .implicitDeny)
    }
}
