import Foundation
import HTTPTypes
import S3Partition
import Testing
import WIFCredentials

@testable import ServerApp

/// Which answer each STS and S3 failure gets.
@Suite struct FileServerErrorTests {
    @Test(arguments: [
        ("InvalidIdentityToken", 400, FileServerError.Code.unauthorized, HTTPResponse.Status.unauthorized),
        ("ExpiredTokenException", 400, .unauthorized, .unauthorized),
        ("IDPRejectedClaim", 403, .unauthorized, .unauthorized),
        ("AccessDenied", 403, .accessDenied, .forbidden),
        ("IDPCommunicationError", 400, .upstreamFailure, .badGateway),
        ("InternalFailure", 500, .upstreamFailure, .badGateway),
    ])
    func stsRefusals(code: String, httpStatus: Int, expected: FileServerError.Code, status: HTTPResponse.Status) {
        let service = AWSServiceError(code: code, message: "Refused.", requestId: "req-1", httpStatus: httpStatus)
        let error = FileServerError.federation(.service(service))
        #expect(error.code == expected)
        #expect(error.status == status)
        #expect(error.requestId == "req-1")
        if expected != .upstreamFailure {
            #expect(error.message.contains("(\(code): Refused.)"))
        }
    }

    @Test func localTokenProblemsAreUnauthorizedAndNetworkFailuresAreBadGateway() {
        #expect(FileServerError.federation(.tokenExpired("expired at noon")).status == .unauthorized)
        #expect(FileServerError.federation(.invalidParameter("WebIdentityToken is 3 bytes")).status == .unauthorized)
        let network = FileServerError.federation(.network("could not reach STS at sts.example.com"))
        #expect(network.status == .badGateway)
        #expect(network.message == "could not federate the token (network)")
    }

    @Test(arguments: [
        (S3Error.Code.accessDenied, 403, FileServerError.Code.accessDenied, HTTPResponse.Status.forbidden),
        (.noSuchKey, 404, .noSuchFile, .notFound),
        (.expiredToken, 400, .unauthorized, .unauthorized),
        (.slowDown, 503, .upstreamFailure, .badGateway),
        (.internalError, 500, .upstreamFailure, .badGateway),
    ])
    func s3Refusals(code: S3Error.Code, httpStatus: Int, expected: FileServerError.Code, status: HTTPResponse.Status) {
        let error = FileServerError.storage(S3Error(code: code, message: "S3 said no", httpStatus: httpStatus, requestId: "s3-1"), name: "a.txt")
        #expect(error.code == expected)
        #expect(error.status == status)
    }

    @Test func aRefusedNameIsABadRequestNamingTheRule() throws {
        let prefix = try PartitionPrefix.make(template: "google/{id}/", userId: "alice")
        #expect {
            _ = try prefix.key(for: "../bob/x")
        } throws: { thrown in
            guard let s3 = thrown as? S3Error else { return false }
            let error = FileServerError.storage(s3, name: "../bob/x")
            return error.code == .invalidName && error.status == .badRequest
                && error.rule == "must not contain a '.' or '..' segment"
                && error.message == "name '../bob/x' is refused: it must not contain a '.' or '..' segment"
        }
    }

    @Test func credentialFailuresDuringAnS3RequestAreAnsweredAsFederationFailures() {
        let refused = AWSServiceError(code: "ExpiredTokenException", message: "Token expired.", httpStatus: 400)
        let error = FileServerError.storage(
            S3Error(code: .credentialsUnavailable, message: "no credentials", credentialsError: .service(refused)), name: nil)
        #expect(error.code == .unauthorized)
    }

    @Test func aMissingFileIsNotFoundNamingTheFile() {
        let named = FileServerError.noSuchFile("notes/today.txt")
        #expect(named.status == .notFound)
        #expect(named.message == "there is no file named 'notes/today.txt' in your folder")
        #expect(FileServerError.noSuchFile(nil).message == "no such file in your folder")
    }
}
