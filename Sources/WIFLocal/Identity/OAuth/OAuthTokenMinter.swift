import Foundation
import PolicyEngine
import WIFFoundation

/// Signs the authorization server's ID tokens with the issuer's RS256 key, the key of the JWKS, so they
/// verify wherever the development tokens do and federate through the stack's STS.
///
/// Claims: `iss` (the stack's issuer), `sub`, `aud` and `azp` (the client id), `nonce` when the
/// authorization request had one, `iat`, `auth_time`, `exp`; with the `email` scope `email` and
/// `email_verified`, with `profile` `name` and `preferred_username`.
struct OAuthTokenMinter: Sendable {
    private let issuer: String
    private let signingKey: IssuerSigningKey
    private let header: String

    /// Loads the issuer's signing key from the data directory.
    /// - Throws: ``LocalStackError`` when the key cannot be loaded or created.
    init(state: LocalState) throws(LocalStackError) {
        self.issuer = state.configuration.issuer
        self.signingKey = try IssuerSigningKey.load(
            from: state.data, now: state.timeSource.now(), subject: ProviderProfile.keyPrefix(ofIssuer: state.configuration.issuer)
        )
        self.header = TokenEncoding.base64URL(Array(#"{"alg":"RS256","kid":"\#(self.signingKey.keyId)","typ":"JWT"}"#.utf8))
    }

    /// An ID token for a sign-in.
    /// - Parameters:
    ///   - authorization: Who signed in to which client, with which scopes.
    ///   - nonce: The authorization request's nonce, if any.
    ///   - issuedAt: `iat`, in seconds since 1970.
    ///   - lifetime: Seconds from `iat` to `exp`.
    /// - Throws: ``LocalStackError`` when signing fails.
    func idToken(for authorization: OAuthAuthorization, nonce: String?, issuedAt: Int64, lifetime: Int) throws(LocalStackError) -> String {
        var members: [String] = []
        func add(_ name: String, _ value: String) { members.append("\(JSONWriter.quoted(name)):\(JSONWriter.quoted(value))") }
        func addRaw(_ name: String, _ json: String) { members.append("\(JSONWriter.quoted(name)):\(json)") }
        add("iss", self.issuer)
        add("sub", authorization.subject)
        add("aud", authorization.clientId)
        add("azp", authorization.clientId)
        if let nonce { add("nonce", nonce) }
        addRaw("iat", String(issuedAt))
        addRaw("auth_time", String(authorization.authTime))
        addRaw("exp", String(issuedAt + Int64(lifetime)))
        if authorization.scopes.contains("email") {
            add("email", authorization.subject.contains("@") ? authorization.subject : "\(authorization.subject)@example.com")
            addRaw("email_verified", "true")
        }
        if authorization.scopes.contains("profile") {
            add("name", authorization.subject)
            add("preferred_username", authorization.subject)
        }
        let payload = TokenEncoding.base64URL(Array(("{" + members.joined(separator: ",") + "}").utf8))
        return try self.signingKey.signToken(signingInput: self.header + "." + payload)
    }
}
