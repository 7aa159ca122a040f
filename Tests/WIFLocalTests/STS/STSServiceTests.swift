import Foundation
import PolicyEngine
import Testing
import WIFCredentials

@testable import WIFLocal
import WIFTestSupport

@Suite("STSService")
struct STSServiceTests {
    // MARK: AssumeRoleWithWebIdentity: success

    @Test("issues a session in AWS's XML, read by WIFCredentials' STS client")
    func assumeRole() async throws {
        let fixture = try STSFixture.accepting()
        let answer = await fixture.post(STSFixture.assume())
        #expect(answer.status == 200)
        #expect(try answer.rootName() == "AssumeRoleWithWebIdentityResponse")
        let result = try answer.decoded(at: fixture.signing.clock.now)

        #expect(result.credentials.accessKeyId.hasPrefix("ASIA"))
        #expect(result.credentials.accessKeyId.count == 20)
        #expect(result.credentials.secretAccessKey.count == 40)
        #expect(result.serverExpiration == fixture.signing.clock.now.addingTimeInterval(3600))
        #expect(result.subjectFromWebIdentityToken == "1001")
        #expect(result.audience == STSFixture.facebookApp)
        #expect(result.provider == "graph.facebook.com")
        #expect(result.assumedRoleUser?.arn == "arn:aws:sts::000000000000:assumed-role/personal-store-facebook/app-1001")
        let roleId = try #require(result.assumedRoleUser?.assumedRoleId)
        #expect(roleId.hasPrefix("AROA") && roleId.hasSuffix(":app-1001"))
        #expect(result.packedPolicySize == nil)
        #expect(result.sourceIdentity == nil)
        #expect(result.requestId?.count == 36)
        #expect(try answer.text("AssumeRoleWithWebIdentityResult", "Credentials", "Expiration") == "2024-05-01T13:00:00Z")
        #expect(fixture.providerIds.values.withLock { $0 } == ["graph.facebook.com"])

        // The session token is the session: it opens to the role, the identity and the expiry.
        let token = try #require(result.credentials.sessionToken)
        let session = try #require(fixture.signing.state.sessions.open(token))
        #expect(session.accessKeyId == result.credentials.accessKeyId)
        #expect(session.secretAccessKey == result.credentials.secretAccessKey)
        #expect(session.roleArn == STSFixture.facebookRole)
        #expect("\(session.roleId):\(session.sessionName)" == roleId)
        #expect(session.identity == STSFixture.facebook())
        #expect(session.issuedAt == TestClock.signingStart)
        #expect(session.expiresAt == TestClock.signingStart + 3600)
        #expect(session.sessionPolicy == nil)
    }

    @Test("accepts the call as a GET with the parameters in the query")
    func assumeRoleByGET() async throws {
        let fixture = try STSFixture.accepting()
        let answer = await fixture.get(STSFixture.assume(extra: [("DurationSeconds", "900")]))
        let result = try answer.decoded(at: fixture.signing.clock.now)
        #expect(result.serverExpiration == fixture.signing.clock.now.addingTimeInterval(900))
    }

    @Test("keeps a session policy and policy ARNs in the session and reports the packed size")
    func sessionPolicy() async throws {
        let fixture = try STSFixture.accepting()
        let policy = """
            {
              "Version": "2012-10-17",
              "Statement": [{"Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::wif-personal/facebook/1001/*"}]
            }
            """
        let arn = "arn:aws:iam::aws:policy/AmazonS3ReadOnlyAccess"
        let answer = await fixture.post(STSFixture.assume(extra: [("Policy", policy), ("PolicyArns.member.1.arn", arn)]))
        let result = try answer.decoded(at: fixture.signing.clock.now)
        let token = try #require(result.credentials.sessionToken)
        let session = try #require(fixture.signing.state.sessions.open(token))
        let stored = try #require(session.sessionPolicy)
        #expect(!stored.contains("\n"))
        #expect(try Policy.parse(stored, kind: .session) == Policy.parse(policy, kind: .session))
        #expect(session.policyArns == [arn])
        let expected = ((stored.utf8.count + arn.utf8.count) * 100 + 2047) / 2048
        #expect(result.packedPolicySize == expected)
    }

    @Test("reports the token's source identity")
    func sourceIdentity() async throws {
        let fixture = try STSFixture.accepting(sourceIdentity: "alice@example.com")
        let result = try await fixture.post(STSFixture.assume()).decoded(at: fixture.signing.clock.now)
        #expect(result.sourceIdentity == "alice@example.com")
    }

    // MARK: AssumeRoleWithWebIdentity: refusals

    @Test("refuses a token the verifier refuses, with the verifier's code")
    func refusedToken() async throws {
        let fixture = try STSFixture.accepting()
        let error = try #require(await fixture.post(STSFixture.assume(token: "refused-token")).serviceError())
        #expect(error.code == "InvalidIdentityToken")
        #expect(error.httpStatus == 400)
        #expect(error.type == "Sender")
    }

    @Test("refuses a role that does not exist, as AWS does, without saying so")
    func unknownRole() async throws {
        let fixture = try STSFixture.accepting()
        let error = try #require(await fixture.post(STSFixture.assume(role: "arn:aws:iam::000000000000:role/nobody")).serviceError())
        #expect(error.code == "AccessDenied")
        #expect(error.httpStatus == 403)
        #expect(error.message == "Not authorized to perform sts:AssumeRoleWithWebIdentity")
    }

    @Test(
        "refuses an identity the role's trust policy does not allow",
        arguments: [
            STSFixture.facebook("1001", app: "999999999999999"),  // another app
            IdentityRecord(kind: .google, issuer: "https://accounts.google.com", subject: "1001", audiences: ["wif-local.apps.googleusercontent.com"]),
            IdentityRecord(kind: .amazon, subject: "amzn1.account.1001", audiences: [STSFixture.facebookApp]),
        ])
    func trustDenied(_ identity: IdentityRecord) async throws {
        let fixture = try STSFixture.accepting(identity)
        let error = try #require(await fixture.post(STSFixture.assume()).serviceError())
        #expect(error.code == "AccessDenied")
        #expect(error.httpStatus == 403)
        #expect(error.message == "Not authorized to perform sts:AssumeRoleWithWebIdentity")
    }

    @Test("requires sts:TagSession in the trust policy for a token with session tags")
    func tagSession() async throws {
        var tagged = STSFixture.facebook()
        tagged.principalTags = ["team": ["blue"]]
        let denied = try STSFixture.accepting(tagged)
        let error = try #require(await denied.post(STSFixture.assume()).serviceError())
        #expect(error.code == "AccessDenied")
        #expect(error.message == "Not authorized to perform sts:TagSession")

        let allowed = try STSFixture.accepting(tagged) { configuration in
            guard let index = configuration.roles.firstIndex(where: { $0.name == "personal-store-facebook" }) else { return }
            configuration.roles[index].trustPolicy = """
                {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"Federated": "graph.facebook.com"},
                  "Action": ["sts:AssumeRoleWithWebIdentity", "sts:TagSession"],
                  "Condition": {"StringEquals": {"graph.facebook.com:app_id": "100000000000001", "aws:RequestTag/team": "blue"}}}]}
                """
        }
        let result = try await allowed.post(STSFixture.assume()).decoded(at: allowed.signing.clock.now)
        #expect(result.credentials.accessKeyId.hasPrefix("ASIA"))
    }

    @Test("asks the trust policy again on every call, at that call's time, for the session name it names")
    func repeatedCallsAreDecidedAgain() async throws {
        // Calls before 2024-05-01T12:30:00Z (half an hour after the clock starts), with session names app-*.
        let fixture = try STSFixture.accepting { configuration in
            guard let index = configuration.roles.firstIndex(where: { $0.name == "personal-store-facebook" }) else { return }
            configuration.roles[index].trustPolicy = """
                {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"Federated": "graph.facebook.com"},
                  "Action": "sts:AssumeRoleWithWebIdentity",
                  "Condition": {"DateLessThan": {"aws:CurrentTime": "2024-05-01T12:30:00Z"},
                                "StringLike": {"sts:RoleSessionName": "app-*"}}}]}
                """
        }
        let first = try await fixture.post(STSFixture.assume()).decoded(at: fixture.signing.clock.now)
        #expect(first.assumedRoleUser?.arn == "arn:aws:sts::000000000000:assumed-role/personal-store-facebook/app-1001")
        // The same identity under another session name is another question, with its own answer.
        let other = try await fixture.post(STSFixture.assume(session: "app-other")).decoded(at: fixture.signing.clock.now)
        #expect(other.assumedRoleUser?.arn == "arn:aws:sts::000000000000:assumed-role/personal-store-facebook/app-other")
        #expect(other.assumedRoleUser?.assumedRoleId?.hasSuffix(":app-other") == true)
        let refusedName = try #require(await fixture.post(STSFixture.assume(session: "web-1001")).serviceError())
        #expect(refusedName.code == "AccessDenied")
        _ = try await fixture.post(STSFixture.assume()).decoded(at: fixture.signing.clock.now)

        fixture.signing.clock.advance(by: 1800)
        let late = try #require(await fixture.post(STSFixture.assume()).serviceError())
        #expect(late.code == "AccessDenied")
        #expect(late.message == "Not authorized to perform sts:AssumeRoleWithWebIdentity")
        fixture.signing.clock.advance(by: -1)
        let inTime = try await fixture.post(STSFixture.assume()).decoded(at: fixture.signing.clock.now)
        #expect(inTime.serverExpiration == fixture.signing.clock.now.addingTimeInterval(3600))
    }

    @Test("refuses a duration above the role's maximum, and accepts one up to it")
    func roleMaximum() async throws {
        let fixture = try STSFixture.accepting { configuration in
            guard let index = configuration.roles.firstIndex(where: { $0.name == "personal-store-facebook" }) else { return }
            configuration.roles[index].maxSessionDuration = 7200
        }
        let error = try #require(await fixture.post(STSFixture.assume(extra: [("DurationSeconds", "7201")])).serviceError())
        #expect(error.code == "ValidationError")
        #expect(error.message == "The requested DurationSeconds exceeds the MaxSessionDuration set for this role.")
        let result = try await fixture.post(STSFixture.assume(extra: [("DurationSeconds", "7200")])).decoded(at: fixture.signing.clock.now)
        #expect(result.serverExpiration == fixture.signing.clock.now.addingTimeInterval(7200))
    }

    @Test("refuses every caller of a role whose trust policy is invalid")
    func invalidTrustPolicy() async throws {
        let fixture = try STSFixture.accepting { configuration in
            guard let index = configuration.roles.firstIndex(where: { $0.name == "personal-store-facebook" }) else { return }
            configuration.roles[index].trustPolicy = #"{"Statement": [{"Effect": "Perhaps"}]}"#
        }
        #expect(fixture.service.roles[STSFixture.facebookRole]?.problem?.contains("personal-store-facebook") == true)
        let error = try #require(await fixture.post(STSFixture.assume()).serviceError())
        #expect(error.code == "AccessDenied")
    }

    // MARK: Parameter validation

    /// A parameter set, the expected code and the expected message.
    struct ValidationCase: Sendable, CustomTestStringConvertible {
        var name: String
        var parameters: [(String, String)]
        var code: String
        var message: String
        var testDescription: String { self.name }
    }

    static let longPolicyArns = (1...10).map { index in
        ("PolicyArns.member.\(index).arn", "arn:aws:iam::000000000000:policy/" + String(repeating: "p", count: 200) + "\(index)")
    }

    static let validationCases: [ValidationCase] = [
        ValidationCase(
            name: "missing RoleArn",
            parameters: STSFixture.assume().filter { $0.0 != "RoleArn" }, code: "ValidationError",
            message: "1 validation error detected: Value null at 'roleArn' failed to satisfy constraint: Member must not be null"),
        ValidationCase(
            name: "missing everything",
            parameters: [("Action", "AssumeRoleWithWebIdentity"), ("Version", "2011-06-15")], code: "ValidationError",
            message: "3 validation errors detected: Value null at 'roleArn' failed to satisfy constraint: Member must not be null; "
                + "Value null at 'roleSessionName' failed to satisfy constraint: Member must not be null; "
                + "Value null at 'webIdentityToken' failed to satisfy constraint: Member must not be null"),
        ValidationCase(
            name: "short RoleArn", parameters: STSFixture.assume(role: "arn:aws:iam::0:role"), code: "ValidationError",
            message: "1 validation error detected: Value 'arn:aws:iam::0:role' at 'roleArn' failed to satisfy constraint: Member must have length greater than or equal to 20"),
        ValidationCase(
            name: "RoleArn that is not a role", parameters: STSFixture.assume(role: "arn:aws:s3:::wif-personal/facebook"),
            code: "ValidationError", message: "Request ARN is invalid"),
        ValidationCase(
            name: "RoleArn without an account", parameters: STSFixture.assume(role: "arn:aws:iam:::role/personal-store-facebook"),
            code: "ValidationError", message: "Request ARN is invalid"),
        ValidationCase(
            name: "one-character session name", parameters: STSFixture.assume(session: "a"), code: "ValidationError",
            message: "1 validation error detected: Value 'a' at 'roleSessionName' failed to satisfy constraint: Member must have length greater than or equal to 2"),
        ValidationCase(
            name: "65-character session name", parameters: STSFixture.assume(session: String(repeating: "s", count: 65)),
            code: "ValidationError",
            message: "1 validation error detected: Value '\(String(repeating: "s", count: 65))' at 'roleSessionName' failed to satisfy constraint: Member must have length less than or equal to 64"),
        ValidationCase(
            name: "session name with a space", parameters: STSFixture.assume(session: "app 1001"), code: "ValidationError",
            message: #"1 validation error detected: Value 'app 1001' at 'roleSessionName' failed to satisfy constraint: Member must satisfy regular expression pattern: [\w+=,.@-]*"#),
        ValidationCase(
            name: "three-character token", parameters: STSFixture.assume(token: "abc"), code: "ValidationError",
            message: "1 validation error detected: Value '*** Sensitive Data Redacted ***' at 'webIdentityToken' failed to satisfy constraint: Member must have length greater than or equal to 4"),
        ValidationCase(
            name: "duration below 900", parameters: STSFixture.assume(extra: [("DurationSeconds", "899")]), code: "ValidationError",
            message: "1 validation error detected: Value '899' at 'durationSeconds' failed to satisfy constraint: Member must have value greater than or equal to 900"),
        ValidationCase(
            name: "duration above 43200", parameters: STSFixture.assume(extra: [("DurationSeconds", "43201")]), code: "ValidationError",
            message: "1 validation error detected: Value '43201' at 'durationSeconds' failed to satisfy constraint: Member must have value less than or equal to 43200"),
        ValidationCase(
            name: "duration that is not a number", parameters: STSFixture.assume(extra: [("DurationSeconds", "1h")]), code: "ValidationError",
            message: "1 validation error detected: Value '1h' at 'durationSeconds' failed to satisfy constraint: Member must be a whole number of seconds"),
        ValidationCase(
            name: "short ProviderId", parameters: STSFixture.assume(providerId: "fb"), code: "ValidationError",
            message: "1 validation error detected: Value 'fb' at 'providerId' failed to satisfy constraint: Member must have length greater than or equal to 4"),
        ValidationCase(
            name: "policy over 2048 characters",
            parameters: STSFixture.assume(extra: [("Policy", #"{"Version":"2012-10-17","Statement":[]}"# + String(repeating: " ", count: 2010))]),
            code: "ValidationError",
            message: "Member must have length less than or equal to 2048"),
        ValidationCase(
            name: "policy with a character above U+00FF",
            parameters: STSFixture.assume(extra: [("Policy", #"{"Version":"2012-10-17","Statement":[],"Id":"€"}"#)]),
            code: "ValidationError", message: #"Member must satisfy regular expression pattern: [\u0009\u000A\u000D\u0020-\u00FF]+"#),
        ValidationCase(
            name: "policy that is not JSON", parameters: STSFixture.assume(extra: [("Policy", "{not json")]),
            code: "MalformedPolicyDocument", message: "The policy is not in the valid JSON format."),
        ValidationCase(
            name: "policy with a bad effect",
            parameters: STSFixture.assume(extra: [(
                "Policy", #"{"Version":"2012-10-17","Statement":[{"Effect":"Perhaps","Action":"s3:GetObject","Resource":"*"}]}"#
            )]),
            code: "MalformedPolicyDocument", message: "Syntax errors in policy."),
        ValidationCase(
            name: "policy ARN that is not a policy",
            parameters: STSFixture.assume(extra: [("PolicyArns.member.1.arn", "arn:aws:iam::000000000000:role/personal-store-facebook")]),
            code: "ValidationError", message: "Request ARN is invalid"),
        ValidationCase(
            name: "eleven policy ARNs",
            parameters: STSFixture.assume(
                extra: (1...11).map { ("PolicyArns.member.\($0).arn", "arn:aws:iam::aws:policy/ReadOnly\($0)") }),
            code: "ValidationError", message: "at 'policyArns' failed to satisfy constraint: Member must have length less than or equal to 10"),
        ValidationCase(
            name: "policies too large once packed",
            parameters: STSFixture.assume(extra: STSServiceTests.longPolicyArns), code: "PackedPolicyTooLarge",
            message: "Packed policy consumes 115% of allotted space, please use smaller policy."),
    ]

    @Test("validates every parameter as STS does", arguments: STSServiceTests.validationCases)
    func validation(_ testCase: ValidationCase) async throws {
        let fixture = try STSFixture.accepting()
        let answer = await fixture.post(testCase.parameters)
        let error = try #require(answer.serviceError())
        #expect(error.code == testCase.code)
        #expect(error.httpStatus == 400)
        #expect(error.type == "Sender")
        let message = try #require(error.message)
        #expect(message.contains(testCase.message), "\(message)")
        // Validation happens before the token is looked at.
        #expect(fixture.providerIds.values.withLock { $0 }.isEmpty)
        #expect(!answer.body.contains("token-of-1001"))
    }

    @Test("names the problem PolicyEngine found in a session policy")
    func policyProblem() async throws {
        let fixture = try STSFixture.accepting()
        let policy = #"{"Version":"2012-10-17","Statement":[{"Effect":"Perhaps","Action":"s3:GetObject","Resource":"*"}]}"#
        let error = try #require(await fixture.post(STSFixture.assume(extra: [("Policy", policy)])).serviceError())
        #expect(error.message?.contains("Effect") == true)
    }

    // MARK: Actions

    @Test("refuses unknown actions, other versions and calls without an action")
    func actions() async throws {
        let fixture = try STSFixture.accepting()
        let unknown = try #require(await fixture.post([("Action", "AssumeRole"), ("Version", "2011-06-15")]).serviceError())
        #expect(unknown.code == "InvalidAction")
        #expect(unknown.httpStatus == 400)
        #expect(unknown.message == "Could not find operation AssumeRole for version 2011-06-15")
        let version = try #require(await fixture.post([("Action", "GetCallerIdentity"), ("Version", "2012-01-01")]).serviceError())
        #expect(version.code == "InvalidAction")
        let missing = try #require(await fixture.post([("Version", "2011-06-15")]).serviceError())
        #expect(missing.code == "MissingAction")
    }

    // MARK: GetCallerIdentity

    @Test("says who a session is")
    func callerIdentityOfSession() async throws {
        let fixture = try STSFixture.accepting()
        let credentials = try await fixture.post(STSFixture.assume()).decoded(at: fixture.signing.clock.now).credentials
        let answer = try await fixture.postSigned([("Action", "GetCallerIdentity"), ("Version", "2011-06-15")], credentials: credentials)
        #expect(answer.status == 200)
        #expect(try answer.rootName() == "GetCallerIdentityResponse")
        #expect(try answer.text("GetCallerIdentityResult", "Arn") == "arn:aws:sts::000000000000:assumed-role/personal-store-facebook/app-1001")
        #expect(try answer.text("GetCallerIdentityResult", "Account") == "000000000000")
        let userId = try #require(try answer.text("GetCallerIdentityResult", "UserId"))
        #expect(userId.hasPrefix("AROA") && userId.hasSuffix(":app-1001"))
        #expect(try answer.text("ResponseMetadata", "RequestId")?.count == 36)
    }

    @Test("says the administrator is the account's root")
    func callerIdentityOfAdmin() async throws {
        let fixture = try STSFixture.accepting()
        let answer = try await fixture.postSigned(
            [("Action", "GetCallerIdentity"), ("Version", "2011-06-15")], credentials: fixture.signing.adminCredentials)
        #expect(try answer.text("GetCallerIdentityResult", "Arn") == "arn:aws:iam::000000000000:root")
        #expect(try answer.text("GetCallerIdentityResult", "UserId") == "000000000000")
    }

    @Test("refuses GetCallerIdentity unsigned, badly signed or with an expired session, in STS's error shape")
    func callerIdentityRefused() async throws {
        let fixture = try STSFixture.accepting()
        let unsigned = try #require(await fixture.post([("Action", "GetCallerIdentity"), ("Version", "2011-06-15")]).serviceError())
        #expect(unsigned.code == "MissingAuthenticationToken")
        #expect(unsigned.httpStatus == 403)

        var wrong = fixture.signing.adminCredentials
        wrong.secretAccessKey = "guessed"
        let mismatch = try #require(
            try await fixture.postSigned([("Action", "GetCallerIdentity"), ("Version", "2011-06-15")], credentials: wrong).serviceError())
        #expect(mismatch.code == "SignatureDoesNotMatch")
        #expect(mismatch.httpStatus == 403)

        let credentials = try await fixture.post(STSFixture.assume(extra: [("DurationSeconds", "900")]))
            .decoded(at: fixture.signing.clock.now).credentials
        fixture.signing.clock.advance(by: 900)
        let expired = try #require(
            try await fixture.postSigned([("Action", "GetCallerIdentity"), ("Version", "2011-06-15")], credentials: credentials)
                .serviceError())
        #expect(expired.code == "ExpiredToken")
    }
}
