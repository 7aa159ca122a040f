import AsyncHTTPClient
import Crypto
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import S3Partition
import WIFCredentials
import WIFFoundation
import WIFHTTP

extension CephRGWFederation {
    /// The IAM API version sent with every call.
    static let iamVersion = "2010-05-08"
    /// Backoff for calls that fail with a `5xx` or cannot reach the gateway: three attempts, with
    /// jittered waits from 100 ms.
    static let retry = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(200), maxDelay: .seconds(2))

    /// Sends one IAM Query API call (`POST /` with a form body, signed for the `iam` service) and
    /// returns the answer's root element.
    /// - Throws: ``EngineSetupError`` with the gateway's code, or the code of its HTTP status when the
    ///   answer is not an error document (RGW sometimes answers malformed XML);
    ///   ``EngineSetupError/Code/network`` when the gateway cannot be reached;
    ///   ``EngineSetupError/Code/malformedResponse`` for a success that is not XML.
    func call(_ action: String, _ parameters: [(String, String)], logger: Logger) async throws -> XMLTreeElement {
        try await Self.retry.run(
            isRetryable: { ($0 as? EngineSetupError).map(Self.mayPass) ?? false },
            sleep: { try await self.timeSource.sleep($0) },
            willRetry: { attempt, error, delay in
                logger.debug(
                    "IAM call failed; retrying",
                    metadata: [
                        "wif.rgw.action": "\(action)", "wif.rgw.code": "\((error as? EngineSetupError)?.code.rawValue ?? "-")",
                        "wif.rgw.attempt": "\(attempt)", "wif.rgw.delay": "\(delay)",
                    ])
            }
        ) { _ in
            try await self.send(action, parameters, logger: logger)
        }
    }

    static func mayPass(_ error: EngineSetupError) -> Bool {
        error.code == .network || (error.httpStatus ?? 0) >= 500
    }

    private func send(_ action: String, _ parameters: [(String, String)], logger: Logger) async throws -> XMLTreeElement {
        let form = [("Action", action), ("Version", Self.iamVersion)] + parameters
        let body = Array(PercentEncoding.form(form.map { (name: $0.0, value: $0.1) }).utf8)
        let credentials: AWSCredentials
        do {
            credentials = try await self.credentialProvider.getCredentials(logger: logger)
        } catch let error as WIFCredentialsError {
            throw EngineSetupError(
                code: .credentialsUnavailable, reason: "cannot get the administrator's credentials: \(error.reason)", credentialsError: error)
        }
        let url = self.endpoint.appendingPathComponent("")
        var signed: SigV4Request
        do {
            signed = try SigV4Request(
                method: "POST", url: url, headers: [.init("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")])
            let signer = SigV4Signer(credentials: credentials, region: self.configuration.region, service: "iam")
            try signer.sign(&signed, payload: .bytes(body), date: self.timeSource.now())
        } catch {
            throw EngineSetupError(code: .credentialsUnavailable, reason: "cannot sign the IAM \(action) call: \(error)")
        }
        guard let signedURL = URL(string: signed.urlString) else {
            throw EngineSetupError(code: .invalidConfiguration, reason: "cannot send the IAM \(action) call to \(signed.urlString)")
        }
        let request = TransportRequest(
            url: signedURL, method: "POST",
            headers: [("Host", signed.host)] + signed.headers.map { ($0.name, $0.value) } + [("User-Agent", SwiftWIFVersion.userAgent("rgw"))],
            body: body)

        logger.debug("IAM call", metadata: ["wif.rgw.action": "\(action)"])
        let response: TransportResponse
        do {
            response = try await self.transport.send(request, timeout: self.configuration.timeout, maximumBodyBytes: 1024 * 1024, logger: logger)
        } catch {
            throw EngineSetupError.network("IAM \(action) to \(signed.host) failed: \(error)")
        }
        let status = response.status
        let answer = response.body
        guard (200..<300).contains(status) else {
            throw Self.error(action: action, status: status, requestId: response.header("x-amz-request-id"), body: answer)
        }
        do {
            return try XMLReader.parse(answer)
        } catch {
            throw EngineSetupError(
                code: .malformedResponse,
                reason: "the gateway answered IAM \(action) with HTTP \(status) and a body that is not XML (\(error.reason))",
                httpStatus: status, requestId: response.header("x-amz-request-id"))
        }
    }

    /// The error for a refused IAM call. RGW answers S3-shaped `<Error>` documents with an empty
    /// `Message`, AWS answers `<ErrorResponse><Error>…`, and some RGW answers are not XML: the code
    /// then comes from the status.
    static func error(action: String, status: Int, requestId: String?, body: [UInt8]) -> EngineSetupError {
        var code: String?
        var message: String?
        var requestId = requestId
        if !body.isEmpty, let root = try? XMLReader.parse(body), let error = root.first("Error") {
            code = error.text("Code").flatMap { $0.isEmpty ? nil : $0 }
            message = error.text("Message").flatMap { $0.isEmpty ? nil : $0 }
            if let id = error.text("RequestId") ?? root.text("RequestId"), !id.isEmpty { requestId = id }
        }
        let resolved = code.map(EngineSetupError.Code.init) ?? Self.code(forStatus: status)
        var text = "the gateway refused IAM \(action)"
        if let message {
            text += ": " + message
        } else if code == nil {
            text += " without a readable error document"
        }
        if resolved == .accessDenied || resolved == .signatureDoesNotMatch || resolved == .invalidAccessKeyId {
            // RGW answers AccessDenied for a wrong secret as well as for missing capabilities.
            text += "; check the administrator's access key and secret, and that the user has the roles, oidc-provider and buckets capabilities"
        }
        return EngineSetupError(code: resolved, reason: text, httpStatus: status, requestId: requestId)
    }

    /// The IAM code that fits a status without an error document.
    static func code(forStatus status: Int) -> EngineSetupError.Code {
        switch status {
        case 404: return .noSuchEntity
        case 409: return .entityAlreadyExists
        default: return EngineSetupError.Code(S3ErrorDocument.code(forStatus: status, isObject: false).rawValue)
        }
    }

    // MARK: The issuer's certificate

    /// The SHA-1 thumbprints (lower-case hex) of the certificates in an OpenID Connect issuer's JWKS
    /// (each key's first `x5c` entry), as `CreateOpenIDConnectProvider` wants them. RGW verifies
    /// tokens with those certificates, so an issuer whose keys carry none cannot be used with it.
    /// - Parameters:
    ///   - issuer: The issuer URL; its discovery document is read from
    ///     `<issuer>/.well-known/openid-configuration`.
    ///   - httpClient: The HTTP client.
    ///   - timeout: How long each request may take.
    ///   - logger: Where to log.
    /// - Returns: One thumbprint per key with a certificate, in the JWKS's order.
    /// - Throws: ``EngineSetupError`` with code ``EngineSetupError/Code/invalidIssuer`` when the discovery
    ///   document or the JWKS cannot be read, the document names another issuer, or the keys have no
    ///   certificate.
    public static func issuerThumbprints(
        issuer: String,
        httpClient: HTTPClient = S3Client.sharedHTTPClient,
        timeout: Duration = .seconds(30),
        logger: Logger = .noop
    ) async throws -> [String] {
        var base = issuer
        while base.hasSuffix("/") { base.removeLast() }
        let documents: IssuerDocuments
        do {
            documents = try await IssuerDocuments.fetch(
                issuer: base, transport: AsyncHTTPClientTransport(httpClient: httpClient), timeout: timeout, logger: logger)
        } catch {
            // The gateway can no more use an issuer it cannot read than one that serves the wrong documents.
            throw error.code == .network ? EngineSetupError.invalidIssuer(error.reason, httpStatus: error.httpStatus) : error
        }
        // RGW finds the keys at `<iss>/.well-known/openid-configuration`: an issuer served elsewhere
        // than its own URL (the local stack's default `https://wif.localhost`) can never sign in.
        var named = documents.issuer ?? ""
        while named.hasSuffix("/") { named.removeLast() }
        guard named == base else {
            throw EngineSetupError.invalidIssuer(
                "the discovery document at \(documents.discoveryURL) names the issuer '\(named)', but Ceph RGW reads an issuer's keys from <iss>/.well-known/openid-configuration, so the tokens' iss must be \(base) itself (for 'wif-tool local serve', set \"issuer\" to its own URL in the configuration file)")
        }
        let thumbprints = documents.keys.compactMap { key -> String? in
            guard let first = key.member("x5c")?.arrayValue?.first?.stringValue, let der = Data(base64Encoded: first) else { return nil }
            return TokenEncoding.hex(Array(Insecure.SHA1.hash(data: der)))
        }
        guard !thumbprints.isEmpty else {
            throw EngineSetupError.invalidIssuer(
                "the issuer's JWKS \(documents.jwksURI) has no key with an x5c certificate; Ceph RGW verifies tokens only with certificates")
        }
        return thumbprints
    }
}
