import Foundation
import Hummingbird
import Logging
import WIFFoundation

/// The local STS: `AssumeRoleWithWebIdentity` (unsigned, form POST or GET query) and `GetCallerIdentity`
/// (signed with SigV4 for `sts`), in the query API of version 2011-06-15, answering with AWS's XML
/// documents and AWS's error codes in the `ErrorResponse` shape.
///
/// Roles are prepared once (trust policies parsed and compiled), so a call costs the token's verification,
/// one policy evaluation and sealing the session.
struct STSService: Sendable {
    /// Verifies a web-identity token for a `ProviderId`.
    typealias Verify = @Sendable (_ token: String, _ providerId: String?) async throws(AWSErrorResponse) -> VerifiedToken

    /// The query-API version served.
    static let version = "2011-06-15"
    /// The namespace of STS documents.
    static let namespace = "https://sts.amazonaws.com/doc/2011-06-15/"

    let state: LocalState
    let authenticator: RequestAuthenticator
    let verify: Verify
    /// The configured roles by ARN.
    let roles: [String: TrustedRole]
    /// Trust contexts made before, by what they are made of.
    let trustContexts = BoundedCache<TrustContextKey, TrustContext>(capacity: STSService.trustContextCapacity)

    /// Creates the service.
    /// - Parameters:
    ///   - state: The stack's state.
    ///   - verifier: Verifies web-identity tokens.
    ///   - authenticator: Verifies signed calls.
    init(state: LocalState, verifier: TokenVerifier, authenticator: RequestAuthenticator) {
        self.init(state: state, authenticator: authenticator) { token, providerId throws(AWSErrorResponse) in
            try await verifier.verify(token, providerId: providerId)
        }
    }

    /// Creates the service with a token verification of the caller's choosing.
    init(state: LocalState, authenticator: RequestAuthenticator, verify: @escaping Verify) {
        self.state = state
        self.authenticator = authenticator
        self.verify = verify
        var roles: [String: TrustedRole] = [:]
        for definition in state.configuration.roles {
            let arn = state.configuration.arn(of: definition)
            let role = TrustedRole(definition, arn: arn)
            if let problem = role.problem {
                state.logger.error("role cannot be assumed: \(problem)", metadata: ["wif.local.sts.role": "\(arn)"])
            }
            roles[arn] = role
        }
        self.roles = roles
    }

    /// Answers an STS call.
    /// - Parameters:
    ///   - request: The request; its parameters are in the query or, for a form POST, in `body`.
    ///   - body: The request's body as received.
    /// - Returns: The action's XML document, or an `ErrorResponse` document.
    func respond(to request: Request, body: ByteBuffer) async -> Response {
        let requestId = RequestID.uuid()
        let parameters = STSParameters(request: request, body: body)
        do {
            return try await self.perform(parameters, request: request, body: body, requestId: requestId)
        } catch {
            self.state.logger.info(
                "STS call refused",
                metadata: [
                    "wif.local.sts.request_id": "\(requestId)", "wif.local.sts.action": "\(parameters["Action"] ?? "")",
                    "wif.local.sts.error_code": "\(error.code)",
                ])
            return error.stsResponse(requestId: requestId)
        }
    }

    private func perform(
        _ parameters: STSParameters, request: Request, body: ByteBuffer, requestId: String
    ) async throws(AWSErrorResponse) -> Response {
        guard let action = parameters["Action"], !action.isEmpty else {
            throw AWSErrorResponse("MissingAction", "The request is missing an action or a required parameter.")
        }
        if let version = parameters["Version"], version != Self.version {
            throw AWSErrorResponse("InvalidAction", "Could not find operation \(action.prefix(64)) for version \(version.prefix(32))")
        }
        switch action {
        case "AssumeRoleWithWebIdentity":
            return try await self.assumeRoleWithWebIdentity(
                parameters, secureTransport: request.head.scheme == "https", requestId: requestId)
        case "GetCallerIdentity":
            return try self.getCallerIdentity(request, body: body, requestId: requestId)
        default:
            throw AWSErrorResponse("InvalidAction", "Could not find operation \(action.prefix(64)) for version \(Self.version)")
        }
    }

    /// The current time in whole seconds since 1970.
    var now: Int64 {
        Int64(self.state.timeSource.now().timeIntervalSince1970.rounded(.down))
    }

    /// A success document: `<ActionResponse><ActionResult>…</ActionResult><ResponseMetadata>…`.
    static func document(_ action: String, requestId: String, result: (inout XMLWriter) -> Void) -> Response {
        var xml = XMLWriter(declaration: false)
        xml.open("\(action)Response", attributes: [("xmlns", Self.namespace)])
        xml.open("\(action)Result")
        result(&xml)
        xml.close("\(action)Result")
        xml.open("ResponseMetadata")
        xml.element("RequestId", requestId)
        xml.close("ResponseMetadata")
        xml.close("\(action)Response")
        return .xml(xml.document, requestId: requestId)
    }
}
