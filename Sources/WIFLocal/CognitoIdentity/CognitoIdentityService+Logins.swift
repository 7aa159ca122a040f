import PolicyEngine

extension CognitoIdentityService {
    /// A login whose token verified for one of the pool's providers.
    struct VerifiedLogin: Sendable {
        /// The logins key (`accounts.google.com`, `cognito-idp.us-east-1.amazonaws.com/us-east-1_wiflocal`).
        var key: String
        var profile: ProviderProfile
        var token: VerifiedToken

        var login: IdentityRegistry.Login { .init(key: self.key, subject: self.token.identity.subject) }

        /// The `amr` entry AWS writes for the login: `KEY:APP:USER`, `KEY:CognitoSignIn:SUB` for a user pool.
        var amrEntry: String {
            let app = self.profile.isCognitoUserPool ? "CognitoSignIn" : (self.token.identity.audiences.first ?? "")
            return "\(self.key):\(app):\(self.token.identity.subject)"
        }
    }

    /// Which role an identity gets, and why.
    struct RoleChoice: Sendable {
        var arn: String
        /// `unauthenticated`, `authenticated`, `rule` or `token`.
        var reason: String
    }

    /// The pool named by a call.
    func pool(_ id: String) throws(AWSErrorResponse) -> IdentityPoolDefinition {
        guard let pool = self.state.configuration.identityPool(id: id) else {
            throw AWSErrorResponse("ResourceNotFoundException", "IdentityPool '\(id)' not found.")
        }
        return pool
    }

    /// Verifies each login's token for a provider the pool lists, in the order of the logins keys.
    /// - Throws: `NotAuthorizedException` naming the key whose token was refused or whose provider the
    ///   pool does not accept.
    func verifyLogins(_ logins: [String: String], pool: IdentityPoolDefinition) async throws(AWSErrorResponse) -> [VerifiedLogin] {
        var verified: [VerifiedLogin] = []
        for (key, token) in logins.sorted(by: { $0.key < $1.key }) {
            let candidates = pool.providers.compactMap { entry -> (IdentityPoolDefinition.Provider, ProviderProfile)? in
                guard let profile = self.state.configuration.provider(named: entry.profile), profile.loginsKey == key else { return nil }
                return (entry, profile)
            }
            guard let candidate = candidates.first else {
                throw AWSErrorResponse("NotAuthorizedException", "Invalid login token. \(key.prefix(128)) is not a provider of this identity pool.")
            }
            let (entry, profile) = candidate
            let result: VerifiedToken
            do {
                result = try await self.sts.verify(token, profile.providerId)
            } catch {
                throw AWSErrorResponse("NotAuthorizedException", "Invalid login token. \(error.message)")
            }
            let identity = result.identity
            let profileIssuer = profile.issuer ?? self.state.configuration.issuer
            guard identity.kind == profile.kind, profile.kind != .oidc || identity.issuer == profileIssuer else {
                throw AWSErrorResponse("NotAuthorizedException", "Invalid login token. Issuer doesn't match providerName \(key).")
            }
            let accepted = Set(entry.clientIds ?? profile.clientIds)
            let audiences = identity.audiences + (identity.authorizedParty.map { [$0] } ?? [])
            guard audiences.contains(where: accepted.contains) else {
                throw AWSErrorResponse("NotAuthorizedException", "Invalid login token. Incorrect token audience for \(key).")
            }
            verified.append(VerifiedLogin(key: key, profile: profile, token: result))
        }
        return verified
    }

    /// Checks that a call may act for an identity: logins must be given for an identity that has some,
    /// and guests must be allowed for one that has none.
    func checkAccess(to identity: IdentityRegistry.Identity, logins: [VerifiedLogin], pool: IdentityPoolDefinition) throws(AWSErrorResponse) {
        if logins.isEmpty {
            guard identity.logins.isEmpty else {
                throw AWSErrorResponse(
                    "NotAuthorizedException", "Logins don't match. Please include at least one valid login for this identity or identity pool.")
            }
            guard pool.allowUnauthenticatedIdentities else {
                throw AWSErrorResponse("NotAuthorizedException", "Unauthenticated access is not supported for this identity pool.")
            }
        }
    }

    /// The identity's `amr`: `unauthenticated`, or `authenticated` and each login's key and entry.
    static func amr(_ logins: [VerifiedLogin]) -> [String] {
        guard !logins.isEmpty else { return ["unauthenticated"] }
        return ["authenticated"] + logins.flatMap { [$0.key, $0.amrEntry] }
    }

    /// Chooses the role as AWS does: the unauthenticated role for guests; otherwise the first login whose
    /// provider has a role mapping decides (the token's `cognito:preferred_role` or `cognito:roles`, or
    /// the first matching rule), and an ambiguous result falls back to the authenticated role or is
    /// refused; `CustomRoleArn` must be a role the identity may get.
    func chooseRole(pool: IdentityPoolDefinition, logins: [VerifiedLogin], customRoleArn: String?) throws(AWSErrorResponse) -> RoleChoice {
        let misconfigured = AWSErrorResponse(
            "InvalidIdentityPoolConfigurationException", "Invalid identity pool configuration. Check assigned IAM roles for this pool.")
        guard !logins.isEmpty else {
            guard let arn = pool.roles.unauthenticated else { throw misconfigured }
            try Self.check(customRoleArn, against: [arn])
            return RoleChoice(arn: arn, reason: "unauthenticated")
        }
        for login in logins {
            guard let mapping = pool.roleMappings[login.profile.name] else { continue }
            let claims = login.token.claims
            switch mapping.kind {
            case .token:
                var roles: [String] = []
                if let preferred = claims["cognito:preferred_role"]?.stringValue { roles.append(preferred) }
                for role in Self.values(claims["cognito:roles"]) where !roles.contains(role) { roles.append(role) }
                if let customRoleArn, roles.contains(customRoleArn) { return RoleChoice(arn: customRoleArn, reason: "token") }
                if customRoleArn == nil, let first = roles.first, claims["cognito:preferred_role"] != nil || roles.count == 1 {
                    return RoleChoice(arn: first, reason: "token")
                }
            case .rules:
                if let rule = mapping.rules.first(where: { $0.matches(Self.values(claims[$0.claim])) }) {
                    try Self.check(customRoleArn, against: [rule.roleArn])
                    return RoleChoice(arn: rule.roleArn, reason: "rule")
                }
            }
            if mapping.ambiguousRoleResolution == .deny {
                throw AWSErrorResponse("NotAuthorizedException", "No role mapping of \(login.key) gives a role for this identity.")
            }
            break
        }
        guard let arn = pool.roles.authenticated else { throw misconfigured }
        try Self.check(customRoleArn, against: [arn])
        return RoleChoice(arn: arn, reason: "authenticated")
    }

    private static func check(_ customRoleArn: String?, against allowed: [String]) throws(AWSErrorResponse) {
        guard let customRoleArn, !allowed.contains(customRoleArn) else { return }
        throw AWSErrorResponse("NotAuthorizedException", "CustomRoleArn \(customRoleArn.prefix(2048)) is not a role this identity may assume.")
    }

    /// A claim's values for matching: a string, or each string of an array; numbers and booleans as text.
    static func values(_ claim: TokenJSON?) -> [String] {
        switch claim {
        case .string(let value): return [value]
        case .array(let elements): return elements.flatMap { Self.values($0) }
        case .number(let value): return [value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)]
        case .bool(let value): return [String(value)]
        default: return []
        }
    }
}
