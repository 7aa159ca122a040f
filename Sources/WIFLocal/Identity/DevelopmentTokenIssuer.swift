import Crypto
import Foundation
import PolicyEngine
import WIFFoundation

/// Issues development tokens shaped like each provider's real ones, signed or authenticated with the
/// keys of the data directory so that the stack's ``TokenVerifier`` accepts them.
///
/// - `google`: an RS256 ID token with `iss` `https://accounts.google.com`, `aud` and `azp` the client id,
///   `sub`, `email`, `email_verified`, `iat`, `exp`.
/// - `cognito`: an RS256 ID token with `iss` `https://cognito-identity.amazonaws.com`, `aud` the identity
///   pool id, `sub`, `amr` (`authenticated` and the user-pool login entries), `iat`, `exp`.
/// - `oidc`: an RS256 ID token with the profile's issuer (the stack's by default), `sub`, `aud`, `iat`,
///   `exp`, and on request `https://aws.amazon.com/tags` and `https://aws.amazon.com/source_identity`.
/// - `facebook`, `amazon`: opaque access tokens (`EAA…`, `Atza|…`), see ``OpaqueAccessToken``.
///
/// The user id is used as given for every provider (`sub`, Facebook id, Amazon user id, Cognito identity
/// id), so a user's partition (`cognito/alice/`) is predictable; pass a real-looking id such as
/// `us-east-1:0f1e…` to get one.
struct DevelopmentTokenIssuer: Sendable {
    /// The file under `keys/` of the opaque access tokens' HMAC key.
    static let opaqueKeyFileName = "opaque-token.key"

    private let configuration: LocalConfiguration
    private let signingKey: IssuerSigningKey
    private let opaqueKey: SymmetricKey
    private let header: String

    /// Opens the keys of a stack's data directory, creating them when missing.
    /// - Throws: ``LocalStackError`` when a key cannot be read or created.
    init(state: LocalState) throws(LocalStackError) {
        self.configuration = state.configuration
        self.signingKey = try IssuerSigningKey.load(
            from: state.data, now: state.timeSource.now(), subject: ProviderProfile.keyPrefix(ofIssuer: state.configuration.issuer)
        )
        self.opaqueKey = try state.data.secret(named: Self.opaqueKeyFileName)
        self.header = TokenEncoding.base64URL(Array(#"{"alg":"RS256","kid":"\#(self.signingKey.keyId)","typ":"JWT"}"#.utf8))
    }

    /// Issues a token for a user of a provider profile.
    /// - Parameters:
    ///   - profile: The provider profile.
    ///   - user: The user id the token carries; 1 to 255 bytes, no control characters.
    ///   - audience: The client id (Facebook or Amazon app id, OAuth client id, Cognito identity pool id);
    ///     the profile's first client id when `nil`.
    ///   - ttl: The lifetime in seconds, at least 1.
    ///   - now: The issue time (`iat`).
    ///   - principalTags: Session tags for the `https://aws.amazon.com/tags` claim of an ID token; none by
    ///     default, since AWS then requires `sts:TagSession` in the role's trust policy.
    ///   - sourceIdentity: The `https://aws.amazon.com/source_identity` claim of an ID token.
    ///   - groups: The `cognito:groups` claim of a Cognito user pool profile's token.
    /// - Returns: The token.
    /// - Throws: ``LocalStackError`` naming the bad argument, or when signing fails.
    func issue(
        profile: ProviderProfile, user: String, audience: String? = nil, ttl: Int, now: Date,
        principalTags: [String: [String]] = [:], sourceIdentity: String? = nil, groups: [String] = [], tokenUse: TokenUse = .id
    ) throws(LocalStackError) -> String {
        guard tokenUse == .id || profile.isCognitoUserPool else {
            throw LocalStackError("access tokens are issued for a Cognito user pool profile such as cognito-idp, not '\(profile.name)'")
        }
        guard groups.isEmpty || profile.isCognitoUserPool else {
            throw LocalStackError("groups are carried by the tokens of a Cognito user pool profile, not by '\(profile.name)'")
        }
        guard !user.isEmpty, user.utf8.count <= 255 else {
            throw LocalStackError("the user id must be 1 to 255 bytes long, not \(user.utf8.count)")
        }
        guard !user.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw LocalStackError("the user id must not contain control characters")
        }
        guard ttl >= 1 else { throw LocalStackError("the token lifetime must be at least 1 second, not \(ttl)") }
        guard let clientId = audience ?? profile.clientIds.first, !clientId.isEmpty else {
            throw LocalStackError("the provider profile '\(profile.name)' has no client id; give an audience")
        }
        let issuedAt = Int64(now.timeIntervalSince1970.rounded(.down))
        let expiresAt = issuedAt + Int64(ttl)

        if let provider = OpaqueAccessToken.Provider(kind: profile.kind) {
            guard principalTags.isEmpty, sourceIdentity == nil else {
                throw LocalStackError("session tags and source identity are carried by ID tokens only, not by \(provider.providerId) access tokens")
            }
            let token = OpaqueAccessToken(provider: provider, userId: user, appId: clientId, issuedAt: issuedAt, expiresAt: expiresAt)
            return try token.encoded(key: self.opaqueKey)
        }

        let issuer = profile.issuer ?? ProviderProfile.standardIssuer(for: profile.kind, developmentIssuer: self.configuration.issuer) ?? ""
        var claims = ClaimWriter()
        switch profile.kind {
        case .google:
            claims.add("iss", issuer)
            claims.add("azp", clientId)
            claims.add("aud", clientId)
            claims.add("sub", user)
            claims.add("email", user.contains("@") ? user : "\(user)@example.com")
            claims.addRaw("email_verified", "true")
        case .cognito:
            let region = Self.region(ofPool: clientId) ?? self.configuration.region
            let userPool = "cognito-idp.\(region).amazonaws.com/\(region)_WIFLocal"
            claims.add("sub", user)
            claims.add("aud", clientId)
            claims.addRaw("amr", "[\(["authenticated", userPool, "\(userPool):CognitoSignIn:\(user)"].map(JSONWriter.quoted).joined(separator: ","))]")
            claims.add("iss", issuer)
        case .oidc, .facebook, .amazon:
            claims.add("iss", issuer)
            claims.add("sub", user)
            if tokenUse == .access {
                // A user pool access token names its app client in client_id and has no aud, as Cognito's do.
                claims.add("client_id", clientId)
                claims.add("token_use", "access")
                claims.add("scope", "aws.cognito.signin.user.admin")
                claims.add("username", user)
            } else {
                claims.add("aud", clientId)
            }
            if profile.isCognitoUserPool {
                if tokenUse == .id {
                    claims.add("token_use", "id")
                    claims.add("cognito:username", user)
                }
                if !groups.isEmpty { claims.addRaw("cognito:groups", "[\(groups.map(JSONWriter.quoted).joined(separator: ","))]") }
            }
        }
        claims.addRaw("iat", String(issuedAt))
        claims.addRaw("exp", String(expiresAt))
        if !principalTags.isEmpty {
            let tags = principalTags.keys.sorted().map { key in
                "\(JSONWriter.quoted(key)):[\((principalTags[key] ?? []).map(JSONWriter.quoted).joined(separator: ","))]"
            }
            claims.addRaw(TokenVerifier.tagsClaim, #"{"principal_tags":{\#(tags.joined(separator: ","))}}"#)
        }
        if let sourceIdentity { claims.add(TokenVerifier.sourceIdentityClaim, sourceIdentity) }
        return try self.signingKey.signToken(signingInput: self.header + "." + TokenEncoding.base64URL(Array(claims.json.utf8)))
    }

    /// Issues the OpenID token of an identity pool identity, as `GetOpenIdToken` does: `iss`
    /// `https://cognito-identity.amazonaws.com`, `sub` the identity id, `aud` the pool id, `amr`.
    func issueIdentityPoolToken(identityId: String, poolId: String, amr: [String], ttl: Int, now: Date) throws(LocalStackError) -> String {
        let issuedAt = Int64(now.timeIntervalSince1970.rounded(.down))
        var claims = ClaimWriter()
        claims.add("sub", identityId)
        claims.add("aud", poolId)
        claims.addRaw("amr", "[\(amr.map(JSONWriter.quoted).joined(separator: ","))]")
        claims.add("iss", ProviderProfile.standardIssuer(for: .cognito, developmentIssuer: "") ?? "")
        claims.addRaw("iat", String(issuedAt))
        claims.addRaw("exp", String(issuedAt + Int64(ttl)))
        return try self.signingKey.signToken(signingInput: self.header + "." + TokenEncoding.base64URL(Array(claims.json.utf8)))
    }

    /// The region of a Cognito identity pool id (`us-east-1:…`).
    private static func region(ofPool pool: String) -> String? {
        guard let colon = pool.firstIndex(of: ":") else { return nil }
        let region = pool[..<colon]
        guard !region.isEmpty, region.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-") }) else { return nil }
        return String(region)
    }

    /// Writes a claims object in the order claims are added.
    private struct ClaimWriter {
        private var members: [String] = []

        mutating func add(_ name: String, _ value: String) {
            self.members.append("\(JSONWriter.quoted(name)):\(JSONWriter.quoted(value))")
        }

        mutating func addRaw(_ name: String, _ json: String) {
            self.members.append("\(JSONWriter.quoted(name)):\(json)")
        }

        var json: String { "{" + self.members.joined(separator: ",") + "}" }
    }
}
