import Foundation
import Testing

@testable import WIFCredentials
import WIFHTTP
import WIFFoundation

@Suite struct STSResponseDecoderTests {
    static let receivedAt = Date(timeIntervalSince1970: 1_795_262_400)  // 2026-11-21T12:00:00Z
    static let roleArn = "arn:aws:iam::123456789012:role/FederatedWebIdentityRole"
    static let token = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl"

    func decode(_ response: TransportResponse, roleArn: String = Self.roleArn) throws -> AssumeRoleWithWebIdentityResult {
        try STSResponseDecoder.decodeAssumeRoleWithWebIdentity(
            response,
            roleArn: roleArn,
            receivedAt: Self.receivedAt,
            redacting: [Self.token, PercentEncoding.encode(Self.token)]
        )
    }

    func expectError(
        _ response: TransportResponse,
        sourceLocation: SourceLocation = #_sourceLocation,
        _ check: (WIFCredentialsError) -> Bool
    ) {
        #expect(sourceLocation: sourceLocation) {
            try self.decode(response)
        } throws: { error in
            guard let error = error as? WIFCredentialsError else { return false }
            return check(error)
        }
    }

    @Test func decodesEveryField() throws {
        let result = try self.decode(try STSFixtures.response("success-all-fields.xml"))
        #expect(result.credentials.accessKeyId == "ASIAIOSFODNN7EXAMPLE")
        #expect(result.credentials.secretAccessKey == "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY")
        #expect(result.credentials.sessionToken == "AQoDYXdzEE0a8ANXXXXXXXXNO1ewxE5TijQyp+IEXAMPLE/session+token=")
        #expect(result.credentials.accountId == "123456789012")
        let expected = Date(timeIntervalSince1970: 1_795_269_600.25)  // 2026-11-21T14:00:00.250Z
        #expect(abs(result.serverExpiration.timeIntervalSince(expected)) < 0.001)
        #expect(result.credentials.expiration == result.serverExpiration)
        #expect(result.clockSkew == nil)
        #expect(result.subjectFromWebIdentityToken == "amzn1.account.AF6RHO7KZU5XRVQJGXK6HEXAMPLE")
        #expect(result.audience == "client.5498841531868486423.1548@apps.example.com")
        #expect(result.provider == "www.amazon.com")
        #expect(result.sourceIdentity == "alice@example.com")
        #expect(result.packedPolicySize == 42)
        #expect(result.requestId == "ad4156e9-bce1-11e2-82e6-6b6efEXAMPLE")
        #expect(
            result.assumedRoleUser
                == AssumedRoleUser(
                    arn: "arn:aws:sts::123456789012:assumed-role/FederatedWebIdentityRole/app1",
                    assumedRoleId: "AROACLKWSDQRAOEXAMPLE:app1"
                )
        )
    }

    @Test func decodesMinimalAnswerWithoutAssumedRoleUser() throws {
        let response = try STSFixtures.response("success-minimal.xml", headers: [("x-amzn-RequestId", "header-request-id")])
        let result = try self.decode(response)
        #expect(result.credentials.accessKeyId == "ASIAMINIMALEXAMPLE01")
        #expect(result.serverExpiration == Date(timeIntervalSince1970: 1_795_266_000))
        #expect(result.assumedRoleUser == nil)
        #expect(result.subjectFromWebIdentityToken == nil)
        #expect(result.provider == nil)
        #expect(result.audience == nil)
        #expect(result.sourceIdentity == nil)
        #expect(result.packedPolicySize == nil)
        // Without ResponseMetadata the header supplies the request id; the account comes from the role.
        #expect(result.requestId == "header-request-id")
        #expect(result.credentials.accountId == "123456789012")
    }

    @Test func decodesMotoAnswer() throws {
        let result = try self.decode(try STSFixtures.response("success-moto.xml"), roleArn: "arn:aws:iam::123456789012:role/test")
        #expect(result.credentials.accessKeyId == "ASIARZPUZDIKGEZNW74O")
        #expect(result.assumedRoleUser?.arn == "arn:aws:sts::123456789012:assumed-role/test/s1")
        #expect(result.assumedRoleUser?.assumedRoleId == "ARO123EXAMPLE123:s1")
        #expect(result.packedPolicySize == 6)
        #expect(result.requestId == "li2w2bP4l5OpnnZvqW9YIEgPktmx8OUzONKK8btaObkLUc20jn9J")
        #expect(abs(result.serverExpiration.timeIntervalSince1970 - 1_795_312_757.900405) < 0.001)
    }

    @Test func accountIdIsLeftOutForNonAWSAccounts() throws {
        let result = try self.decode(try STSFixtures.response("success-minimal.xml"), roleArn: "arn:minio:iam:::role/web-users")
        #expect(result.credentials.accountId == nil)
    }

    @Test func dateHeaderMovesExpirationOntoTheLocalClock() throws {
        // The server's clock is 90 seconds ahead of the local one.
        let response = try STSFixtures.response(
            "success-minimal.xml",
            headers: [("Date", "Sat, 21 Nov 2026 12:01:30 GMT")]
        )
        let result = try self.decode(response)
        #expect(result.clockSkew == 90)
        #expect(result.serverExpiration == Date(timeIntervalSince1970: 1_795_266_000))
        #expect(result.credentials.expiration == Date(timeIntervalSince1970: 1_795_266_000 - 90))

        // A server clock behind the local one lengthens the local lifetime accordingly.
        let behind = try STSFixtures.response("success-minimal.xml", headers: [("date", "Sat, 21 Nov 2026 11:55:00 GMT")])
        let late = try self.decode(behind)
        #expect(late.clockSkew == -300)
        #expect(late.credentials.expiration == Date(timeIntervalSince1970: 1_795_266_000 + 300))

        // An unreadable Date header is ignored rather than trusted.
        let garbled = try STSFixtures.response("success-minimal.xml", headers: [("Date", "yesterday")])
        #expect(try self.decode(garbled).clockSkew == nil)
    }

    @Test func readsAWSErrorShape() throws {
        let response = try STSFixtures.response("error-invalid-identity-token.xml", status: 400)
        self.expectError(response) { error in
            guard error.code == .service, let service = error.serviceError else { return false }
            return service.code == "InvalidIdentityToken"
                && service.message?.hasPrefix("Couldn't retrieve verification key") == true
                && service.type == "Sender"
                && service.requestId == "c6104cbe-af31-11e0-8154-cbc7ccf896c7"
                && service.httpStatus == 400
                && error.recovery == .reloadTokenAndRetryOnce
                && error.reason.contains("InvalidIdentityToken (HTTP 400)")
        }
    }

    @Test func readsErrorsWrapperShape() throws {
        let response = try STSFixtures.response(
            "error-errors-wrapper.xml",
            status: 403,
            headers: [("Content-Type", "text/html; charset=utf-8"), ("x-amzn-RequestId", "moto-request")]
        )
        self.expectError(response) { error in
            guard let service = error.serviceError else { return false }
            return error.code == .service
                && service.code == "InvalidClientTokenId"
                && service.message == "The security token included in the request is invalid."
                && service.type == "Sender"
                && service.requestId == "moto-request"
                && service.httpStatus == 403
                && error.recovery == .none
        }
    }

    @Test func errorDocumentWithoutCodeIsMalformed() throws {
        self.expectError(try STSFixtures.response("error-no-code.xml", status: 500)) { error in
            error.code == .malformedResponse && error.reason.contains("HTTP 500 with an error document that has no <Error><Code>")
        }
    }

    @Test func truncatedAnswerIsMalformedAndQuotesNoSecret() throws {
        let response = try STSFixtures.response("truncated.xml")
        self.expectError(response) { error in
            error.code == .malformedResponse
                && error.reason.contains("STS answered HTTP 200 (text/xml) with a body that is not an STS XML document")
                && error.reason.contains("ASIATRUNCATEDEXAMPLE")
                && error.reason.contains("<SecretAccessKey><redacted>")
                && !error.reason.contains("truncated/secret")
                && error.recovery == .retryWithBackoff
        }
    }

    @Test func htmlPageIsMalformed() throws {
        let response = try STSFixtures.response("html-500.html", status: 500, headers: [("Content-Type", "text/html; charset=utf-8")])
        self.expectError(response) { error in
            error.code == .malformedResponse
                && error.reason.contains("HTTP 500 (text/html; charset=utf-8)")
                && error.reason.contains("document type declaration")
                && error.reason.contains("'<!doctype html> <html lang=en> <title>500 Internal Server Error</title>")
                && error.reason.contains("(265 bytes)")
        }
    }

    @Test func htmlWithoutDoctypeIsMalformed() {
        let response = TransportResponse(status: 502, body: Array("<html><body>Bad gateway<br></body></html>".utf8))
        self.expectError(response) { error in
            error.code == .malformedResponse && error.reason.contains("HTTP 502") && error.reason.contains("Bad gateway")
        }
    }

    @Test(arguments: ["empty.txt"])
    func emptyBodyIsMalformed(_ fixture: String) throws {
        let response = try STSFixtures.response(fixture, status: 200)
        self.expectError(response) { error in
            error.code == .malformedResponse && error.reason == "STS answered HTTP 200 with an empty body"
        }
        self.expectError(TransportResponse(status: 503, body: Array(" \n".utf8))) { error in
            error.reason == "STS answered HTTP 503 with an empty body"
        }
    }

    @Test func unexpectedDocumentsAreMalformed() throws {
        let other = TransportResponse(status: 200, body: Array("<AssumeRoleResponse><AssumeRoleResult/></AssumeRoleResponse>".utf8))
        self.expectError(other) { $0.code == .malformedResponse && $0.reason.contains("unexpected <AssumeRoleResponse> document") }

        let wrongNamespace = TransportResponse(
            status: 200,
            body: Array(#"<AssumeRoleWithWebIdentityResponse xmlns="urn:other"><AssumeRoleWithWebIdentityResult/></AssumeRoleWithWebIdentityResponse>"#.utf8)
        )
        self.expectError(wrongNamespace) { $0.code == .malformedResponse && $0.reason.contains("namespace 'urn:other'") }

        let successOnError = TransportResponse(status: 500, body: try STSFixtures.data("success-minimal.xml"))
        self.expectError(successOnError) { $0.code == .malformedResponse && $0.reason.contains("HTTP 500, an error status") }

        let trailing = TransportResponse(status: 200, body: Array("<ErrorResponse/><ErrorResponse/>".utf8))
        self.expectError(trailing) { $0.code == .malformedResponse }
    }

    @Test(arguments: ["AccessKeyId", "SecretAccessKey", "SessionToken", "Expiration"])
    func missingCredentialFieldIsMalformed(_ field: String) throws {
        let xml = String(decoding: try STSFixtures.data("success-minimal.xml"), as: UTF8.self)
        let pattern = try Regex("<\(field)>[^<]*</\(field)>")
        let body = xml.replacing(pattern, with: "")
        self.expectError(TransportResponse(status: 200, body: Array(body.utf8))) { error in
            error.code == .malformedResponse && error.reason == "STS's answer has no <Credentials><\(field)> value"
        }
    }

    @Test func badExpirationAndPolicySizeAreMalformed() throws {
        let xml = String(decoding: try STSFixtures.data("success-minimal.xml"), as: UTF8.self)
        let badDate = xml.replacingOccurrences(of: "2026-11-21T13:00:00Z", with: "tomorrow")
        self.expectError(TransportResponse(status: 200, body: Array(badDate.utf8))) { error in
            error.code == .malformedResponse && error.reason.contains("<Expiration> 'tomorrow' is not an ISO 8601 date")
        }
        let badSize = xml.replacingOccurrences(of: "</Credentials>", with: "</Credentials><PackedPolicySize>lots</PackedPolicySize>")
        self.expectError(TransportResponse(status: 200, body: Array(badSize.utf8))) { error in
            error.code == .malformedResponse && error.reason.contains("<PackedPolicySize> 'lots'")
        }
    }

    @Test func excerptNeverQuotesTheToken() {
        let encoded = PercentEncoding.encode(Self.token)
        let echo = "<html><body>bad request: WebIdentityToken=\(Self.token) raw=\(encoded)</body>"
        self.expectError(TransportResponse(status: 400, body: Array(echo.utf8))) { error in
            error.code == .malformedResponse && !error.reason.contains(Self.token) && !error.reason.contains(encoded)
                && error.reason.contains("<redacted>")
        }
        let message = """
            <ErrorResponse><Error><Code>InvalidIdentityToken</Code><Message>token \(Self.token) is bad</Message></Error></ErrorResponse>
            """
        self.expectError(TransportResponse(status: 400, body: Array(message.utf8))) { error in
            error.serviceError?.message == "token <redacted> is bad" && !error.description.contains(Self.token)
        }
    }

    @Test func excerptIsShortAndPrintable() {
        let body = Array(("<html>" + String(repeating: "x\u{1}\t", count: 500) + "</html>").utf8)
        self.expectError(TransportResponse(status: 500, body: body)) { error in
            guard let quoted = error.reason.split(separator: ": '", maxSplits: 1).last else { return false }
            // The quote holds at most 240 characters of the body plus the ellipsis and the size.
            return quoted.count <= 240 + "…' (1513 bytes)".count && quoted.hasSuffix("…' (1513 bytes)")
                && quoted.hasPrefix("<html>x x x") && !error.reason.contains("\u{1}") && !error.reason.contains("\t")
        }
    }

    @Test func nestingIsBounded() {
        let deep = String(repeating: "<a>", count: 100) + String(repeating: "</a>", count: 100)
        self.expectError(TransportResponse(status: 200, body: Array(deep.utf8))) { error in
            error.code == .malformedResponse && error.reason.contains("nest deeper than 32 levels")
        }
    }

    @Test(arguments: [
        ("2026-11-21T13:00:00Z", 1_795_266_000.0),
        ("2026-11-21T13:00:00.5Z", 1_795_266_000.5),
        ("2026-11-21T13:00:00.123456Z", 1_795_266_000.123456),
        ("2026-11-21T14:00:00+01:00", 1_795_266_000.0),
        ("2026-11-21T13:00:00", 1_795_266_000.0),
    ])
    func parsesISO8601Variants(_ text: String, _ expected: Double) throws {
        let date = try #require(STSResponseDecoder.parseISO8601(text))
        #expect(abs(date.timeIntervalSince1970 - expected) < 0.001)
    }

    @Test(arguments: [
        ("Sat, 21 Nov 2026 12:00:00 GMT", 1_795_262_400.0 as Double?),
        ("Saturday, 21-Nov-26 12:00:00 GMT", 1_795_262_400.0),
        ("Sat Nov 21 12:00:00 2026", 1_795_262_400.0),
        ("Sat Nov  2 12:00:00 2026", 1_793_620_800.0),
        ("Sat, 31 Feb 2026 12:00:00 GMT", nil),
        ("Sat, 21 Nov 2026 25:00:00 GMT", nil),
        ("Sat, 21 Nov 2026 12:00:00 PST", nil),
        ("", nil),
    ])
    func parsesHTTPDates(_ text: String, _ expected: Double?) {
        #expect(STSResponseDecoder.HTTPDate.parse(text)?.timeIntervalSince1970 == expected)
    }
}
