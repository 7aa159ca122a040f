import Hummingbird

// Placeholder until the STS endpoint lands.
struct STSService: Sendable {
    init(state: LocalState, verifier: TokenVerifier, authenticator: RequestAuthenticator) {}

    func respond(to request: Request, body: ByteBuffer) async -> Response {
        AWSErrorResponse("InvalidAction", "STS is not available").stsResponse(requestId: RequestID.make())
    }
}
