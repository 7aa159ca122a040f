import Foundation
import HTTPTypes
import Hummingbird
import Testing
import WIFCredentials

@testable import WIFLocal
import WIFTestSupport

extension RequestAuthenticatorTests {
    // MARK: Malformed or missing authentication

    @Test("treats a request without a signature as anonymous")
    func anonymous() throws {
        let fixture = try SigningFixture()
        let request = SigningFixture.request("GET", target: "/wif-personal/facebook/1001/notes.txt?versionId=1")
        #expect(!RequestAuthenticator.carriesSignature(request))
        let s3 = try #require(expectAWSError { _ = try fixture.authenticator.authenticate(request, service: "s3") })
        #expect(s3.code == "AccessDenied")
        #expect(s3.status == .forbidden)
        let sts = try #require(expectAWSError { _ = try fixture.authenticator.authenticate(request, service: "sts") })
        #expect(sts.code == "MissingAuthenticationToken")
        #expect(sts.message == "Request is missing Authentication Token")
        #expect(RequestAuthenticator.carriesSignature(SigningFixture.request(try fixture.signed())))
        #expect(RequestAuthenticator.carriesSignature(SigningFixture.request("GET", target: try fixture.presigned())))
    }

    @Test("refuses a credential scope of another region, service or terminator")
    func scope() throws {
        let fixture = try SigningFixture()
        let otherRegion = SigningFixture.request(try fixture.signed(region: "eu-west-3"))
        let region = try #require(expectAWSError { _ = try fixture.authenticator.authenticate(otherRegion, service: "s3") })
        #expect(region.code == "AuthorizationHeaderMalformed")
        #expect(region.message == "The authorization header is malformed; the region 'eu-west-3' is wrong; expecting 'us-east-1'")
        #expect(region.detailValue("Region") == "us-east-1")

        let otherRegionURL = SigningFixture.request("GET", target: try fixture.presigned(region: "eu-west-3"))
        let presignedRegion = try #require(expectAWSError { _ = try fixture.authenticator.authenticate(otherRegionURL, service: "s3") })
        #expect(presignedRegion.code == "AuthorizationQueryParametersError")
        #expect(presignedRegion.message == "Error parsing the X-Amz-Credential parameter; the region 'eu-west-3' is wrong; expecting 'us-east-1'")

        let otherService = SigningFixture.request(try fixture.signed(service: "sts", rules: .s3))
        let service = try #require(expectAWSError { _ = try fixture.authenticator.authenticate(otherService, service: "s3") })
        #expect(service.code == "AuthorizationHeaderMalformed")
        #expect(service.message == "The authorization header is malformed; incorrect service \"sts\". This endpoint belongs to \"s3\".")

        let stsOtherRegion = SigningFixture.request(try fixture.signed("POST", path: "/", service: "sts", region: "eu-west-3"))
        let stsRegion = try #require(expectAWSError { _ = try fixture.authenticator.authenticate(stsOtherRegion, service: "sts") })
        #expect(stsRegion.code == "SignatureDoesNotMatch")
        #expect(stsRegion.message == "Credential should be scoped to a valid region, not 'eu-west-3'. ")

        let signed = try fixture.signed()
        let authorization = try #require(signed.headerValue("Authorization"))
        let terminator = signed.replacing("Authorization", with: authorization.replacingOccurrences(of: "/aws4_request", with: "/aws5_request"))
        let terminatorError = try #require(expectAWSError {
            _ = try fixture.authenticator.authenticate(SigningFixture.request(terminator), service: "s3")
        })
        #expect(terminatorError.message == "The authorization header is malformed; incorrect terminal \"aws5_request\". This endpoint uses \"aws4_request\".")
    }

    @Test("refuses malformed Authorization headers with AWS's codes")
    func malformedHeaders() throws {
        let fixture = try SigningFixture()
        let signed = try fixture.signed()
        let authorization = try #require(signed.headerValue("Authorization"))
        let signatureStart = try #require(authorization.range(of: ", Signature=")).lowerBound
        let withoutSignature = String(authorization[..<signatureStart])
        let cases: [(String, String, String)] = [
            (withoutSignature, "AuthorizationHeaderMalformed",
             "The authorization header is malformed; the authorization header requires three components: Credential, SignedHeaders, and Signature."),
            ("AWS \(SigningFixture.admin.accessKeyId):c2lnbmF0dXJl", "InvalidRequest",
             "The authorization mechanism you have provided is not supported. Please use AWS4-HMAC-SHA256."),
            (authorization.replacingOccurrences(of: "Credential=\(SigningFixture.admin.accessKeyId)/", with: "Credential="),
             "AuthorizationHeaderMalformed",
             "The authorization header is malformed; the Credential is mal-formed; expecting \"<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/aws4_request\"."),
        ]
        for (value, code, message) in cases {
            let error = try #require(expectAWSError {
                _ = try fixture.authenticator.authenticate(SigningFixture.request(signed.replacing("Authorization", with: value)), service: "s3")
            })
            #expect(error.code == code)
            #expect(error.message == message)
        }

        let sts = try fixture.signed("POST", path: "/", service: "sts")
        let stsAuthorization = try #require(sts.headerValue("Authorization"))
        let signedHeadersStart = try #require(stsAuthorization.range(of: ", SignedHeaders=")).lowerBound
        let stripped = String(stsAuthorization[..<signedHeadersStart])
        let stsError = try #require(expectAWSError {
            _ = try fixture.authenticator.authenticate(SigningFixture.request(sts.replacing("Authorization", with: stripped)), service: "sts")
        })
        #expect(stsError.code == "IncompleteSignature")
        #expect(stsError.message == "Authorization header requires 'Signature' parameter. Authorization header requires 'SignedHeaders' parameter.")
    }

    @Test("refuses a request signed both ways, and one without a date")
    func mechanismsAndDate() throws {
        let fixture = try SigningFixture()
        let signed = try fixture.signed()
        var both = signed
        both.query = String(try fixture.presigned().split(separator: "?")[1])
        let bothError = try #require(expectAWSError { _ = try fixture.authenticator.authenticate(SigningFixture.request(both), service: "s3") })
        #expect(bothError.code == "InvalidArgument")

        var undated = signed
        undated.headers.removeAll { $0.name.lowercased() == "x-amz-date" }
        let dateError = try #require(expectAWSError { _ = try fixture.authenticator.authenticate(SigningFixture.request(undated), service: "s3") })
        #expect(dateError.code == "AccessDenied")
        #expect(dateError.message == "AWS authentication requires a valid Date or x-amz-date header")
    }

    @Test("requires x-amz-content-sha256 for S3 header signatures and checks its form")
    func contentSHA256() throws {
        let fixture = try SigningFixture()
        let withoutHeader = SigV4Signer.Rules(normalizesPath: false, encodesPathTwice: false, signsContentSHA256Header: false)
        let signed = try fixture.signed(rules: withoutHeader)
        let missing = try #require(expectAWSError { _ = try fixture.authenticator.authenticate(SigningFixture.request(signed), service: "s3") })
        #expect(missing.code == "InvalidRequest")
        #expect(missing.message == "Missing required header for this request: x-amz-content-sha256")

        let invalid = try #require(expectAWSError {
            _ = try fixture.authenticator.authenticate(
                SigningFixture.request(try fixture.signed().replacing("x-amz-content-sha256", with: "abc")), service: "s3")
        })
        #expect(invalid.code == "InvalidArgument")
        #expect(invalid.detailValue("ArgumentName") == "x-amz-content-sha256")
    }

    // MARK: STS payloads

    @Test("verifies an STS form body through the payload hash the caller computes")
    func stsBody() throws {
        let fixture = try SigningFixture()
        let body = Array("Action=GetCallerIdentity&Version=2011-06-15".utf8)
        let signed = try fixture.signed(
            "POST", path: "/", headers: [.init("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")], body: body,
            service: "sts")
        let result = try fixture.authenticator.authenticate(
            SigningFixture.request(signed, body: body), service: "sts", payloadHash: STSService.sha256Hex(.init(bytes: body)))
        #expect(result.caller.accessKeyId == SigningFixture.admin.accessKeyId)
        let tampered = Array("Action=GetCallerIdentity&Version=2011-06-16".utf8)
        let error = try #require(expectAWSError {
            _ = try fixture.authenticator.authenticate(
                SigningFixture.request(signed, body: tampered), service: "sts", payloadHash: STSService.sha256Hex(.init(bytes: tampered)))
        })
        #expect(error.code == "SignatureDoesNotMatch")
        #expect(error.details.isEmpty)
    }
}
