import Foundation
import Hummingbird
import NIOCore
import Synchronization
import Testing
import WIFCredentials

#if canImport(FoundationXML)
import FoundationXML
#endif

@testable import WIFLocal
import WIFHTTP
import WIFFoundation

/// An STS service over a ``SigningFixture``, called as a client would call it.
struct STSFixture: Sendable {
    static let facebookRole = "arn:aws:iam::000000000000:role/personal-store-facebook"
    static let googleRole = "arn:aws:iam::000000000000:role/personal-store-google"
    static let facebookApp = "100000000000001"

    let signing: SigningFixture
    let service: STSService
    /// The `ProviderId`s the verifier was called with.
    let providerIds: ProviderIdLog

    /// A service whose verifier accepts every token as `identity`, except `refused-token`, which it refuses
    /// with `InvalidIdentityToken`.
    static func accepting(
        _ identity: IdentityRecord = STSFixture.facebook(), sourceIdentity: String? = nil,
        configure: (inout LocalConfiguration) -> Void = { _ in }
    ) throws -> STSFixture {
        let signing = try SigningFixture(configure: configure)
        let log = ProviderIdLog()
        let service = STSService(state: signing.state, authenticator: signing.authenticator) { token, providerId throws(AWSErrorResponse) in
            log.values.withLock { $0.append(providerId) }
            if token == "refused-token" { throw AWSErrorResponse("InvalidIdentityToken", "The token is not valid") }
            return VerifiedToken(identity: identity, expiresAt: nil, sourceIdentity: sourceIdentity)
        }
        return STSFixture(signing: signing, service: service, providerIds: log)
    }

    /// A service with the stack's real token verifier.
    static func real(configure: (inout LocalConfiguration) -> Void = { _ in }) throws -> STSFixture {
        let signing = try SigningFixture(configure: configure)
        let verifier = try TokenVerifier(state: signing.state)
        return STSFixture(
            signing: signing, service: STSService(state: signing.state, verifier: verifier, authenticator: signing.authenticator),
            providerIds: ProviderIdLog())
    }

    static func facebook(_ user: String = "1001", app: String = STSFixture.facebookApp) -> IdentityRecord {
        IdentityRecord(kind: .facebook, subject: user, audiences: [app])
    }

    // MARK: Calls

    /// Posts a form, unsigned.
    func post(_ parameters: [(String, String)]) async -> STSAnswer {
        let body = Array(PercentEncoding.form(parameters.map { (name: $0.0, value: $0.1) }).utf8)
        let request = SigningFixture.request(
            "POST", target: "/", headers: [("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")], body: body)
        return await STSAnswer(self.service.respond(to: request, body: ByteBuffer(bytes: body)))
    }

    /// Sends a GET with the parameters in the query, unsigned.
    func get(_ parameters: [(String, String)]) async -> STSAnswer {
        let query = PercentEncoding.form(parameters.map { (name: $0.0, value: $0.1) })
        let request = SigningFixture.request("GET", target: "/?" + query)
        return await STSAnswer(self.service.respond(to: request, body: ByteBuffer()))
    }

    /// Posts a form signed for `sts` with the given credentials.
    func postSigned(_ parameters: [(String, String)], credentials: AWSCredentials) async throws -> STSAnswer {
        let body = Array(PercentEncoding.form(parameters.map { (name: $0.0, value: $0.1) }).utf8)
        let signed = try self.signing.signed(
            "POST", path: "/", headers: [.init("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")], body: body,
            credentials: credentials, service: "sts")
        return await STSAnswer(self.service.respond(to: SigningFixture.request(signed, body: body), body: ByteBuffer(bytes: body)))
    }

    /// `AssumeRoleWithWebIdentity` parameters for the facebook role.
    static func assume(
        role: String = STSFixture.facebookRole, session: String = "app-1001", token: String = "token-of-1001",
        providerId: String? = "graph.facebook.com", extra: [(String, String)] = []
    ) -> [(String, String)] {
        var parameters = [
            ("Action", "AssumeRoleWithWebIdentity"), ("Version", "2011-06-15"), ("RoleArn", role), ("RoleSessionName", session),
            ("WebIdentityToken", token),
        ]
        if let providerId { parameters.append(("ProviderId", providerId)) }
        return parameters + extra
    }
}

/// The `ProviderId`s a verifier saw.
final class ProviderIdLog: Sendable {
    let values = Mutex<[String?]>([])
}

/// What the STS service answered.
struct STSAnswer: Sendable {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: String

    init(_ response: Response) async {
        self.status = response.status.code
        self.headers = response.headers.map { ($0.name.rawName, $0.value) }
        let collector = BodyCollector()
        try? await response.body.write(collector)
        self.body = String(decoding: collector.bytes, as: UTF8.self)
    }

    /// The answer as WIFCredentials' STS client reads an `AssumeRoleWithWebIdentity` answer.
    func decoded(roleArn: String = STSFixture.facebookRole, at date: Date) throws -> AssumeRoleWithWebIdentityResult {
        try STSResponseDecoder.decodeAssumeRoleWithWebIdentity(
            TransportResponse(status: self.status, headers: self.headers, body: Array(self.body.utf8)), roleArn: roleArn,
            receivedAt: date, redacting: [])
    }

    /// The error document as WIFCredentials' STS client reads it.
    func serviceError() -> AWSServiceError? {
        do {
            _ = try self.decoded(at: Date(timeIntervalSince1970: 0))
            return nil
        } catch let error as WIFCredentialsError {
            return error.serviceError
        } catch {
            return nil
        }
    }

    /// The text of the element at a path below the root.
    func text(_ path: String...) throws -> String? {
        let document = try XMLDocument(data: Data(self.body.utf8))
        var element = document.rootElement()
        for name in path { element = element?.elements(forName: name).first }
        return element?.stringValue
    }

    /// The root element's name.
    func rootName() throws -> String? {
        try XMLDocument(data: Data(self.body.utf8)).rootElement()?.name
    }
}

/// Collects a response body.
private final class BodyCollector: ResponseBodyWriter, @unchecked Sendable {
    // Written by one task only, the one that awaits the body.
    var bytes: [UInt8] = []

    func write(_ buffer: ByteBuffer) async throws {
        self.bytes.append(contentsOf: buffer.readableBytesView)
    }

    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
