import Hummingbird

// Placeholder until the S3 endpoint lands.
struct S3Service: Sendable {
    init(state: LocalState, authenticator: RequestAuthenticator) throws(LocalStackError) {}

    func respond(to request: Request) async -> Response {
        AWSErrorResponse("NotImplemented", "S3 is not available", status: .notImplemented).s3Response(requestId: RequestID.make())
    }
}
