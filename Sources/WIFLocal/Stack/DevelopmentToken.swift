import Foundation

/// A development token of the local stack and what its user federates into: the role to assume, the
/// bucket and the user's private prefix in it.
///
/// The token is a credential, so ``description`` never shows it.
public struct DevelopmentToken: Sendable, CustomStringConvertible {
    /// The token: an RS256 ID token for `google`, `cognito` and `oidc` profiles, an opaque access token
    /// for `facebook` and `amazon`.
    public var token: String
    /// The provider profile that issued it.
    public var provider: String
    /// The user id (`sub`, Facebook id, Amazon user id).
    public var user: String
    /// The `ProviderId` to send with the token to `AssumeRoleWithWebIdentity` (`graph.facebook.com`,
    /// `www.amazon.com`); `nil` for ID tokens.
    public var providerId: String?
    /// The ARN of the role meant for the profile's users, if the configuration has one.
    public var roleArn: String?
    /// The bucket the role's users keep their files in, if the role names one.
    public var bucket: String?
    /// The user's private prefix in the bucket (`facebook/1001/`), if the role has a partition template.
    public var prefix: String?
    /// When the token expires.
    public var expiration: Date

    /// Creates a development token description.
    public init(
        token: String, provider: String, user: String, providerId: String?, roleArn: String?, bucket: String?,
        prefix: String?, expiration: Date
    ) {
        self.token = token
        self.provider = provider
        self.user = user
        self.providerId = providerId
        self.roleArn = roleArn
        self.bucket = bucket
        self.prefix = prefix
        self.expiration = expiration
    }

    /// Everything but the token.
    public var description: String {
        "DevelopmentToken(provider: \(self.provider), user: \(self.user), roleArn: \(self.roleArn ?? "none"), "
            + "prefix: \(self.prefix ?? "none"), token: <redacted>)"
    }
}

/// Which token of a Cognito user pool a development token is: the ID token (`token_use: id`, `aud` the
/// app client), which STS and identity pools take, or the access token (`token_use: access`,
/// `client_id` the app client, no `aud`), which APIs in user pool mode take as well.
public enum TokenUse: String, Sendable, Hashable, CaseIterable {
    /// The ID token.
    case id
    /// The access token.
    case access
}
