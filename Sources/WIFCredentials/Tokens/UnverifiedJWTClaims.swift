import Foundation
import WIFFoundation

/// A few claims of a JWT, read WITHOUT verifying its signature.
///
/// Only for diagnostics and for scheduling a refresh before the token's `exp`: nothing here may be
/// trusted, since anyone can write a JWT with any claims. STS verifies the token against the identity
/// provider's keys.
///
/// Parsing is tolerant: a token that is not a compact JWS (three base64url segments with a JSON object
/// in the middle) yields no claims, and a claim of the wrong type is left out while the others are kept.
public struct UnverifiedJWTClaims: Sendable, Hashable, CustomStringConvertible {
    /// The `iss` claim: who issued the token.
    public var issuer: String?
    /// The `sub` claim: whom the token is about.
    public var subject: String?
    /// The `aud` claim: a single string or an array of strings; empty when absent.
    public var audience: [String]
    /// The `exp` claim: when the token stops being valid.
    public var expiration: Date?
    /// The `iat` claim: when the token was issued.
    public var issuedAt: Date?
    /// The `nbf` claim: before when the token is not yet valid.
    public var notBefore: Date?
    /// The roles a Cognito user pool token offers an identity pool: `cognito:preferred_role` first,
    /// then `cognito:roles`; empty for other tokens.
    public var cognitoRoles: [String] = []

    /// Creates claims from their values.
    /// - Parameters:
    ///   - issuer: The `iss` claim.
    ///   - subject: The `sub` claim.
    ///   - audience: The `aud` claim.
    ///   - expiration: The `exp` claim.
    ///   - issuedAt: The `iat` claim.
    ///   - notBefore: The `nbf` claim.
    public init(
        issuer: String? = nil,
        subject: String? = nil,
        audience: [String] = [],
        expiration: Date? = nil,
        issuedAt: Date? = nil,
        notBefore: Date? = nil
    ) {
        self.issuer = issuer
        self.subject = subject
        self.audience = audience
        self.expiration = expiration
        self.issuedAt = issuedAt
        self.notBefore = notBefore
    }

    /// Reads the claims of a compact JWS without verifying it.
    /// - Parameter token: The token text; surrounding whitespace is ignored.
    /// - Returns: `nil` when the token is not three base64url segments whose middle one decodes to a
    ///   JSON object, as for opaque access tokens.
    public init?(token: String) {
        let segments = token.trimming(.whitespacesAndNewlines)
            .split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3, !segments[0].isEmpty, !segments[1].isEmpty,
            let payload = Self.decodeBase64URL(segments[1])
        else { return nil }
        guard let decoded = try? JSONDecoder().decode(Payload.self, from: payload) else { return nil }
        self.init(
            issuer: decoded.iss,
            subject: decoded.sub,
            audience: decoded.aud ?? [],
            expiration: decoded.exp.map(Date.init(timeIntervalSince1970:)),
            issuedAt: decoded.iat.map(Date.init(timeIntervalSince1970:)),
            notBefore: decoded.nbf.map(Date.init(timeIntervalSince1970:))
        )
        self.cognitoRoles = (decoded.preferredRole.map { [$0] } ?? []) + (decoded.roles ?? [])
    }

    /// The claims that are present, for diagnostics.
    public var description: String {
        var parts: [String] = []
        if let issuer { parts.append("iss: \(issuer)") }
        if let subject { parts.append("sub: \(subject)") }
        if !self.audience.isEmpty { parts.append("aud: \(self.audience.joined(separator: ","))") }
        if let expiration { parts.append("exp: \(expiration.formatted(.iso8601))") }
        if let issuedAt { parts.append("iat: \(issuedAt.formatted(.iso8601))") }
        if let notBefore { parts.append("nbf: \(notBefore.formatted(.iso8601))") }
        return "UnverifiedJWTClaims(\(parts.joined(separator: ", ")))"
    }

    /// Decodes base64url (RFC 4648 §5), with or without `=` padding. Returns `nil` on any character
    /// outside the alphabet or an impossible length.
    static func decodeBase64URL(_ text: Substring) -> Data? {
        var base64 = ""
        base64.reserveCapacity(text.utf8.count + 3)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "="):
                base64.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: "-"):
                base64.append("+")
            case UInt8(ascii: "_"):
                base64.append("/")
            default:
                return nil
            }
        }
        let unpadded = base64.utf8.count - base64.utf8.reversed().prefix(while: { $0 == UInt8(ascii: "=") }).count
        // A remainder of 1 cannot come from any byte string.
        guard unpadded % 4 != 1 else { return nil }
        base64 = String(base64.prefix(unpadded))
        base64 += String(repeating: "=", count: (4 - unpadded % 4) % 4)
        return Data(base64Encoded: base64)
    }

    /// The payload fields of interest. Each is decoded on its own so one odd claim does not hide the
    /// rest.
    private struct Payload: Decodable {
        var iss: String?
        var sub: String?
        var aud: [String]?
        var exp: TimeInterval?
        var iat: TimeInterval?
        var nbf: TimeInterval?
        var preferredRole: String?
        var roles: [String]?

        enum CodingKeys: String, CodingKey {
            case iss, sub, aud, exp, iat, nbf
            case preferredRole = "cognito:preferred_role"
            case roles = "cognito:roles"
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.iss = try? container.decodeIfPresent(String.self, forKey: .iss)
            self.sub = try? container.decodeIfPresent(String.self, forKey: .sub)
            if let single = try? container.decodeIfPresent(String.self, forKey: .aud) {
                self.aud = [single]
            } else {
                self.aud = try? container.decodeIfPresent([String].self, forKey: .aud)
            }
            self.preferredRole = try? container.decodeIfPresent(String.self, forKey: .preferredRole)
            self.roles = try? container.decodeIfPresent([String].self, forKey: .roles)
            self.exp = Self.numericDate(container, .exp)
            self.iat = Self.numericDate(container, .iat)
            self.nbf = Self.numericDate(container, .nbf)
        }

        /// A JWT NumericDate: seconds since the epoch, possibly fractional. Values no calendar can
        /// hold are ignored.
        private static func numericDate(_ container: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) -> TimeInterval? {
            guard let value = try? container.decodeIfPresent(Double.self, forKey: key), value.isFinite,
                abs(value) < 1e13
            else { return nil }
            return value
        }
    }
}

extension WebIdentityToken {
    /// Creates a token, reading its `exp` claim without verification when it is a JWT.
    ///
    /// Opaque tokens (Facebook or Amazon access tokens) get no expiration.
    /// - Parameter value: The token text, exactly as it will be sent to STS.
    public init(inspecting value: String) {
        self.init(value: value, expiration: UnverifiedJWTClaims(token: value)?.expiration)
    }

    /// The token's claims read without verification, or `nil` for an opaque token. For diagnostics only.
    public var unverifiedClaims: UnverifiedJWTClaims? {
        UnverifiedJWTClaims(token: self.value)
    }
}
