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
            let payload = Self.decodeBase64URL(segments[1]),
            let claims = (try? JSONParser.parse(payload))?.objectMembers
        else { return nil }
        // Each claim is read on its own, so one odd claim does not hide the rest.
        let audience: [String]
        switch claims["aud"]?.kind {
        case .string(let single)?: audience = [single]
        default: audience = claims["aud"].flatMap(Self.strings) ?? []
        }
        self.init(
            issuer: claims["iss"]?.stringValue,
            subject: claims["sub"]?.stringValue,
            audience: audience,
            expiration: Self.numericDate(claims["exp"]),
            issuedAt: Self.numericDate(claims["iat"]),
            notBefore: Self.numericDate(claims["nbf"])
        )
        let roles = claims["cognito:roles"].flatMap(Self.strings) ?? []
        self.cognitoRoles = (claims["cognito:preferred_role"]?.stringValue.map { [$0] } ?? []) + roles
    }

    /// An array of strings; `nil` for anything else, an array holding another kind of value included.
    private static func strings(_ value: JSONNode) -> [String]? {
        guard let list = value.arrayValue else { return nil }
        let strings = list.compactMap(\.stringValue)
        return strings.count == list.count ? strings : nil
    }

    /// A JWT NumericDate: seconds since the epoch, possibly fractional. Values no calendar can hold are
    /// ignored.
    static func numericDate(_ value: JSONNode?) -> Date? {
        guard let seconds = value?.doubleValue, abs(seconds) < 1e13 else { return nil }
        return Date(timeIntervalSince1970: seconds)
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
    /// outside the alphabet, an impossible length, or bits set past the last byte.
    static func decodeBase64URL(_ text: Substring) -> [UInt8]? {
        let unpadded = text.utf8.reversed().drop { $0 == UInt8(ascii: "=") }.reversed()
        return TokenEncoding.decodeBase64URL(Array(unpadded))
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
