import Foundation

/// What a verified web-identity token says.
struct VerifiedToken: Sendable {
    /// The identity.
    var identity: IdentityRecord
    /// The token's expiry (`exp`), in seconds since 1970, if it has one.
    var expiresAt: Int64?
    /// The token's `https://aws.amazon.com/source_identity` claim, if any.
    var sourceIdentity: String?
}

// Placeholder until token verification lands: refuses every token.
struct TokenVerifier: Sendable {
    init(state: LocalState) throws(LocalStackError) {}

    func verify(_ token: String, providerId: String?) async throws(AWSErrorResponse) -> VerifiedToken {
        throw AWSErrorResponse("InvalidIdentityToken", "token verification is not available")
    }
}
