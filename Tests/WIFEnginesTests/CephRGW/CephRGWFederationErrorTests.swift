import NIOHTTP1
import Testing
import WIFCredentials

@testable import WIFEngines

/// IAM error answers as Ceph RGW and AWS send them, including the ones that are not error documents.
@Suite("Ceph RGW IAM errors")
struct CephRGWFederationErrorTests {
    static func error(_ status: Int, _ body: String, requestId: String? = nil) -> EngineSetupError {
        CephRGWFederation.error(action: "CreateRole", status: status, requestId: requestId, body: Array(body.utf8))
    }

    @Test func rgwsS3ShapedErrorWithAnEmptyMessage() {
        let error = Self.error(
            409,
            #"<?xml version="1.0" encoding="UTF-8"?><Error><Code>EntityAlreadyExists</Code><Message></Message><RequestId>tx0001-default</RequestId><HostId>3719-default-default</HostId></Error>"#)
        #expect(error.code == .entityAlreadyExists)
        #expect(error.httpStatus == 409)
        #expect(error.requestId == "tx0001-default")
        #expect(error.reason == "the gateway refused IAM CreateRole")
        #expect(error.description == "EngineSetupError.EntityAlreadyExists: the gateway refused IAM CreateRole (HTTP 409, request id tx0001-default)")
    }

    @Test func awsShapedErrorWithAMessage() {
        let error = Self.error(
            400,
            #"<ErrorResponse xmlns="https://iam.amazonaws.com/doc/2010-05-08/"><Error><Type>Sender</Type><Code>MalformedPolicyDocument</Code><Message>Syntax errors in policy.</Message></Error><RequestId>abc-123</RequestId></ErrorResponse>"#)
        #expect(error.code == .malformedPolicyDocument)
        #expect(error.reason == "the gateway refused IAM CreateRole: Syntax errors in policy.")
        #expect(error.requestId == "abc-123")
    }

    @Test(arguments: [
        (404, "", EngineSetupError.Code.noSuchEntity), (409, "<Error><Code>", .entityAlreadyExists), (400, "Terminate parsing due to Handler error", EngineSetupError.Code("BadRequest")),
        (403, "<html>denied</html>", .accessDenied), (500, "<Error><Code></Code></Error>", .internalError), (418, "", EngineSetupError.Code("HTTP418")),
    ])
    func answersThatAreNotErrorDocumentsGoByTheirStatus(status: Int, body: String, code: EngineSetupError.Code) {
        let error = Self.error(status, body, requestId: "from-header")
        #expect(error.code == code)
        #expect(error.httpStatus == status)
        #expect(error.requestId == "from-header")
        #expect(error.reason.hasPrefix("the gateway refused IAM CreateRole"))
    }

    @Test func missingEntitiesAndTransientFailures() {
        #expect(CephRGWFederation.isMissing(Self.error(404, "")))
        #expect(CephRGWFederation.isMissing(Self.error(400, "<Error><Code>NoSuchEntity</Code></Error>")))
        #expect(!CephRGWFederation.isMissing(Self.error(409, "")))
        #expect(CephRGWFederation.mayPass(Self.error(503, "")))
        #expect(CephRGWFederation.mayPass(EngineSetupError(code: .network)))
        #expect(!CephRGWFederation.mayPass(Self.error(400, "")))
    }

    @Test func badEndpointsAreRefused() throws {
        for endpoint in ["127.0.0.1:8000", "ftp://host", "http://host/path", "http://host?x=1", ""] {
            let error = try #require(throws: EngineSetupError.self) {
                try CephRGWFederation(
                    configuration: .init(endpoint: endpoint), credentialProvider: StaticCredentialProvider(accessKeyId: "AK", secretAccessKey: "SK"))
            }
            #expect(error.code == .invalidConfiguration, "\(endpoint)")
            #expect(error.reason.contains("gateway endpoint"), "\(endpoint)")
        }
        _ = try CephRGWFederation(
            configuration: .init(endpoint: "http://127.0.0.1:8000/"), credentialProvider: StaticCredentialProvider(accessKeyId: "AK", secretAccessKey: "SK"))
    }
}

extension CephRGWFederationErrorTests {
    @Test func aRefusedAdministratorIsToldWhatToCheck() {
        let error = Self.error(403, "<Error><Code>AccessDenied</Code><Message></Message></Error>")
        #expect(error.code == .accessDenied)
        #expect(error.reason.contains("check the administrator's access key and secret"))
        #expect(!Self.error(409, "<Error><Code>EntityAlreadyExists</Code></Error>").reason.contains("administrator"))
    }
}
