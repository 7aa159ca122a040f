import Crypto
import Foundation
import WIFFoundation

/// The development access tokens of the OAuth 2.0 providers, Facebook and Login with Amazon.
///
/// Real access tokens of these providers are opaque: AWS sends them to the provider to learn the user
/// and the app. The local stack stands in for the provider, so its tokens carry the user id, the app id
/// and the validity period, authenticated with HMAC-SHA256 under `keys/opaque-token.key`; they look like
/// the real ones (`EAA…` hexadecimal for Facebook, `Atza|…` base64url for Amazon) and are verified
/// offline.
///
/// Layout before encoding: version (1 byte), provider (1), issued-at and expires-at (big-endian Int64
/// seconds), app id and user id (each a length byte and UTF-8), then the 32-byte HMAC of everything
/// before it. The provider byte and the prefix both bind the token to its provider, so a Facebook token
/// never verifies as an Amazon one.
struct OpaqueAccessToken: Sendable, Equatable {
    /// The OAuth 2.0 providers whose tokens are opaque.
    enum Provider: UInt8, Sendable {
        case facebook = 1
        case amazon = 2

        /// The provider of a profile kind, `nil` for ID-token kinds.
        init?(kind: ProviderProfile.Kind) {
            switch kind {
            case .facebook: self = .facebook
            case .amazon: self = .amazon
            case .google, .cognito, .oidc: return nil
            }
        }

        /// The `ProviderId` of `AssumeRoleWithWebIdentity`.
        init?(providerId: String) {
            switch providerId {
            case "graph.facebook.com": self = .facebook
            case "www.amazon.com": self = .amazon
            default: return nil
            }
        }

        var kind: ProviderProfile.Kind {
            switch self {
            case .facebook: .facebook
            case .amazon: .amazon
            }
        }

        var providerId: String {
            switch self {
            case .facebook: "graph.facebook.com"
            case .amazon: "www.amazon.com"
            }
        }

        /// What every token of the provider starts with.
        var prefix: String {
            switch self {
            case .facebook: "EAA"
            case .amazon: "Atza|"
            }
        }
    }

    /// Why a token is not one of the provider's; the description never contains the token.
    enum Rejection: Error, Sendable, Equatable {
        /// Not in the provider's shape (prefix, encoding, layout).
        case malformed
        /// The authentication code does not match: altered, or made under another key.
        case badAuthenticationCode
    }

    private static let version: UInt8 = 1
    private static let macLength = 32
    private static let domain = Array("WIFLocal opaque access token".utf8)

    /// The provider.
    var provider: Provider
    /// The user id (Facebook user id, Amazon user id).
    var userId: String
    /// The app id (Facebook app id, Login with Amazon client id).
    var appId: String
    /// When the token was issued, in seconds since 1970.
    var issuedAt: Int64
    /// When the token expires, in seconds since 1970.
    var expiresAt: Int64

    /// Encodes and authenticates the token.
    /// - Throws: ``LocalStackError`` when the user id or app id is empty or longer than 255 bytes.
    func encoded(key: SymmetricKey) throws(LocalStackError) -> String {
        let user = Array(self.userId.utf8)
        let app = Array(self.appId.utf8)
        guard (1...255).contains(user.count) else { throw LocalStackError("the user id must be 1 to 255 bytes long, not \(user.count)") }
        guard (1...255).contains(app.count) else { throw LocalStackError("the app id must be 1 to 255 bytes long, not \(app.count)") }
        var bytes: [UInt8] = [Self.version, self.provider.rawValue]
        bytes.reserveCapacity(20 + user.count + app.count + Self.macLength)
        Self.append(self.issuedAt, to: &bytes)
        Self.append(self.expiresAt, to: &bytes)
        bytes.append(UInt8(app.count))
        bytes.append(contentsOf: app)
        bytes.append(UInt8(user.count))
        bytes.append(contentsOf: user)
        bytes.append(contentsOf: Self.authenticationCode(for: bytes, key: key))
        switch self.provider {
        case .facebook: return self.provider.prefix + TokenEncoding.hex(bytes)
        case .amazon: return self.provider.prefix + TokenEncoding.base64URL(bytes)
        }
    }

    /// Decodes a token of a provider and checks its authentication code; the validity period and app id
    /// are left to the caller.
    /// - Parameters:
    ///   - token: The token text.
    ///   - provider: The provider the token is presented for.
    ///   - key: The key of the data directory.
    /// - Throws: ``Rejection``.
    init(token: String, provider: Provider, key: SymmetricKey) throws(Rejection) {
        let text = token.utf8
        let prefix = provider.prefix.utf8
        guard text.starts(with: prefix) else { throw .malformed }
        let body = text.dropFirst(prefix.count)
        let decoded: [UInt8]? =
            switch provider {
            case .facebook: TokenEncoding.decodeHex(body)
            case .amazon: TokenEncoding.decodeBase64URL(body)
            }
        guard let bytes = decoded, bytes.count >= 20 + 2 + Self.macLength else { throw .malformed }
        let signed = bytes[..<(bytes.count - Self.macLength)]
        let code = bytes[(bytes.count - Self.macLength)...]
        var message = Self.domain
        message.append(contentsOf: signed)
        guard HMAC<SHA256>.isValidAuthenticationCode(code, authenticating: message, using: key) else {
            throw .badAuthenticationCode
        }
        guard bytes[0] == Self.version, bytes[1] == provider.rawValue else { throw .malformed }
        var index = 2
        let issuedAt = Self.readInt64(signed, at: &index)
        let expiresAt = Self.readInt64(signed, at: &index)
        guard let app = Self.readField(signed, at: &index), let user = Self.readField(signed, at: &index),
            index == signed.endIndex
        else { throw .malformed }
        self.provider = provider
        self.appId = app
        self.userId = user
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
    }

    init(provider: Provider, userId: String, appId: String, issuedAt: Int64, expiresAt: Int64) {
        self.provider = provider
        self.userId = userId
        self.appId = appId
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
    }

    private static func authenticationCode(for bytes: [UInt8], key: SymmetricKey) -> [UInt8] {
        var hmac = HMAC<SHA256>(key: key)
        hmac.update(data: Self.domain)
        hmac.update(data: bytes)
        return Array(hmac.finalize())
    }

    private static func append(_ value: Int64, to bytes: inout [UInt8]) {
        let bits = UInt64(bitPattern: value)
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
    }

    private static func readInt64(_ bytes: ArraySlice<UInt8>, at index: inout Int) -> Int64 {
        var bits: UInt64 = 0
        for _ in 0..<8 {
            bits = bits << 8 | UInt64(bytes[bytes.startIndex + index])
            index += 1
        }
        return Int64(bitPattern: bits)
    }

    private static func readField(_ bytes: ArraySlice<UInt8>, at index: inout Int) -> String? {
        guard bytes.startIndex + index < bytes.endIndex else { return nil }
        let length = Int(bytes[bytes.startIndex + index])
        index += 1
        let start = bytes.startIndex + index
        guard length > 0, start + length <= bytes.endIndex else { return nil }
        index += length
        return String(validating: bytes[start..<(start + length)], as: UTF8.self)
    }
}
