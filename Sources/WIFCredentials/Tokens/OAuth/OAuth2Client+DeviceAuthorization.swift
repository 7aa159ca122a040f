import Foundation
import Logging
import WIFFoundation
import WIFHTTP

extension OAuth2Client {
    /// The device-code grant type (RFC 8628 §3.4).
    static let deviceCodeGrantType = "urn:ietf:params:oauth:grant-type:device_code"
    /// How much `slow_down` lengthens the polling interval (RFC 8628 §3.5).
    static let slowDownIncrement = Duration.seconds(5)
    /// The longest wait between polls after connection failures.
    static let maximumPollingInterval = Duration.seconds(60)

    /// Signs in on a device without a browser (RFC 8628): asks for a user code, hands it to `prompt`
    /// to show, then polls until the user approves or denies, or the code expires.
    /// - Parameters:
    ///   - logger: Where to log (never a code or token).
    ///   - prompt: Shows the user where to go and which code to enter.
    /// - Returns: The verified tokens.
    /// - Throws: See ``startDeviceAuthorization(logger:)`` and ``pollDeviceAuthorization(_:logger:)``;
    ///   what `prompt` throws.
    public func authorizeWithDevice(
        logger: Logger = .noop,
        prompt: @Sendable (OAuth2DeviceAuthorization) async throws -> Void
    ) async throws -> OAuth2Tokens {
        let authorization = try await self.startDeviceAuthorization(logger: logger)
        try await prompt(authorization)
        return try await self.pollDeviceAuthorization(authorization, logger: logger)
    }

    /// Asks the device authorization endpoint for a device code and a user code.
    /// - Parameter logger: Where to log.
    /// - Returns: The codes, the verification URI, the expiry and the polling interval.
    /// - Throws: ``WIFCredentialsError``: `invalidConfiguration` when the issuer has no device
    ///   authorization endpoint; `oauth` when it refuses; `malformedResponse`; `network`.
    public func startDeviceAuthorization(
        logger: Logger = .noop
    ) async throws -> OAuth2DeviceAuthorization {
        let metadata = try await self.metadata(logger: logger)
        guard let endpoint = metadata.deviceAuthorizationEndpoint else {
            throw WIFCredentialsError.invalidConfiguration(
                "the issuer \(metadata.issuer) has no device authorization endpoint, so it cannot sign in without a browser")
        }
        let response = try await self.postForm(
            endpoint, [("scope", self.configuration.scopes.joined(separator: " "))], endpoint: "device authorization endpoint", logger: logger)
        let object: [String: JSONNode]
        switch try self.readJSON(response, endpoint: "device authorization endpoint", secrets: [self.configuration.clientSecret].compactMap { $0 }) {
        case .failure(let error):
            throw WIFCredentialsError.oauth("the issuer refused to start a device sign-in: \(error)", error: error)
        case .success(let answer):
            object = answer
        }
        guard let deviceCode = object["device_code"]?.stringValue, !deviceCode.isEmpty else {
            throw WIFCredentialsError.malformedResponse("the issuer's device authorization answer has no device_code")
        }
        guard let userCode = object["user_code"]?.stringValue, !userCode.isEmpty else {
            throw WIFCredentialsError.malformedResponse("the issuer's device authorization answer has no user_code")
        }
        // Some issuers (Google) still say verification_url, from the draft.
        guard let uriText = (object["verification_uri"] ?? object["verification_url"])?.stringValue,
            let verificationURI = URL(string: uriText), verificationURI.host != nil
        else {
            throw WIFCredentialsError.malformedResponse("the issuer's device authorization answer has no verification_uri URL")
        }
        let complete = object["verification_uri_complete"]?.stringValue.flatMap(URL.init(string:))
        guard let expiresIn = Self.integer(object["expires_in"]), expiresIn > 0 else {
            throw WIFCredentialsError.malformedResponse("the issuer's device authorization answer has no positive expires_in")
        }
        let interval = Self.integer(object["interval"]).map { max($0, 1) } ?? 5
        let authorization = OAuth2DeviceAuthorization(
            deviceCode: deviceCode,
            userCode: userCode,
            verificationURI: verificationURI,
            verificationURIComplete: complete,
            expiresAt: self.timeSource.now().addingTimeInterval(TimeInterval(expiresIn)),
            interval: .seconds(interval)
        )
        logger.debug(
            "started a device sign-in",
            metadata: ["wif.oauth.verification_uri": "\(verificationURI.absoluteString)", "wif.oauth.expires_in": "\(expiresIn)", "wif.oauth.interval": "\(interval)"]
        )
        return authorization
    }

    /// Polls the token endpoint until the user approves or denies the device sign-in, or it expires.
    ///
    /// Waits the interval before each poll; `authorization_pending` polls again, `slow_down` adds five
    /// seconds to the interval for good (RFC 8628 §3.5), and a failed connection doubles it (up to a
    /// minute) before trying again.
    /// - Parameters:
    ///   - authorization: What ``startDeviceAuthorization(logger:)`` returned.
    ///   - logger: Where to log.
    /// - Returns: The verified tokens.
    /// - Throws: ``WIFCredentialsError``: `authorizationFailed` when the user denies (`access_denied`) or
    ///   the code expires (`expired_token`, or its `expires_in` passes); `oauth` for other refusals;
    ///   `invalidIDToken`; `malformedResponse`; `CancellationError` when the task is cancelled.
    public func pollDeviceAuthorization(
        _ authorization: OAuth2DeviceAuthorization,
        logger: Logger = .noop
    ) async throws -> OAuth2Tokens {
        var interval = authorization.interval
        var polls = 0
        while true {
            if self.timeSource.now() >= authorization.expiresAt {
                throw WIFCredentialsError.authorizationFailed(
                    "the device sign-in expired at \(authorization.expiresAt.formatted(.iso8601)) before it was approved; start it again")
            }
            try await self.timeSource.sleep(interval)
            polls += 1
            let outcome: Result<TokenAnswer, OAuth2ErrorResponse>
            do {
                outcome = try await self.requestTokens(
                    [("grant_type", Self.deviceCodeGrantType), ("device_code", authorization.deviceCode)],
                    secrets: [authorization.deviceCode],
                    logger: logger
                )
            } catch let error as WIFCredentialsError where error.code == .network {
                interval = min(interval * 2, Self.maximumPollingInterval)
                logger.debug("polling the token endpoint failed; waiting longer", metadata: ["wif.oauth.interval": "\(interval)"])
                continue
            }
            switch outcome {
            case .success(let answer):
                let tokens = try await self.tokens(from: answer, nonce: nil, previous: nil, logger: logger)
                logger.debug("signed in on this device", metadata: Self.metadata(tokens).merging(["wif.oauth.polls": "\(polls)"]) { $1 })
                return tokens
            case .failure(let error):
                switch error.error {
                case "authorization_pending":
                    continue
                case "slow_down":
                    interval += Self.slowDownIncrement
                    logger.debug("the issuer asked to poll more slowly", metadata: ["wif.oauth.interval": "\(interval)"])
                case "access_denied":
                    throw WIFCredentialsError.authorizationFailed("the device sign-in was denied at the issuer: \(error)", error: error)
                case "expired_token":
                    throw WIFCredentialsError.authorizationFailed(
                        "the device sign-in expired before it was approved (\(error)); start it again", error: error)
                default:
                    throw WIFCredentialsError.oauth("the issuer refused the device sign-in: \(error)", error: error)
                }
            }
        }
    }

    /// A JSON integer, or a number written as text.
    static func integer(_ value: JSONNode?) -> Int? {
        switch value?.kind {
        case .number(let text)?:
            if let number = value?.intValue { return number }
            guard let number = Double(text), number.isFinite, abs(number) < 1e12 else { return nil }
            return Int(number)
        case .string(let text)?: return Int(text)
        default: return nil
        }
    }
}
