import Foundation
import PolicyEngine
import WIFFoundation

/// Who a verified web-identity token says the user is, in a form that can be sealed into a session token
/// and turned back into PolicyEngine's ``PolicyEngine/WebIdentity``.
struct IdentityRecord: Codable, Sendable, Hashable {
    /// The provider kind.
    var kind: ProviderProfile.Kind
    /// The token's `iss` for OIDC providers (the development issuer or an external one).
    var issuer: String?
    /// The user id: `sub`, a Facebook id, an Amazon user id, a Cognito identity id.
    var subject: String
    /// The audiences: `aud`, or the app id of Facebook and Amazon, or the Cognito identity pool id.
    var audiences: [String]
    /// The `azp` claim, if present.
    var authorizedParty: String?
    /// The `amr` claim, if present.
    var amr: [String]?
    /// Session tags from the token's `https://aws.amazon.com/tags` claim (`principal_tags`).
    var principalTags: [String: [String]]

    init(
        kind: ProviderProfile.Kind, issuer: String? = nil, subject: String, audiences: [String],
        authorizedParty: String? = nil, amr: [String]? = nil, principalTags: [String: [String]] = [:]
    ) {
        self.kind = kind
        self.issuer = issuer
        self.subject = subject
        self.audiences = audiences
        self.authorizedParty = authorizedParty
        self.amr = amr
        self.principalTags = principalTags
    }

    /// The identity with the context keys AWS derives from it.
    var webIdentity: WebIdentity {
        let audience = self.audiences.first ?? ""
        switch self.kind {
        case .facebook: return .facebook(userId: self.subject, appId: audience)
        case .amazon: return .amazon(userId: self.subject, appId: audience)
        case .google: return .google(subject: self.subject, audience: audience, authorizedParty: self.authorizedParty)
        case .cognito: return .cognito(identityId: self.subject, identityPoolId: audience, amr: self.amr ?? ["authenticated"])
        case .oidc:
            return .oidc(
                issuer: self.issuer ?? "", subject: self.subject, audiences: self.audiences,
                authorizedParty: self.authorizedParty, amr: self.amr
            )
        }
    }

    /// `aws:PrincipalTag/<key>` and `aws:RequestTag/<key>` values from the token's session tags.
    var tagKeys: [String: ContextValue] {
        var keys: [String: ContextValue] = [:]
        for (key, values) in self.principalTags {
            let value = values.count == 1 ? ContextValue(values[0]) : ContextValue(multiple: values)
            keys["aws:PrincipalTag/\(key)"] = value
        }
        return keys
    }
}

/// A role session issued by the local STS. The whole session is sealed into its session token, so the
/// stack needs no session database and sessions survive restarts.
struct LocalSession: Codable, Sendable, Hashable {
    /// The temporary access key id, `ASIA…`.
    var accessKeyId: String
    /// The temporary secret access key.
    var secretAccessKey: String
    /// When the session was issued, in seconds since 1970.
    var issuedAt: Int64
    /// When the session expires, in seconds since 1970.
    var expiresAt: Int64
    /// The assumed role.
    var roleArn: String
    /// The role's unique id (`AROA…`).
    var roleId: String
    /// The `RoleSessionName`.
    var sessionName: String
    /// The web identity.
    var identity: IdentityRecord
    /// The session policy passed to `AssumeRoleWithWebIdentity`, if any (JSON).
    var sessionPolicy: String?
    /// Managed policies passed as `PolicyArns`, if any.
    var policyArns: [String]?
    /// The token's `https://aws.amazon.com/source_identity` claim, if any.
    var sourceIdentity: String?

    /// The session as PolicyEngine sees it, for building request contexts.
    func webIdentitySession(sourceIp: String?, secureTransport: Bool) throws(PolicyEngineError) -> WebIdentitySession {
        try WebIdentitySession(
            self.identity.webIdentity, role: self.roleArn, roleId: self.roleId, sessionName: self.sessionName,
            sourceIp: sourceIp, secureTransport: secureTransport, additionalKeys: self.identity.tagKeys
        )
    }

    /// `arn:aws:sts::ACCOUNT:assumed-role/ROLE/SESSION`.
    var assumedRoleArn: String {
        // arn:aws:iam::ACCOUNT:role/PATH/NAME → arn:aws:sts::ACCOUNT:assumed-role/NAME/SESSION
        // Read over UTF-8 (every delimiter is ASCII): this runs for every session issued.
        let fields = self.roleArn.utf8.split(separator: UInt8(ascii: ":"), maxSplits: 5, omittingEmptySubsequences: false)
        let partition = fields.count > 1 ? Substring(fields[1]) : "aws"
        let account = fields.count > 4 ? Substring(fields[4]) : ""
        let roleName = self.roleArn.utf8.split(separator: UInt8(ascii: "/")).last.map { Substring($0) } ?? ""
        return "arn:\(partition):sts::\(account):assumed-role/\(roleName)/\(self.sessionName)"
    }
}

extension LocalSession {
    /// The session as the JSON (UTF-8) its `Codable` form decodes, written by hand: sealing happens on every
    /// `AssumeRoleWithWebIdentity`, and a generic encoder costs more than the rest of the call's own work.
    func sealedJSON() -> [UInt8] {
        var writer = JSONWriter(pretty: false)
        writer.beginObject()
        writer.member("accessKeyId", self.accessKeyId)
        writer.member("secretAccessKey", self.secretAccessKey)
        writer.member("issuedAt", Int(self.issuedAt))
        writer.member("expiresAt", Int(self.expiresAt))
        writer.member("roleArn", self.roleArn)
        writer.member("roleId", self.roleId)
        writer.member("sessionName", self.sessionName)
        writer.key("identity")
        self.identity.writeJSON(into: &writer)
        writer.member("sessionPolicy", ifPresent: self.sessionPolicy)
        if let policyArns = self.policyArns {
            writer.key("policyArns")
            writer.strings(policyArns)
        }
        writer.member("sourceIdentity", ifPresent: self.sourceIdentity)
        writer.endObject()
        return writer.utf8
    }
}

extension IdentityRecord {
    /// Writes the record as its `Codable` form decodes it.
    func writeJSON(into writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("kind", self.kind.rawValue)
        writer.member("issuer", ifPresent: self.issuer)
        writer.member("subject", self.subject)
        writer.key("audiences")
        writer.strings(self.audiences)
        writer.member("authorizedParty", ifPresent: self.authorizedParty)
        if let amr = self.amr {
            writer.key("amr")
            writer.strings(amr)
        }
        writer.key("principalTags")
        writer.beginObject()
        for (key, values) in self.principalTags.sorted(by: { $0.key < $1.key }) {
            writer.key(key)
            writer.strings(values)
        }
        writer.endObject()
        writer.endObject()
    }
}

extension JSONWriter {
    /// An array of strings, whatever its length.
    fileprivate mutating func strings(_ values: [String]) {
        self.beginArray()
        for value in values { self.string(value) }
        self.endArray()
    }
}
