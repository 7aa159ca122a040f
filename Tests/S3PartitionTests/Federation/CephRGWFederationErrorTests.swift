import NIOHTTP1
import Testing
import WIFCredentials

@testable import S3Partition

/// IAM error answers as Ceph RGW and AWS send them, including the ones that are not error documents.
@Suite("Ceph RGW IAM errors")
struct CephRGWFederationErrorTests {
    static func error(_ status: Int, _ body: String, requestId: String? = nil) -> S3Error {
        var headers = HTTPHeaders()
        if let requestId { headers.add(name: "x-amz-request-id", value: requestId) }
        return CephRGWFederation.error(action: "CreateRole", status: status, headers: headers, body: Array(body.utf8))
    }

    @Test func rgwsS3ShapedErrorWithAnEmptyMessage() {
        let error = Self.error(
            409,
            #"<?xml version="1.0" encoding="UTF-8"?><Error><Code>EntityAlreadyExists</Code><Message></Message><RequestId>tx0001-default</RequestId><HostId>3719-default-default</HostId></Error>"#)
        #expect(error.code == .entityAlreadyExists)
        #expect(error.httpStatus == 409)
        #expect(error.requestId == "tx0001-default")
        #expect(error.message == "the gateway refused IAM CreateRole")
        #expect(error.description == "S3Error.EntityAlreadyExists: the gateway refused IAM CreateRole (HTTP 409, request id tx0001-default)")
    }

    @Test func awsShapedErrorWithAMessage() {
        let error = Self.error(
            400,
            #"<ErrorResponse xmlns="https://iam.amazonaws.com/doc/2010-05-08/"><Error><Type>Sender</Type><Code>MalformedPolicyDocument</Code><Message>Syntax errors in policy.</Message></Error><RequestId>abc-123</RequestId></ErrorResponse>"#)
        #expect(error.code == .malformedPolicyDocument)
        #expect(error.message == "the gateway refused IAM CreateRole: Syntax errors in policy.")
        #expect(error.requestId == "abc-123")
    }

    @Test(arguments: [
        (404, "", S3Error.Code.noSuchEntity), (409, "<Error><Code>", .entityAlreadyExists), (400, "Terminate parsing due to Handler error", S3Error.Code("BadRequest")),
        (403, "<html>denied</html>", .accessDenied), (500, "<Error><Code></Code></Error>", .internalError), (418, "", S3Error.Code("HTTP418")),
    ])
    func answersThatAreNotErrorDocumentsGoByTheirStatus(status: Int, body: String, code: S3Error.Code) {
        let error = Self.error(status, body, requestId: "from-header")
        #expect(error.code == code)
        #expect(error.httpStatus == status)
        #expect(error.requestId == "from-header")
        #expect(error.message.hasPrefix("the gateway refused IAM CreateRole"))
    }

    @Test func missingEntitiesAndTransientFailures() {
        #expect(CephRGWFederation.isMissing(Self.error(404, "")))
        #expect(CephRGWFederation.isMissing(Self.error(400, "<Error><Code>NoSuchEntity</Code></Error>")))
        #expect(!CephRGWFederation.isMissing(Self.error(409, "")))
        #expect(CephRGWFederation.mayPass(Self.error(503, "")))
        #expect(CephRGWFederation.mayPass(S3Error(code: .network)))
        #expect(!CephRGWFederation.mayPass(Self.error(400, "")))
    }

    @Test func badEndpointsAreRefused() throws {
        for endpoint in ["127.0.0.1:8000", "ftp://host", "http://host/path", "http://host?x=1", ""] {
            let error = try #require(throws: S3Error.self) {
                try CephRGWFederation(
                    configuration: .init(endpoint: endpoint), credentialProvider: StaticCredentialProvider(accessKeyId: "AK", secretAccessKey: "SK"))
            }
            #expect(error.code == .invalidConfiguration, "\(endpoint)")
            #expect(error.message.contains("gateway endpoint"), "\(endpoint)")
        }
        _ = try CephRGWFederation(
            configuration: .init(endpoint: "http://127.0.0.1:8000/"), credentialProvider: StaticCredentialProvider(accessKeyId: "AK", secretAccessKey: "SK"))
    }
}

extension CephRGWFederationErrorTests {
    @Test func aRefusedAdministratorIsToldWhatToCheck() {
        let error = Self.error(403, "<Error><Code>AccessDenied</Code><Message></Message></Error>")
        #expect(error.code == .accessDenied)
        #expect(error.message.contains("check the administrator's access key and secret"))
        #expect(!Self.error(409, "<Error><Code>EntityAlreadyExists</Code></Error>").message.contains("administrator"))
    }
}
