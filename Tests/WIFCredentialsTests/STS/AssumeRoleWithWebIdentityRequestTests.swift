import Foundation
import Testing

@testable import WIFCredentials
import WIFFoundation

@Suite struct AssumeRoleWithWebIdentityRequestTests {
    struct InvalidCase: Sendable, CustomTestStringConvertible {
        var name: String
        var change: @Sendable (inout AssumeRoleWithWebIdentityRequest) -> Void
        var expected: String

        var testDescription: String { self.name }
    }

    static let policy = #"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"}]}"#

    static let invalidCases: [InvalidCase] = [
        InvalidCase(name: "role ARN too short", change: { $0.roleArn = "arn:aws:iam::1:r/x" }, expected: "RoleArn is 18 characters; STS accepts 20–2048"),
        InvalidCase(
            name: "role ARN too long",
            change: { $0.roleArn = "arn:aws:iam::123456789012:role/" + String(repeating: "r", count: 2018) },
            expected: "RoleArn is 2049 characters; STS accepts 20–2048"
        ),
        InvalidCase(name: "role ARN not an ARN", change: { $0.roleArn = "role/FederatedWebIdentityRole" }, expected: "is not an ARN"),
        InvalidCase(name: "role ARN with too few fields", change: { $0.roleArn = "arn:aws:iam::123456789012" }, expected: "is not an ARN"),
        InvalidCase(name: "role ARN not a role", change: { $0.roleArn = "arn:aws:iam::123456789012:user/alice" }, expected: "is not an IAM role ARN"),
        InvalidCase(name: "role ARN of another service", change: { $0.roleArn = "arn:aws:s3:::bucket/role/x-y-z" }, expected: "is not an IAM role ARN"),
        InvalidCase(name: "role ARN with a space", change: { $0.roleArn = "arn:aws:iam::123456789012:role/a b" }, expected: "RoleArn 'arn:aws:iam::123456789012:role/a b' contains whitespace"),
        InvalidCase(name: "session name too short", change: { $0.roleSessionName = "a" }, expected: "RoleSessionName is 1 characters; STS accepts 2–64"),
        InvalidCase(name: "session name too long", change: { $0.roleSessionName = String(repeating: "s", count: 65) }, expected: "RoleSessionName is 65 characters; STS accepts 2–64"),
        InvalidCase(name: "session name with a space", change: { $0.roleSessionName = "alice smith" }, expected: "RoleSessionName 'alice smith' contains ' '"),
        InvalidCase(name: "session name with a slash", change: { $0.roleSessionName = "alice/bob" }, expected: "contains '/'; STS accepts only letters, digits and + = , . @ _ -"),
        InvalidCase(name: "session name with non-ASCII", change: { $0.roleSessionName = "zoë" }, expected: "RoleSessionName 'zoë' contains"),
        InvalidCase(name: "provider id too short", change: { $0.providerId = "a.b" }, expected: "ProviderId is 3 characters; STS accepts 4–2048"),
        InvalidCase(name: "provider id too long", change: { $0.providerId = String(repeating: "p", count: 2049) }, expected: "ProviderId is 2049 characters; STS accepts 4–2048"),
        InvalidCase(name: "provider id with a space", change: { $0.providerId = "graph facebook" }, expected: "ProviderId 'graph facebook' contains whitespace"),
        InvalidCase(name: "duration too short", change: { $0.durationSeconds = 899 }, expected: "DurationSeconds is 899; STS accepts 900–43200 seconds"),
        InvalidCase(name: "duration too long", change: { $0.durationSeconds = 43_201 }, expected: "DurationSeconds is 43201; STS accepts 900–43200 seconds"),
        InvalidCase(name: "duration negative", change: { $0.durationSeconds = -1 }, expected: "DurationSeconds is -1"),
        InvalidCase(name: "policy empty", change: { $0.policy = "" }, expected: "Policy is empty"),
        InvalidCase(
            name: "policy too long",
            change: { $0.policy = #"{"Statement":[],"Pad":""# + String(repeating: " ", count: 2030) + "\"}" },
            expected: "Policy is 2055 characters; STS accepts at most 2048"
        ),
        InvalidCase(name: "policy not JSON", change: { $0.policy = "Allow everything" }, expected: "Policy is not a JSON object"),
        InvalidCase(
            name: "policy with a syntax error",
            change: { $0.policy = "{\"Version\": \"2012-10-17\",\n  \"Statement\": [],\n}" },
            expected: "at line 3, column 1"
        ),
        InvalidCase(name: "policy a JSON array", change: { $0.policy = "[1,2]" }, expected: "Policy is not a JSON object"),
        InvalidCase(name: "policy without statement", change: { $0.policy = #"{"Version":"2012-10-17"}"# }, expected: "Policy has no \"Statement\" member"),
        InvalidCase(
            name: "policy with a character beyond U+00FF",
            change: { $0.policy = #"{"Statement":[],"Sid":"€"}"# },
            expected: "Policy contains the character U+20AC"
        ),
        InvalidCase(name: "policy with a control character", change: { $0.policy = "{\"Statement\":[]}\u{0}" }, expected: "Policy contains the character U+0"),
        InvalidCase(
            name: "too many policy ARNs",
            change: { $0.policyArns = (1...11).map { "arn:aws:iam::aws:policy/Policy\($0)" } },
            expected: "PolicyArns has 11 entries; STS accepts at most 10"
        ),
        InvalidCase(name: "policy ARN too short", change: { $0.policyArns = ["arn:aws:iam::1:p/x"] }, expected: "PolicyArns[0] is 18 characters; STS accepts 20–2048"),
        InvalidCase(
            name: "policy ARN too long",
            change: { $0.policyArns = ["arn:aws:iam::aws:policy/ok", "arn:aws:iam::aws:policy/" + String(repeating: "p", count: 2025)] },
            expected: "PolicyArns[1] is 2049 characters; STS accepts 20–2048"
        ),
        InvalidCase(name: "policy ARN not an ARN", change: { $0.policyArns = ["AmazonS3ReadOnlyAccess-policy"] }, expected: "PolicyArns[0] 'AmazonS3ReadOnlyAccess-policy' is not an ARN"),
    ]

    @Test(arguments: Self.invalidCases)
    func rejectsParameterOutsideItsBounds(_ testCase: InvalidCase) {
        var request = AssumeRoleWithWebIdentityRequest.sample
        testCase.change(&request)
        #expect {
            try request.validate()
        } throws: { error in
            guard let error = error as? WIFCredentialsError else { return false }
            return error.code == .invalidParameter && error.reason.contains(testCase.expected)
        }
    }

    @Test func acceptsValuesAtTheBounds() throws {
        let lowest = AssumeRoleWithWebIdentityRequest(
            roleArn: "arn:aws:iam:::role/x",  // 20 characters
            roleSessionName: "ab",
            providerId: "a.io",
            durationSeconds: 900,
            policy: #"{"Statement":[]}"#,
            policyArns: []
        )
        #expect(lowest.roleArn.count == 20)
        try lowest.validate()

        let policyPadding = String(repeating: " ", count: 2048 - #"{"Statement":[]}"#.count)
        let highest = AssumeRoleWithWebIdentityRequest(
            roleArn: "arn:aws:iam::123456789012:role/" + String(repeating: "r", count: 2048 - 31),
            roleSessionName: "a+b=c,d.e@f_g-h" + String(repeating: "X", count: 49),
            providerId: String(repeating: "p", count: 2048),
            durationSeconds: 43_200,
            policy: #"{"Statement":[]}"# + policyPadding,
            policyArns: (1...10).map { "arn:aws:iam::aws:policy/Policy\($0)" }
        )
        #expect(highest.roleArn.count == 2048)
        #expect(highest.roleSessionName.count == 64)
        #expect(highest.policy?.count == 2048)
        try highest.validate()

        // Other partitions and STS-compatible servers use the same role ARN shape.
        for arn in ["arn:aws-cn:iam::123456789012:role/x", "arn:aws-us-gov:iam::123456789012:role/path/x", "arn:minio:iam:::role/web-users"] {
            try AssumeRoleWithWebIdentityRequest(roleArn: arn, roleSessionName: "s1").validate()
        }
    }

    @Test func formCarriesEveryParameter() {
        let request = AssumeRoleWithWebIdentityRequest(
            roleArn: "arn:aws:iam::123456789012:role/web",
            roleSessionName: "alice@example.com",
            providerId: "graph.facebook.com",
            durationSeconds: 1800,
            policy: Self.policy,
            policyArns: ["arn:aws:iam::aws:policy/ReadOnlyAccess", "arn:aws:iam::123456789012:policy/Extra"]
        )
        let parameters = request.formParameters(webIdentityToken: "token-value")
        #expect(parameters.map(\.name) == [
            "Action", "Version", "RoleArn", "RoleSessionName", "WebIdentityToken", "ProviderId", "DurationSeconds",
            "Policy", "PolicyArns.member.1.arn", "PolicyArns.member.2.arn",
        ])
        let form = STSTestTransport.decodeForm(request.formBody(webIdentityToken: "token-value"))
        #expect(form == [
            "Action": "AssumeRoleWithWebIdentity",
            "Version": "2011-06-15",
            "RoleArn": "arn:aws:iam::123456789012:role/web",
            "RoleSessionName": "alice@example.com",
            "WebIdentityToken": "token-value",
            "ProviderId": "graph.facebook.com",
            "DurationSeconds": "1800",
            "Policy": Self.policy,
            "PolicyArns.member.1.arn": "arn:aws:iam::aws:policy/ReadOnlyAccess",
            "PolicyArns.member.2.arn": "arn:aws:iam::123456789012:policy/Extra",
        ])
    }

    @Test func formLeavesOutUnsetOptionalParameters() {
        let body = String(decoding: AssumeRoleWithWebIdentityRequest.sample.formBody(webIdentityToken: "abcd"), as: UTF8.self)
        #expect(
            body
                == "Action=AssumeRoleWithWebIdentity&Version=2011-06-15&RoleArn=arn%3Aaws%3Aiam%3A%3A123456789012%3Arole%2FFederatedWebIdentityRole&RoleSessionName=app1&WebIdentityToken=abcd"
        )
    }

    @Test func formPercentEncodesOutsideTheUnreservedSet() {
        let token = "eyJ+a/b=c.d-e_f~g h%i&j"
        let body = String(decoding: AssumeRoleWithWebIdentityRequest.sample.formBody(webIdentityToken: token), as: UTF8.self)
        #expect(body.hasSuffix("&WebIdentityToken=eyJ%2Ba%2Fb%3Dc.d-e_f~g%20h%25i%26j"))

        let request = AssumeRoleWithWebIdentityRequest(
            roleArn: AssumeRoleWithWebIdentityRequest.sample.roleArn,
            roleSessionName: "a+b=c,d",
            policy: #"{"Statement":[{"Sid":"é+/="}]}"#
        )
        let encoded = String(decoding: request.formBody(webIdentityToken: "abcd"), as: UTF8.self)
        #expect(encoded.contains("&RoleSessionName=a%2Bb%3Dc%2Cd&"))
        #expect(encoded.hasSuffix("&Policy=%7B%22Statement%22%3A%5B%7B%22Sid%22%3A%22%C3%A9%2B%2F%3D%22%7D%5D%7D"))
    }

    @Test func percentEncodingKeepsOnlyUnreservedBytes() {
        var all = ""
        for value in 0x20...0x7E {
            all.unicodeScalars.append(Unicode.Scalar(UInt8(value)))
        }
        let encoded = PercentEncoding.encode(all)
        let kept = encoded.split(separator: "%", omittingEmptySubsequences: false).enumerated().map { index, part in index == 0 ? part : part.dropFirst(2) }.joined()
        #expect(kept == "-.0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz~")
        #expect(PercentEncoding.encode(" ") == "%20")
        #expect(PercentEncoding.encode("ü") == "%C3%BC")
        #expect(encoded.removingPercentEncoding == all)
    }
}
