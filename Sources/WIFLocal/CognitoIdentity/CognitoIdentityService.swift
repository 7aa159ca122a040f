import Foundation
import HTTPTypes
import Hummingbird
import Logging
import WIFFoundation
import WIFAPIServer

/// The local Cognito Identity (identity pools): the JSON 1.1 API (`POST /` with
/// `X-Amz-Target: AWSCognitoIdentityService.<Operation>`) for `GetId`, `GetCredentialsForIdentity`,
/// `GetOpenIdToken`, `DescribeIdentity` and `ListIdentities`, answering errors in AWS's shape
/// (`{"__type": "NotAuthorizedException", "message": …}`).
///
/// Logins are verified by the stack's token verifier, sessions are sealed by its STS with the role's
/// trust policy applied, and the identity id is the session's `cognito-identity.amazonaws.com:sub`, so S3
/// enforces per-identity policies. Like AWS, the first three operations are unsigned; the two
/// inspection operations are unsigned too, since the stack serves loopback development use.
struct CognitoIdentityService: Sendable {
    /// The prefix of the `X-Amz-Target` header of the service's calls.
    static let targetPrefix = "AWSCognitoIdentityService."
    /// The answers' content type.
    static let contentType = "application/x-amz-json-1.1"
    /// The largest request body: ten logins of AWS's largest token fit.
    static let maximumBodySize = 1 << 20
    /// The session name of the credentials, as AWS names them.
    static let sessionName = "CognitoIdentityCredentials"
    /// The lifetime of the credentials, in seconds.
    static let credentialsLifetime = 3600
    /// The lifetime of `GetOpenIdToken`'s tokens, in seconds.
    static let openIdTokenLifetime = 600
    /// The most logins in one call.
    static let maximumLogins = 10

    let state: LocalState
    let sts: STSService
    let tokens: DevelopmentTokenIssuer
    let registry: IdentityRegistry

    /// Creates the service of a stack.
    /// - Throws: ``LocalStackError`` when a key cannot be read or created.
    init(state: LocalState, sts: STSService) throws(LocalStackError) {
        self.state = state
        self.sts = sts
        self.tokens = try DevelopmentTokenIssuer(state: state)
        self.registry = try IdentityRegistry.opened(
            key: try state.data.secret(named: IdentityRegistry.keyFileName), journalPath: state.data.root + "/" + IdentityJournal.fileName)
    }

    /// Whether a request is a Cognito Identity call: a `POST` whose `X-Amz-Target` names the service.
    static func isCall(_ request: Request) -> Bool {
        guard request.method == .post, let target = request.headers.value(of: Self.targetHeader) else { return false }
        return target.hasPrefix(Self.targetPrefix)
    }

    static let targetHeader = HTTPField.Name("X-Amz-Target")!

    /// Answers a call.
    /// - Parameters:
    ///   - request: The request.
    ///   - body: Its body.
    ///   - sourceIp: The client's address; a call over TLS or not makes no difference here.
    /// - Returns: The operation's JSON document, or an error document.
    func respond(to request: Request, body: ByteBuffer) async -> Response {
        let requestId = RequestID.uuid()
        let operation = String((request.headers.value(of: Self.targetHeader) ?? "").dropFirst(Self.targetPrefix.count))
        do {
            let input = try Self.parse(body)
            let output = try await self.perform(operation, input: input, secureTransport: request.head.scheme == "https")
            return Self.response(output, status: .ok, requestId: requestId)
        } catch {
            self.state.logger.info(
                "Cognito Identity call refused",
                metadata: [
                    "wif.local.cognito.request_id": "\(requestId)", "wif.local.cognito.operation": "\(operation.prefix(64))",
                    "wif.local.cognito.error_code": "\(error.code)",
                ])
            return error.cognitoResponse(requestId: requestId)
        }
    }

    private func perform(_ operation: String, input: Input, secureTransport: Bool) async throws(AWSErrorResponse) -> String {
        switch operation {
        case "GetId": return try await self.getId(input)
        case "GetCredentialsForIdentity": return try await self.getCredentialsForIdentity(input, secureTransport: secureTransport)
        case "GetOpenIdToken": return try await self.getOpenIdToken(input)
        case "DescribeIdentity": return try self.describeIdentity(input)
        case "ListIdentities": return try self.listIdentities(input)
        default:
            throw AWSErrorResponse("UnknownOperationException", "The operation \(operation.prefix(64)) is not served by this stack.")
        }
    }

    /// The current time in whole seconds since 1970.
    var now: Int64 {
        Int64(self.state.timeSource.now().timeIntervalSince1970.rounded(.down))
    }

    // MARK: Input

    /// A request's JSON object.
    struct Input {
        let members: [JSONMember]

        /// A string member; `nil` when absent or null.
        func string(_ key: String) throws(AWSErrorResponse) -> String? {
            guard let node = self.members.first(where: { $0.key == key })?.value else { return nil }
            switch node.kind {
            case .string(let value): return value
            case .null: return nil
            default: throw Self.invalid("\(key) must be a string, not \(node.typeName)")
            }
        }

        /// A whole-number member; `nil` when absent or null.
        func int(_ key: String) throws(AWSErrorResponse) -> Int? {
            guard let node = self.members.first(where: { $0.key == key })?.value else { return nil }
            switch node.kind {
            case .number:
                guard let value = node.intValue else { throw Self.invalid("\(key) must be a whole number") }
                return value
            case .null: return nil
            default: throw Self.invalid("\(key) must be a number, not \(node.typeName)")
            }
        }

        /// The `Logins` map: logins key → token, at most ``CognitoIdentityService/maximumLogins`` entries.
        func logins() throws(AWSErrorResponse) -> [String: String] {
            guard let node = self.members.first(where: { $0.key == "Logins" })?.value else { return [:] }
            switch node.kind {
            case .null: return [:]
            case .object(let entries):
                guard entries.count <= CognitoIdentityService.maximumLogins else {
                    throw Self.invalid("Logins has \(entries.count) entries; at most \(CognitoIdentityService.maximumLogins) are allowed")
                }
                var logins: [String: String] = [:]
                for entry in entries {
                    guard case .string(let token) = entry.value.kind else { throw Self.invalid("the Logins value of \(entry.key.prefix(128)) must be a string") }
                    guard (1...128).contains(entry.key.utf8.count) else { throw Self.invalid("a Logins key must be 1 to 128 characters long") }
                    guard (1...50_000).contains(token.utf8.count) else {
                        throw Self.invalid("the Logins token of \(entry.key) must be 1 to 50000 characters long")
                    }
                    logins[entry.key] = token
                }
                return logins
            default:
                throw Self.invalid("Logins must be an object of provider names and tokens, not \(node.typeName)")
            }
        }

        static func invalid(_ message: String) -> AWSErrorResponse {
            AWSErrorResponse("InvalidParameterException", message)
        }
    }

    static func parse(_ body: ByteBuffer) throws(AWSErrorResponse) -> Input {
        let bytes = Array(body.readableBytesView)
        let node: JSONNode
        do {
            node = try JSONParser.parse(bytes.isEmpty ? Array("{}".utf8) : bytes, options: .init(rejectsDuplicateKeys: true))
        } catch {
            throw AWSErrorResponse("SerializationException", "The request body is not valid JSON: \(error.message)")
        }
        guard case .object(let members) = node.kind else {
            throw AWSErrorResponse("SerializationException", "The request body must be a JSON object, not \(node.typeName)")
        }
        return Input(members: members)
    }

    /// Checks a pool or identity id: `REGION:UUID`, 1 to 55 characters.
    static func checkId(_ value: String?, name: String) throws(AWSErrorResponse) -> String {
        guard let value else { throw Input.invalid("\(name) is required") }
        guard IdentityPoolDefinition.isPoolOrIdentityId(value) else {
            throw Input.invalid(
                "1 validation error detected: Value '\(value.prefix(64))' at '\(name)' failed to satisfy constraint: "
                    + "Member must satisfy regular expression pattern: [\\w-]+:[0-9a-f-]+")
        }
        return value
    }

    // MARK: Output

    static func response(_ json: String, status: HTTPResponse.Status, requestId: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = Self.contentType
        headers[HTTPField.Name("x-amzn-RequestId")!] = requestId
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: json)))
    }
}

extension AWSErrorResponse {
    /// The JSON 1.1 error document: `{"__type": CODE, "message": MESSAGE}` with `x-amzn-ErrorType`.
    func cognitoResponse(requestId: String) -> Response {
        var writer = JSONWriter(pretty: false)
        writer.beginObject()
        writer.member("__type", self.code)
        writer.member("message", self.message)
        writer.endObject()
        var response = CognitoIdentityService.response(writer.output, status: self.status, requestId: requestId)
        response.headers[HTTPField.Name("x-amzn-ErrorType")!] = self.code
        return response
    }
}
