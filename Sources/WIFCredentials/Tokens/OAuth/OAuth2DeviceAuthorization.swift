import Foundation

/// A device sign-in in progress (RFC 8628): the code the user enters at the verification URI, and what
/// the client polls with.
///
/// The device code is kept inside; `description` shows only what the user is meant to see.
public struct OAuth2DeviceAuthorization: Sendable, Hashable, CustomStringConvertible {
    /// The code the user enters, such as `WDJB-MJHT`.
    public let userCode: String
    /// Where the user enters it.
    public let verificationURI: URL
    /// The verification URI with the user code filled in, when the issuer gives one.
    public let verificationURIComplete: URL?
    /// When the device code stops working.
    public let expiresAt: Date
    /// How long to wait between polls, as the issuer asked (5 seconds when it did not say).
    public let interval: Duration
    /// The device code the client polls with. Never printed.
    let deviceCode: String

    /// Creates a record of a device authorization.
    /// - Parameters:
    ///   - deviceCode: The device code.
    ///   - userCode: The user code.
    ///   - verificationURI: The verification URI.
    ///   - verificationURIComplete: The verification URI with the code.
    ///   - expiresAt: When the codes expire.
    ///   - interval: The polling interval.
    public init(
        deviceCode: String,
        userCode: String,
        verificationURI: URL,
        verificationURIComplete: URL? = nil,
        expiresAt: Date,
        interval: Duration = .seconds(5)
    ) {
        self.deviceCode = deviceCode
        self.userCode = userCode
        self.verificationURI = verificationURI
        self.verificationURIComplete = verificationURIComplete
        self.expiresAt = expiresAt
        self.interval = interval
    }

    /// The user code, the URIs and the expiry; never the device code.
    public var description: String {
        var text = "OAuth2DeviceAuthorization(userCode: \(self.userCode), verificationURI: \(self.verificationURI.absoluteString)"
        if let verificationURIComplete { text += ", verificationURIComplete: \(verificationURIComplete.absoluteString)" }
        return text + ", expires: \(self.expiresAt.formatted(.iso8601)))"
    }
}
