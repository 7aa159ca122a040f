import Foundation
import Testing
import WIFTestSupport

/// `wif-tool credentials`, the AWS `credential_process` source.
@Suite(.oneToolRunAtATime) struct CredentialsCommandTests {
    @Test func printsCredentialProcessJSONFromTheEnvironment() throws {
        let home = try ToolRunner.temporaryDirectory()
        let result = try ToolRunner.run(
            ["credentials"],
            environment: ToolRunner.cleanEnvironment(home: home, extra: [
                "AWS_ACCESS_KEY_ID": "ASIAENVEXAMPLE", "AWS_SECRET_ACCESS_KEY": "secret/with+chars",
                "AWS_SESSION_TOKEN": "token==",
            ])
        )
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["Version"] as? Int == 1)
        #expect(object["AccessKeyId"] as? String == "ASIAENVEXAMPLE")
        #expect(object["SecretAccessKey"] as? String == "secret/with+chars")
        #expect(object["SessionToken"] as? String == "token==")
        #expect(object["Expiration"] == nil)
    }

    @Test func readsTheNamedProfile() throws {
        let home = try ToolRunner.temporaryDirectory()
        try """
            [default]
            aws_access_key_id = AKIADEFAULT
            aws_secret_access_key = default-secret

            [other]
            aws_access_key_id = AKIAOTHER
            aws_secret_access_key = other-secret
            """.write(to: home.appendingPathComponent("aws-credentials"), atomically: false, encoding: .utf8)
        let result = try ToolRunner.run(["credentials", "--profile", "other"], environment: ToolRunner.cleanEnvironment(home: home))
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["AccessKeyId"] as? String == "AKIAOTHER")
        #expect(object["SecretAccessKey"] as? String == "other-secret")
    }

    @Test func noCredentialsGivesAnAuthErrorWithoutSecrets() throws {
        let home = try ToolRunner.temporaryDirectory()
        try "web-identity-token-text-that-must-not-leak".write(
            to: home.appendingPathComponent("token"), atomically: false, encoding: .utf8)
        let result = try ToolRunner.run(
            ["credentials"],
            environment: ToolRunner.cleanEnvironment(home: home, extra: [
                // Half a key pair and an unusable web identity: every step of the chain fails.
                "AWS_SECRET_ACCESS_KEY": "half-a-pair-secret",
                "AWS_ROLE_ARN": "not-an-arn",
                "AWS_WEB_IDENTITY_TOKEN_FILE": home.appendingPathComponent("token").path,
            ])
        )
        #expect(result.status != 0)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("error: "))
        #expect(!result.stderr.contains("half-a-pair-secret"))
        #expect(!result.stderr.contains("web-identity-token-text"))
    }

    @Test func anSTSThatNeverAnswersFailsWithinTheDeadlineNamingTheEndpoint() throws {
        let home = try ToolRunner.temporaryDirectory()
        let listener = try SilentListener()
        try "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl".write(
            to: home.appendingPathComponent("token"), atomically: false, encoding: .utf8)
        let result = try ToolRunner.run(
            ["credentials"],
            environment: ToolRunner.cleanEnvironment(home: home, extra: [
                "AWS_ROLE_ARN": "arn:aws:iam::123456789012:role/personal-store",
                "AWS_WEB_IDENTITY_TOKEN_FILE": home.appendingPathComponent("token").path,
                "AWS_ENDPOINT_URL_STS": listener.url,
                "AWS_REGION": "us-east-1",
                "WIF_STS_DEADLINE": "1",
            ])
        )
        #expect(result.status != 0)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("STS at \(listener.url) did not answer within 1 s"), "\(result.stderr)")
    }
}
