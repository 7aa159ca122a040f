import AccessRules
import Crypto
import WIFCredentials
import Foundation
import Hummingbird
import NIOCore
import PolicyEngine
import WIFAPIServer
import WIFFoundation

/// `AWS_IAM` for the local APIs: the signature is verified by the same verifier as S3's and STS's
/// (service `execute-api`), and `execute-api:Invoke` on the call's resource is decided by the same
/// authorizer, with the session's role, session policy and web-identity keys.
struct LocalAPISignatureVerifier: APISignatureVerifier {
    let authenticator: RequestAuthenticator
    let authorizer: S3Authorizer
    let timeSource: TimeSource
    let accountId: String

    func verify(_ request: Request, body: ByteBuffer, resource: String) async throws(APIAuthorizationError) -> APISignedCaller {
        let payloadHash = body.readableBytes == 0
            ? RequestAuthenticator.emptyPayloadHash : TokenEncoding.hex(Array(SHA256.hash(data: body.readableBytesView)))
        let authenticated: AuthenticatedRequest
        do {
            authenticated = try self.authenticator.authenticate(request, service: "execute-api", payloadHash: payloadHash)
        } catch {
            throw .unauthorized("\(error.code): \(error.message)", mode: .iam)
        }
        guard case .session(let session) = authenticated.caller else {
            return APISignedCaller(roleArn: "arn:aws:iam::\(self.accountId):root", role: .authenticated)
        }
        guard let context = self.authorizer.serviceContext(for: session, time: self.timeSource.now()) else {
            throw .forbidden("the session's identity cannot be read", mode: .iam)
        }
        let decision = self.authorizer.decide(
            AuthorizationRequest(action: "execute-api:Invoke", resource: resource, context: context), bucket: nil, caller: .session(session))
        if case .denied(let message) = decision { throw .forbidden(message, mode: .iam) }
        let identity = session.identity
        let guest = identity.amr?.contains("unauthenticated") ?? false
        var claims: [String: AccessRules.ClaimValue] = ["sub": .string(identity.subject)]
        if let issuer = identity.issuer { claims["iss"] = .string(issuer) }
        return APISignedCaller(roleArn: session.roleArn, role: guest ? .unauthenticated : .authenticated, claims: claims)
    }
}
