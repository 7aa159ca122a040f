import Foundation
import Logging
import WIFFoundation
import WIFHTTP

extension CognitoIdentityClient {
    /// A decoded success answer.
    struct Answer {
        var json: JSONNode
        var response: TransportResponse
        var receivedAt: Date
    }

    /// Sends one operation, retrying transient failures within the deadline.
    /// - Parameter secrets: Texts (the logins' tokens) that must not appear in an error message.
    func call(_ operation: String, body: String, secrets: [String], logger: Logger) async throws -> Answer {
        let deadline = CallDeadline(self.configuration.deadline, timeSource: self.timeSource)
        var attempt = 1
        while true {
            do {
                guard let timeout = deadline.timeout(forAttempt: self.configuration.timeout) else {
                    throw WIFCredentialsError.network(
                        deadline.exhausted(by: "Cognito Identity at \(self.endpoint.absoluteString)", attempts: attempt - 1))
                }
                return try await self.send(operation, body: body, secrets: secrets, timeout: timeout, logger: logger)
            } catch let error as WIFCredentialsError {
                var metadata: Logger.Metadata = [
                    "wif.cognito.operation": "\(operation)", "wif.cognito.attempt": "\(attempt)", "wif.cognito.error": "\(error.code)",
                ]
                if let service = error.serviceError {
                    metadata["wif.cognito.error_code"] = "\(service.code)"
                    if let requestId = service.requestId { metadata["wif.cognito.request_id"] = "\(requestId)" }
                }
                guard error.recovery == .retryWithBackoff, attempt < self.configuration.retry.maxAttempts else {
                    logger.debug("Cognito Identity call failed", metadata: metadata)
                    throw error
                }
                let delay = self.configuration.retry.delay(beforeRetry: attempt, jitter: self.jitter())
                guard deadline.allows(waiting: delay) else {
                    logger.debug("Cognito Identity call failed; no time is left for a retry", metadata: metadata)
                    throw error
                }
                logger.debug("Cognito Identity call failed transiently; retrying", metadata: metadata)
                try await self.timeSource.sleep(delay)
                attempt += 1
            }
        }
    }

    private func send(_ operation: String, body: String, secrets: [String], timeout: Duration, logger: Logger) async throws -> Answer {
        let request = TransportRequest(
            url: self.endpoint,
            headers: [
                ("Content-Type", "application/x-amz-json-1.1"),
                ("X-Amz-Target", "AWSCognitoIdentityService.\(operation)"),
                ("Accept", "application/json"),
                ("User-Agent", SwiftWIFVersion.userAgent()),
            ],
            body: Array(body.utf8))
        logger.debug("Calling Cognito Identity", metadata: ["wif.cognito.operation": "\(operation)", "wif.cognito.endpoint": "\(self.endpoint.absoluteString)"])
        let response: TransportResponse
        do {
            response = try await self.transport.send(request, timeout: timeout, maximumBodyBytes: Self.maximumResponseBytes, logger: logger)
        } catch let error as WIFCredentialsError {
            throw error
        } catch HTTPTransportError.timedOut(let after) {
            throw WIFCredentialsError.network(
                "Cognito Identity at \(self.endpoint.absoluteString) did not answer within \(HTTPTransportError.describe(after))")
        } catch let error as HTTPTransportError {
            throw WIFCredentialsError.malformedResponse("Cognito Identity \(error)")
        } catch {
            if Task.isCancelled || error is CancellationError { throw CancellationError() }
            throw WIFCredentialsError.network(
                "could not reach Cognito Identity at \(request.hostDescription): \(TransportFailure.reason(error))")
        }
        let receivedAt = self.timeSource.now()
        guard (200..<300).contains(response.status) else { throw Self.serviceError(response, secrets: secrets) }
        let json: JSONNode
        do {
            json = try JSONParser.parse(response.body)
        } catch {
            throw WIFCredentialsError.malformedResponse("Cognito Identity's \(operation) answer is not JSON: \(error.message)")
        }
        logger.debug(
            "Cognito Identity answered",
            metadata: ["wif.cognito.operation": "\(operation)", "wif.cognito.request_id": "\(response.header("x-amzn-RequestId") ?? "-")"])
        return Answer(json: json, response: response, receivedAt: receivedAt)
    }

    /// The error of a non-2xx answer: `__type` (without a namespace before `#`) or `x-amzn-ErrorType`,
    /// and `message`, with any secret replaced.
    static func serviceError(_ response: TransportResponse, secrets: [String]) -> WIFCredentialsError {
        let json = try? JSONParser.parse(response.body)
        var code = json?.member("__type")?.stringValue ?? response.header("x-amzn-ErrorType") ?? "HTTP\(response.status)"
        if let hash = code.lastIndex(of: "#") { code = String(code[code.index(after: hash)...]) }
        if let colon = code.firstIndex(of: ":") { code = String(code[..<colon]) }
        var message = json?.member("message")?.stringValue ?? json?.member("Message")?.stringValue
        for secret in secrets where secret.utf8.count >= 4 {
            message = message?.replacingOccurrences(of: secret, with: "<redacted>")
        }
        return .service(
            AWSServiceError(
                code: String(code.prefix(128)), message: message.map { String($0.prefix(1024)) }, requestId: response.header("x-amzn-RequestId"),
                httpStatus: response.status))
    }

    static func requiredString(_ json: JSONNode, _ key: String, operation: String) throws(WIFCredentialsError) -> String {
        guard let value = json.member(key)?.stringValue, !value.isEmpty else {
            throw .malformedResponse("Cognito Identity's \(operation) answer has no \(key)")
        }
        return value
    }

    /// The credentials of a `GetCredentialsForIdentity` answer; `Expiration` is seconds since 1970 (a
    /// JSON number, possibly with a fraction or exponent), moved onto the local clock by the answer's
    /// `Date` header.
    static func credentials(_ answer: Answer, receivedAt: Date) throws(WIFCredentialsError) -> IdentityPoolCredentials {
        let operation = "GetCredentialsForIdentity"
        let identityId = try Self.requiredString(answer.json, "IdentityId", operation: operation)
        guard let credentials = answer.json.member("Credentials") else {
            throw .malformedResponse("Cognito Identity's \(operation) answer has no Credentials")
        }
        let accessKeyId = try Self.requiredString(credentials, "AccessKeyId", operation: operation)
        let secretKey = try Self.requiredString(credentials, "SecretKey", operation: operation)
        let sessionToken = try Self.requiredString(credentials, "SessionToken", operation: operation)
        guard case .number(let text)? = credentials.member("Expiration")?.kind, let seconds = Double(text), seconds.isFinite else {
            throw .malformedResponse("Cognito Identity's \(operation) answer has no Expiration in seconds")
        }
        let serverExpiration = Date(timeIntervalSince1970: seconds)
        let clockSkew = answer.response.header("Date").flatMap(STSResponseDecoder.HTTPDate.parse).map { $0.timeIntervalSince(receivedAt) }
        return IdentityPoolCredentials(
            identityId: identityId,
            credentials: AWSCredentials(
                accessKeyId: accessKeyId, secretAccessKey: secretKey, sessionToken: sessionToken,
                expiration: serverExpiration.addingTimeInterval(-(clockSkew ?? 0))))
    }
}
