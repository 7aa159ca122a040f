import Foundation
import HTTPTypes
import Hummingbird
import Testing
import WIFCredentials

@testable import WIFLocal
import WIFTestSupport

@Suite("RequestAuthenticator")
struct RequestAuthenticatorTests {
    // MARK: Accepted signatures

    @Test("accepts a header signature by the administrator")
    func adminHeader() throws {
        let fixture = try SigningFixture()
        let signed = try fixture.signed("PUT", body: Array("hello".utf8))
        let result = try fixture.authenticator.authenticate(SigningFixture.request(signed), service: "s3")
        guard case .admin(let keyId) = result.caller else { throw Failure("expected the administrator, got \(result.caller)") }
        #expect(keyId == SigningFixture.admin.accessKeyId)
        #expect(result.payloadHash == "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824")
        #expect(!result.presigned)
        #expect(result.streaming == nil)
    }

    @Test("accepts a header signature by a session, with its session token")
    func sessionHeader() throws {
        let fixture = try SigningFixture()
        let (session, credentials) = try fixture.session()
        let signed = try fixture.signed(credentials: credentials)
        let result = try fixture.authenticator.authenticate(SigningFixture.request(signed), service: "s3")
        guard case .session(let caller) = result.caller else { throw Failure("expected a session, got \(result.caller)") }
        #expect(caller == session)
        #expect(result.caller.accessKeyId == session.accessKeyId)
        // The second request is served from the session cache and still verified.
        let again = try fixture.authenticator.authenticate(SigningFixture.request(try fixture.signed(credentials: credentials)), service: "s3")
        #expect(again.caller.accessKeyId == session.accessKeyId)
    }

    @Test("accepts keys with spaces, plus signs and unicode, signed as sent under S3's rules")
    func encodedKeys() throws {
        let fixture = try SigningFixture()
        let path = "/wif-personal/" + SigV4Request.percentEncode("facebook/1001/a b+c/été.txt", keepingSlashes: true)
        let signed = try fixture.signed(path: path, query: "list-type=2&prefix=a%20b")
        let result = try fixture.authenticator.authenticate(SigningFixture.request(signed), service: "s3")
        #expect(result.caller.accessKeyId == SigningFixture.admin.accessKeyId)
    }

    @Test("accepts presigned URLs of the administrator and of a session")
    func presigned() throws {
        let fixture = try SigningFixture()
        let (session, credentials) = try fixture.session()
        for (keyId, url) in [
            (SigningFixture.admin.accessKeyId, try fixture.presigned()),
            (session.accessKeyId, try fixture.presigned(query: "response-content-type=text%2Fplain", credentials: credentials)),
        ] {
            let result = try fixture.authenticator.authenticate(SigningFixture.request("GET", target: url), service: "s3")
            #expect(result.caller.accessKeyId == keyId)
            #expect(result.presigned)
            #expect(result.payloadHash == "UNSIGNED-PAYLOAD")
        }
    }

    @Test("accepts a signature within the allowed clock skew, on either side")
    func withinSkew() throws {
        let fixture = try SigningFixture()
        for offset in [-899, 899] {
            let signed = try fixture.signed(date: fixture.clock.now.addingTimeInterval(TimeInterval(offset)))
            let result = try fixture.authenticator.authenticate(SigningFixture.request(signed), service: "s3")
            #expect(result.caller.accessKeyId == SigningFixture.admin.accessKeyId)
        }
    }

    @Test("accepts an HTTP Date header in place of X-Amz-Date, through the package canonicalisation")
    func dateHeader() throws {
        let fixture = try SigningFixture()
        let path = "/wif-personal/facebook/1001/"
        let date = "Wed, 01 May 2024 12:00:00 GMT"
        let headers = [
            SigV4Request.Header("host", SigningFixture.host), .init("date", date),
            .init("x-amz-content-sha256", RequestAuthenticator.emptyPayloadHash),
        ]
        let canonical = try SigV4Canonical.canonicalRequest(
            method: "GET", path: path, query: "", headers: headers, signedHeaderNames: ["date", "host", "x-amz-content-sha256"],
            payloadHash: RequestAuthenticator.emptyPayloadHash, rules: .s3)
        let scope = "20240501/us-east-1/s3/aws4_request"
        let stringToSign = SigV4Canonical.stringToSign(canonicalRequest: canonical, amzDate: "20240501T120000Z", scope: scope)
        let key = SigV4SigningKey(secretAccessKey: SigningFixture.admin.secretAccessKey, day: "20240501", region: "us-east-1", service: "s3")
        let signature = SigV4Canonical.signature(stringToSign: stringToSign, key: key)
        let authorization =
            "AWS4-HMAC-SHA256 Credential=\(SigningFixture.admin.accessKeyId)/\(scope), SignedHeaders=date;host;x-amz-content-sha256, Signature=\(signature)"
        let request = SigningFixture.request(
            "GET", target: path,
            headers: [("Date", date), ("x-amz-content-sha256", RequestAuthenticator.emptyPayloadHash), ("Authorization", authorization)])
        let result = try fixture.authenticator.authenticate(request, service: "s3")
        #expect(result.caller.accessKeyId == SigningFixture.admin.accessKeyId)
    }

    @Test("verifies the seed and chunk signatures of the S3 reference's aws-chunked upload")
    func chunkedVector() throws {
        // The example of "Transferring payload in multiple chunks" in the Amazon S3 API reference.
        let fixture = try SigningFixture { configuration in
            configuration.adminCredentials = AdminCredentials(
                accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
        }
        fixture.clock.advance(by: TimeInterval(1_369_353_600 - TestClock.signingStart))  // 2013-05-24T00:00:00Z
        let request = SigningFixture.request(
            "PUT", target: "/examplebucket/chunkObject.txt", host: "s3.amazonaws.com",
            headers: [
                ("x-amz-date", "20130524T000000Z"), ("x-amz-storage-class", "REDUCED_REDUNDANCY"),
                (
                    "Authorization",
                    "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,SignedHeaders=content-encoding;content-length;host;x-amz-content-sha256;x-amz-date;x-amz-decoded-content-length;x-amz-storage-class,Signature=4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9"
                ),
                ("x-amz-content-sha256", "STREAMING-AWS4-HMAC-SHA256-PAYLOAD"), ("Content-Encoding", "aws-chunked"),
                ("x-amz-decoded-content-length", "66560"), ("Content-Length", "66824"),
            ])
        let result = try fixture.authenticator.authenticate(request, service: "s3")
        #expect(result.payloadHash == "STREAMING-AWS4-HMAC-SHA256-PAYLOAD")
        let streaming = try #require(result.streaming)
        let first = streaming.chunkSignature(
            previousSignature: streaming.seedSignature, chunkHash: STSService.sha256Hex(.init(repeating: UInt8(ascii: "a"), count: 65_536)))
        #expect(first == "ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648")
        let second = streaming.chunkSignature(
            previousSignature: first, chunkHash: STSService.sha256Hex(.init(repeating: UInt8(ascii: "a"), count: 1024)))
        #expect(second == "0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497")
        let last = streaming.chunkSignature(previousSignature: second, chunkHash: RequestAuthenticator.emptyPayloadHash)
        #expect(last == "b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9")
    }

    // MARK: Tampering

    @Test("refuses a request whose signed parts changed after signing", arguments: ["header", "path", "query", "method", "payload hash"])
    func tampered(_ part: String) throws {
        let fixture = try SigningFixture()
        let (_, credentials) = try fixture.session()
        var signed = try fixture.signed(
            query: "versionId=1", headers: [.init("x-amz-meta-owner", "alice")], credentials: credentials)
        switch part {
        case "header": signed = signed.replacing("x-amz-meta-owner", with: "bob")
        case "path": signed.path = "/wif-personal/facebook/1002/notes.txt"
        case "query": signed.query = "versionId=2"
        case "method": signed.method = "DELETE"
        default: signed = signed.replacing("x-amz-content-sha256", with: "UNSIGNED-PAYLOAD")
        }
        let error = try #require(expectAWSError { _ = try fixture.authenticator.authenticate(SigningFixture.request(signed), service: "s3") })
        #expect(error.code == "SignatureDoesNotMatch")
        #expect(error.status == .forbidden)
        #expect(error.message == "The request signature we calculated does not match the signature you provided. Check your key and signing method.")
        #expect(error.detailValue("AWSAccessKeyId") == credentials.accessKeyId)
        #expect(error.detailValue("StringToSign")?.hasPrefix("AWS4-HMAC-SHA256\n20240501T120000Z\n20240501/us-east-1/s3/aws4_request\n") == true)
        // The session token never appears in the error.
        let token = try #require(credentials.sessionToken)
        #expect(error.detailValue("CanonicalRequest")?.contains("x-amz-security-token:<redacted>") == true)
        #expect(!error.s3Body(requestId: "R").contains(token))
    }

    @Test("refuses a tampered presigned URL and one signed with a wrong secret")
    func tamperedPresigned() throws {
        let fixture = try SigningFixture()
        let (_, credentials) = try fixture.session()
        let url = try fixture.presigned(credentials: credentials)
        let tampered = url.replacingOccurrences(of: "/1001/", with: "/1002/")
        var wrongSecret = credentials
        wrongSecret.secretAccessKey = "not-the-secret-of-this-session-000000000"
        let forged = try fixture.presigned(credentials: wrongSecret)
        for target in [tampered, forged] {
            let error = try #require(expectAWSError {
                _ = try fixture.authenticator.authenticate(SigningFixture.request("GET", target: target), service: "s3")
            })
            #expect(error.code == "SignatureDoesNotMatch")
            let token = try #require(credentials.sessionToken)
            #expect(!error.s3Body(requestId: "R").contains(token))
            #expect(!error.s3Body(requestId: "R").contains(SigV4Request.percentEncode(token, keepingSlashes: false)))
        }
    }

    @Test("refuses a header signature made with a wrong secret")
    func wrongSecret() throws {
        let fixture = try SigningFixture()
        let signed = try fixture.signed(credentials: AWSCredentials(accessKeyId: SigningFixture.admin.accessKeyId, secretAccessKey: "guessed"))
        let error = try #require(expectAWSError { _ = try fixture.authenticator.authenticate(SigningFixture.request(signed), service: "s3") })
        #expect(error.code == "SignatureDoesNotMatch")
    }

    @Test("refuses x-amz headers left out of the signature")
    func unsignedHeader() throws {
        let fixture = try SigningFixture()
        let signed = try fixture.signed().replacing("x-amz-meta-added", with: "later")
        let error = try #require(expectAWSError { _ = try fixture.authenticator.authenticate(SigningFixture.request(signed), service: "s3") })
        #expect(error.code == "AccessDenied")
        #expect(error.message == "There were headers present in the request which were not signed")
        #expect(error.detailValue("HeadersNotSigned") == "x-amz-meta-added")
    }

    // MARK: Time

    @Test("refuses a header signature more than 15 minutes off the clock", arguments: [-901, 901, -2 * 86_400])
    func skewed(_ offset: Int) throws {
        let fixture = try SigningFixture()
        let signed = try fixture.signed(date: fixture.clock.now.addingTimeInterval(TimeInterval(offset)))
        let error = try #require(expectAWSError { _ = try fixture.authenticator.authenticate(SigningFixture.request(signed), service: "s3") })
        #expect(error.code == "RequestTimeTooSkewed")
        #expect(error.status == .forbidden)
        #expect(error.message == "The difference between the request time and the current time is too large.")
        #expect(error.detailValue("ServerTime") == "2024-05-01T12:00:00Z")
        #expect(error.detailValue("MaxAllowedSkewMilliseconds") == "900000")
    }

    @Test("answers a skewed STS signature with STS's 'Signature expired' and 'not yet current'")
    func skewedSTS() throws {
        let fixture = try SigningFixture()
        let body = Array("Action=GetCallerIdentity&Version=2011-06-15".utf8)
        let early = try fixture.signed("POST", path: "/", body: body, service: "sts", date: fixture.clock.now.addingTimeInterval(-1000))
        let error = try #require(expectAWSError {
            _ = try fixture.authenticator.authenticate(
                SigningFixture.request(early, body: body), service: "sts", payloadHash: STSService.sha256Hex(.init(bytes: body)))
        })
        #expect(error.code == "SignatureDoesNotMatch")
        #expect(error.message == "Signature expired: 20240501T114320Z is now earlier than 20240501T114500Z (20240501T120000Z - 15 min.)")
        let late = try fixture.signed("POST", path: "/", body: body, service: "sts", date: fixture.clock.now.addingTimeInterval(1000))
        let lateError = try #require(expectAWSError {
            _ = try fixture.authenticator.authenticate(
                SigningFixture.request(late, body: body), service: "sts", payloadHash: STSService.sha256Hex(.init(bytes: body)))
        })
        #expect(lateError.message == "Signature not yet current: 20240501T121640Z is still later than 20240501T121500Z (20240501T120000Z + 15 min.)")
    }

    @Test("refuses a presigned URL after its expiry, and accepts it up to the last second")
    func presignExpiry() throws {
        let fixture = try SigningFixture()
        let url = try fixture.presigned(expires: 60)
        fixture.clock.advance(by: 60)
        _ = try fixture.authenticator.authenticate(SigningFixture.request("GET", target: url), service: "s3")
        fixture.clock.advance(by: 1)
        let error = try #require(expectAWSError {
            _ = try fixture.authenticator.authenticate(SigningFixture.request("GET", target: url), service: "s3")
        })
        #expect(error.code == "AccessDenied")
        #expect(error.message == "Request has expired")
        #expect(error.detailValue("X-Amz-Expires") == "60")
        #expect(error.detailValue("Expires") == "2024-05-01T12:01:00Z")
        #expect(error.detailValue("ServerTime") == "2024-05-01T12:01:01Z")
    }

    @Test("refuses a presigned URL whose X-Amz-Expires is over a week or missing")
    func presignParameters() throws {
        let fixture = try SigningFixture()
        let url = try fixture.presigned(expires: 604_800)
        let tooLong = url.replacingOccurrences(of: "X-Amz-Expires=604800", with: "X-Amz-Expires=604801")
        let tooLongError = try #require(expectAWSError {
            _ = try fixture.authenticator.authenticate(SigningFixture.request("GET", target: tooLong), service: "s3")
        })
        #expect(tooLongError.code == "AuthorizationQueryParametersError")
        #expect(tooLongError.message == "X-Amz-Expires must be less than a week (in seconds) that is 604800")
        let missing = url.replacingOccurrences(of: "X-Amz-Expires=604800&", with: "")
        let missingError = try #require(expectAWSError {
            _ = try fixture.authenticator.authenticate(SigningFixture.request("GET", target: missing), service: "s3")
        })
        #expect(missingError.code == "AuthorizationQueryParametersError")
        #expect(missingError.message.hasPrefix("Query-string authentication version 4 requires the X-Amz-Algorithm"))
    }

    // MARK: Credentials

    @Test("refuses an expired session: ExpiredToken, 400 for S3 and 403 for STS")
    func expiredSession() throws {
        let fixture = try SigningFixture()
        let (_, credentials) = try fixture.session(expiresIn: 900)
        fixture.clock.advance(by: 900)
        let signed = try fixture.signed(credentials: credentials)
        let s3 = try #require(expectAWSError { _ = try fixture.authenticator.authenticate(SigningFixture.request(signed), service: "s3") })
        #expect(s3.code == "ExpiredToken")
        #expect(s3.status == .badRequest)
        #expect(s3.message == "The provided token has expired.")

        let sts = try fixture.signed("POST", path: "/", credentials: credentials, service: "sts")
        let stsError = try #require(expectAWSError {
            _ = try fixture.authenticator.authenticate(SigningFixture.request(sts), service: "sts", payloadHash: RequestAuthenticator.emptyPayloadHash)
        })
        #expect(stsError.code == "ExpiredToken")
        #expect(stsError.status == .forbidden)
        #expect(stsError.message == "The security token included in the request is expired")
    }

    @Test("refuses an unknown access key id: InvalidAccessKeyId for S3, InvalidClientTokenId for STS")
    func unknownKey() throws {
        let fixture = try SigningFixture()
        let stranger = AWSCredentials(accessKeyId: "AKIAUNKNOWNKEY000001", secretAccessKey: "whatever")
        let signed = try fixture.signed(credentials: stranger)
        let error = try #require(expectAWSError { _ = try fixture.authenticator.authenticate(SigningFixture.request(signed), service: "s3") })
        #expect(error.code == "InvalidAccessKeyId")
        #expect(error.status == .forbidden)
        #expect(error.message == "The AWS Access Key Id you provided does not exist in our records.")
        #expect(error.detailValue("AWSAccessKeyId") == "AKIAUNKNOWNKEY000001")

        let sts = try fixture.signed("POST", path: "/", credentials: stranger, service: "sts")
        let stsError = try #require(expectAWSError { _ = try fixture.authenticator.authenticate(SigningFixture.request(sts), service: "sts") })
        #expect(stsError.code == "InvalidClientTokenId")
        #expect(stsError.status == .forbidden)
        #expect(stsError.message == "The security token included in the request is invalid.")
    }

    @Test("refuses a session's key id without its token")
    func sessionKeyWithoutToken() throws {
        let fixture = try SigningFixture()
        var (_, credentials) = try fixture.session()
        credentials.sessionToken = nil
        let signed = try fixture.signed(credentials: credentials)
        let error = try #require(expectAWSError { _ = try fixture.authenticator.authenticate(SigningFixture.request(signed), service: "s3") })
        #expect(error.code == "InvalidAccessKeyId")
    }

    @Test("refuses a session token used with another session's key")
    func tokenKeyMismatch() throws {
        let fixture = try SigningFixture()
        let (_, alice) = try fixture.session(user: "1001")
        let (_, bob) = try fixture.session(user: "1002")
        let mixed = AWSCredentials(accessKeyId: bob.accessKeyId, secretAccessKey: bob.secretAccessKey, sessionToken: alice.sessionToken)
        let signed = try fixture.signed(credentials: mixed)
        let error = try #require(expectAWSError { _ = try fixture.authenticator.authenticate(SigningFixture.request(signed), service: "s3") })
        #expect(error.code == "InvalidToken")
        #expect(error.status == .badRequest)
        #expect(error.message == "The provided token is malformed or otherwise invalid.")
    }

    @Test("refuses a garbage, altered or foreign session token", arguments: ["garbage", "altered", "foreign"])
    func invalidToken(_ kind: String) throws {
        let fixture = try SigningFixture()
        var (_, credentials) = try fixture.session()
        let token = try #require(credentials.sessionToken)
        switch kind {
        case "garbage":
            credentials.sessionToken = "not-a-session-token"
        case "altered":
            var bytes = try #require(Data(base64Encoded: token))
            bytes[bytes.count / 2] ^= 0x01
            credentials.sessionToken = bytes.base64EncodedString()
        default:
            // Sealed by another stack, with another key.
            let other = try SigningFixture()
            credentials = try other.session().credentials
        }
        let signed = try fixture.signed(credentials: credentials)
        let error = try #require(expectAWSError { _ = try fixture.authenticator.authenticate(SigningFixture.request(signed), service: "s3") })
        #expect(error.code == "InvalidToken")
        let sts = try fixture.signed("POST", path: "/", credentials: credentials, service: "sts")
        let stsError = try #require(expectAWSError { _ = try fixture.authenticator.authenticate(SigningFixture.request(sts), service: "sts") })
        #expect(stsError.code == "InvalidClientTokenId")
    }

    @Test("refuses a session token sent with the administrator's key")
    func adminWithToken() throws {
        let fixture = try SigningFixture()
        let (_, session) = try fixture.session()
        var credentials = fixture.adminCredentials
        credentials.sessionToken = session.sessionToken
        let signed = try fixture.signed(credentials: credentials)
        let error = try #require(expectAWSError { _ = try fixture.authenticator.authenticate(SigningFixture.request(signed), service: "s3") })
        #expect(error.code == "InvalidToken")
    }
}

/// A test failure with a message.
private struct Failure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
