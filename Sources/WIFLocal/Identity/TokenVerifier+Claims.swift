import Foundation

extension TokenVerifier {
    /// The claim that carries session tags.
    static let tagsClaim = "https://aws.amazon.com/tags"
    /// The claim that carries the source identity.
    static let sourceIdentityClaim = "https://aws.amazon.com/source_identity"

    /// Checks the claims of a token whose signature verified, and reads the identity from them.
    func identity(from claims: [String: TokenJSON], issuer: TrustedIssuer) throws(AWSErrorResponse) -> VerifiedToken {
        guard let subject = claims["sub"]?.stringValue, !subject.isEmpty else { throw TokenRejection.missingClaim("sub") }
        let audiences: [String]
        switch claims["aud"] {
        case .string(let value) where !value.isEmpty:
            audiences = [value]
        case .array(let values) where !values.isEmpty:
            var strings: [String] = []
            for value in values {
                guard let string = value.stringValue else { throw TokenRejection.invalidClaim("aud", "a string or an array of strings") }
                strings.append(string)
            }
            audiences = strings
        case .none, .null:
            throw TokenRejection.missingClaim("aud")
        case .some:
            throw TokenRejection.invalidClaim("aud", "a string or an array of strings")
        }
        guard let expiration = try Self.time(claims, "exp") else { throw TokenRejection.missingClaim("exp") }
        let notBefore = try Self.time(claims, "nbf")
        let issuedAt = try Self.time(claims, "iat")

        try self.checkTimes(expiration: expiration, notBefore: notBefore, issuedAt: issuedAt)

        let authorizedParty: String?
        switch claims["azp"] {
        case .none, .null: authorizedParty = nil
        case .string(let value): authorizedParty = value
        case .some: throw TokenRejection.invalidClaim("azp", "a string")
        }
        guard let audience = issuer.audiences.first(where: { candidate in
            audiences.contains(where: candidate.clientIds.contains)
                || (candidate.kind == .google && authorizedParty.map(candidate.clientIds.contains) == true)
        }) else {
            throw TokenRejection.incorrectAudience
        }

        let amr: [String]?
        switch claims["amr"] {
        case .none, .null: amr = nil
        case .string(let value): amr = [value]
        case .array(let values):
            var strings: [String] = []
            for value in values {
                guard let string = value.stringValue else { throw TokenRejection.invalidClaim("amr", "a string or an array of strings") }
                strings.append(string)
            }
            amr = strings
        case .some: throw TokenRejection.invalidClaim("amr", "a string or an array of strings")
        }

        let sourceIdentity: String?
        switch claims[Self.sourceIdentityClaim] {
        case .none, .null: sourceIdentity = nil
        case .string(let value): sourceIdentity = value
        case .some: throw TokenRejection.invalidClaim(Self.sourceIdentityClaim, "a string")
        }

        return VerifiedToken(
            identity: IdentityRecord(
                kind: audience.kind,
                issuer: audience.kind == .oidc ? issuer.issuer : nil,
                subject: subject,
                audiences: audiences,
                authorizedParty: authorizedParty,
                amr: amr,
                principalTags: try Self.principalTags(claims[Self.tagsClaim])
            ),
            expiresAt: expiration,
            sourceIdentity: sourceIdentity,
            claims: claims,
            notBefore: notBefore,
            issuedAt: issuedAt
        )
    }

    /// `exp` has not passed and `nbf` and `iat` have, within ``tokenLeeway``, on the stack's clock.
    func checkTimes(expiration: Int64, notBefore: Int64?, issuedAt: Int64?) throws(AWSErrorResponse) {
        let now = self.currentTime
        let leeway = self.tokenLeeway
        guard now < expiration.addingReportingOverflow(leeway).partialValue else {
            throw TokenRejection.expired(now: now, expiration: expiration)
        }
        if let notBefore, now.addingReportingOverflow(leeway).partialValue < notBefore {
            throw TokenRejection.notYetValid(now: now, notBefore: notBefore)
        }
        if let issuedAt, now.addingReportingOverflow(leeway).partialValue < issuedAt {
            throw TokenRejection.issuedInFuture(now: now, issuedAt: issuedAt)
        }
    }

    /// A NumericDate claim in whole seconds; `nil` when absent.
    private static func time(_ claims: [String: TokenJSON], _ name: String) throws(AWSErrorResponse) -> Int64? {
        switch claims[name] {
        case .none: return nil
        case .number(let value) where abs(value) < 1e15: return Int64(value.rounded(.down))
        case .some: throw TokenRejection.invalidClaim(name, "a number of seconds since 1970")
        }
    }

    /// The session tags of the `https://aws.amazon.com/tags` claim: `principal_tags` maps each tag key to
    /// a one-element array of its value (a plain string is accepted too).
    static func principalTags(_ claim: TokenJSON?) throws(AWSErrorResponse) -> [String: [String]] {
        guard let claim, claim != .null else { return [:] }
        let expected = "an object whose principal_tags map tag keys to arrays of strings"
        guard let object = claim.objectValue else { throw TokenRejection.invalidClaim(Self.tagsClaim, expected) }
        guard let principalTags = object["principal_tags"] else { return [:] }
        guard let tags = principalTags.objectValue else { throw TokenRejection.invalidClaim(Self.tagsClaim, expected) }
        var result: [String: [String]] = [:]
        for (key, value) in tags {
            switch value {
            case .string(let single):
                result[key] = [single]
            case .array(let values):
                var strings: [String] = []
                for element in values {
                    guard let string = element.stringValue else { throw TokenRejection.invalidClaim(Self.tagsClaim, expected) }
                    strings.append(string)
                }
                result[key] = strings
            default:
                throw TokenRejection.invalidClaim(Self.tagsClaim, expected)
            }
        }
        return result
    }
}
