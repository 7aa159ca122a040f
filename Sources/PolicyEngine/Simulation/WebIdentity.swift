/// A verified web identity — who the identity provider says the user is — and the context keys AWS derives
/// from it for `AssumeRoleWithWebIdentity` and for the resulting role session.
///
/// The keys follow the IAM documentation on web identity federation:
/// - Amazon Cognito: `cognito-identity.amazonaws.com:sub` (the identity id), `:aud` (the identity pool
///   id) and `:amr` (multi-valued: `authenticated` or `unauthenticated`, plus login providers).
/// - Google: `accounts.google.com:sub`, `:aud` (the `azp` claim when present, otherwise `aud`) and
///   `:oaud` (the `aud` claim, when `azp` is present).
/// - Facebook: `graph.facebook.com:id` and `:app_id`.
/// - Login with Amazon: `www.amazon.com:user_id` and `:app_id`.
/// - Any OIDC provider: `<issuer host and path>:sub`, `:aud`, `:azp`, `:oaud`, `:amr`.
public struct WebIdentity: Sendable, Hashable {
    /// The prefix of the provider's context keys, such as `accounts.google.com` or `example.com/auth`.
    public let keyPrefix: String
    /// The user's id at the provider (the `sub` claim, a Facebook id, an Amazon user id, a Cognito identity id).
    public let subject: String
    /// The provider's context keys and values.
    public let keys: [String: ContextValue]
    /// The issuer host and path for an OIDC provider (whose `Federated` principal is an IAM OIDC provider
    /// ARN in the role's account); `nil` for the built-in providers.
    public let oidcIssuer: String?

    init(keyPrefix: String, subject: String, keys: [String: ContextValue], oidcIssuer: String? = nil) {
        self.keyPrefix = keyPrefix
        self.subject = subject
        self.keys = keys
        self.oidcIssuer = oidcIssuer
    }

    /// An Amazon Cognito identity pool identity.
    /// - Parameters:
    ///   - identityId: The Cognito identity id, such as `us-east-1:0a1b…`; this is
    ///     `cognito-identity.amazonaws.com:sub`.
    ///   - identityPoolId: The identity pool id (`cognito-identity.amazonaws.com:aud`).
    ///   - amr: The authentication methods (`cognito-identity.amazonaws.com:amr`).
    public static func cognito(identityId: String, identityPoolId: String, amr: [String] = ["authenticated"]) -> WebIdentity {
        let prefix = "cognito-identity.amazonaws.com"
        return WebIdentity(keyPrefix: prefix, subject: identityId, keys: [
            "\(prefix):sub": ContextValue(identityId),
            "\(prefix):aud": ContextValue(identityPoolId),
            "\(prefix):amr": ContextValue(multiple: amr),
        ])
    }

    /// A Google account.
    /// - Parameters:
    ///   - subject: The `sub` claim.
    ///   - audience: The `aud` claim (the OAuth client id).
    ///   - authorizedParty: The `azp` claim, if present.
    public static func google(subject: String, audience: String, authorizedParty: String? = nil) -> WebIdentity {
        let prefix = "accounts.google.com"
        var keys: [String: ContextValue] = [
            "\(prefix):sub": ContextValue(subject),
            "\(prefix):aud": ContextValue(authorizedParty ?? audience),
        ]
        if authorizedParty != nil { keys["\(prefix):oaud"] = ContextValue(audience) }
        return WebIdentity(keyPrefix: prefix, subject: subject, keys: keys)
    }

    /// A Facebook user.
    /// - Parameters:
    ///   - userId: The Facebook user id (`graph.facebook.com:id`).
    ///   - appId: The Facebook app id (`graph.facebook.com:app_id`).
    public static func facebook(userId: String, appId: String) -> WebIdentity {
        let prefix = "graph.facebook.com"
        return WebIdentity(keyPrefix: prefix, subject: userId, keys: [
            "\(prefix):id": ContextValue(userId),
            "\(prefix):app_id": ContextValue(appId),
        ])
    }

    /// A Login with Amazon user.
    /// - Parameters:
    ///   - userId: The Amazon user id (`www.amazon.com:user_id`).
    ///   - appId: The application id (`www.amazon.com:app_id`).
    public static func amazon(userId: String, appId: String) -> WebIdentity {
        let prefix = "www.amazon.com"
        return WebIdentity(keyPrefix: prefix, subject: userId, keys: [
            "\(prefix):user_id": ContextValue(userId),
            "\(prefix):app_id": ContextValue(appId),
        ])
    }

    /// A user of any OpenID Connect provider registered in IAM.
    /// - Parameters:
    ///   - issuer: The `iss` claim, such as `https://auth.example.com/realms/app`; the key prefix is the issuer
    ///     without its scheme and trailing slash.
    ///   - subject: The `sub` claim.
    ///   - audiences: The `aud` claim.
    ///   - authorizedParty: The `azp` claim, if present; AWS then reports it as `:aud` and the audiences as
    ///     `:oaud`.
    ///   - amr: The `amr` claim, if present (multi-valued).
    public static func oidc(
        issuer: String, subject: String, audiences: [String], authorizedParty: String? = nil, amr: [String]? = nil
    ) -> WebIdentity {
        var prefix = Substring(issuer)
        if prefix.hasPrefix("https://") { prefix = prefix.dropFirst(8) } else if prefix.hasPrefix("http://") { prefix = prefix.dropFirst(7) }
        while prefix.hasSuffix("/") { prefix = prefix.dropLast() }
        let keyPrefix = String(prefix)
        func value(_ values: [String]) -> ContextValue {
            values.count == 1 ? ContextValue(values[0]) : ContextValue(multiple: values)
        }
        var keys: [String: ContextValue] = ["\(keyPrefix):sub": ContextValue(subject)]
        if let authorizedParty {
            keys["\(keyPrefix):aud"] = ContextValue(authorizedParty)
            keys["\(keyPrefix):azp"] = ContextValue(authorizedParty)
            keys["\(keyPrefix):oaud"] = value(audiences)
        } else {
            keys["\(keyPrefix):aud"] = value(audiences)
        }
        if let amr { keys["\(keyPrefix):amr"] = ContextValue(multiple: amr) }
        return WebIdentity(keyPrefix: keyPrefix, subject: subject, keys: keys, oidcIssuer: keyPrefix)
    }

    /// The provider as a trust policy's `Principal.Federated` names it.
    /// - Parameters:
    ///   - account: The account that registered an OIDC provider.
    ///   - partition: The ARN partition.
    /// - Returns: `cognito-identity.amazonaws.com`, `accounts.google.com`, `graph.facebook.com`,
    ///   `www.amazon.com`, or `arn:PARTITION:iam::ACCOUNT:oidc-provider/ISSUER`.
    public func federatedPrincipal(account: String, partition: String = "aws") -> String {
        if let oidcIssuer { return "arn:\(partition):iam::\(account):oidc-provider/\(oidcIssuer)" }
        return self.keyPrefix
    }
}
