import AccessRules
import PolicyEngine
import WIFFoundation

extension ProviderProfile {
    /// The name of the default Cognito user pool profile.
    public static let cognitoUserPoolName = "cognito-idp"
    /// The development user pool's id.
    public static let developmentUserPoolId = "us-east-1_wiflocal"
    /// The development user pool's app client id.
    public static let developmentUserPoolClientId = "wiflocalappclient000000000"

    /// A Cognito user pool's profile: an OpenID Connect issuer
    /// `https://cognito-idp.<region>.amazonaws.com/<pool id>` whose development ID tokens carry
    /// `token_use`, `cognito:username` and `cognito:groups`. Its logins key in an identity pool is the
    /// issuer without its scheme, as on AWS.
    public static func cognitoUserPool(
        name: String = Self.cognitoUserPoolName, userPoolId: String = Self.developmentUserPoolId,
        clientIds: [String] = [Self.developmentUserPoolClientId]
    ) -> ProviderProfile {
        let region = userPoolId.split(separator: "_").first.map(String.init) ?? "us-east-1"
        return ProviderProfile(
            name: name, kind: .oidc, clientIds: clientIds, issuer: "https://cognito-idp.\(region).amazonaws.com/\(userPoolId)")
    }

    /// Whether the profile's issuer is a Cognito user pool's, whose tokens carry Cognito's claims.
    public var isCognitoUserPool: Bool {
        self.kind == .oidc && Self.keyPrefix(ofIssuer: self.issuer ?? "").hasPrefix("cognito-idp.")
    }

    /// The key of the profile's tokens in an identity pool's `Logins` map: `graph.facebook.com`,
    /// `www.amazon.com`, `accounts.google.com`, or an OIDC issuer's host and path; `nil` for `cognito`,
    /// whose tokens come from an identity pool.
    public var loginsKey: String? {
        self.kind == .cognito ? nil : self.keyPrefix
    }
}

extension IdentityPoolDefinition {
    /// The default pool's id, also the `aud` of the `cognito` profile's development tokens.
    public static let defaultPoolId = "us-east-1:00000000-0000-4000-8000-000000000001"

    /// The default pool: guests allowed, the basic flow allowed, logins from every profile that has a
    /// logins key, the roles `identity-pool-authenticated` and `identity-pool-unauthenticated`, and
    /// `identity-pool-admin` for users of the Cognito user pool profile in the group `admin`.
    public static func development(accountId: String, providers: [ProviderProfile]) -> IdentityPoolDefinition {
        let arn = { (name: String) in "arn:aws:iam::\(accountId):role/\(name)" }
        var mappings: [String: RoleMapping] = [:]
        if providers.contains(where: { $0.name == ProviderProfile.cognitoUserPoolName }) {
            mappings[ProviderProfile.cognitoUserPoolName] = RoleMapping(
                kind: .rules, ambiguousRoleResolution: .authenticatedRole,
                rules: [Rule(claim: "cognito:groups", matchType: .equals, value: "admin", roleArn: arn(RoleDefinition.identityPoolAdminRole))])
        }
        return IdentityPoolDefinition(
            id: Self.defaultPoolId, name: "wif-local", allowUnauthenticatedIdentities: true, allowClassicFlow: true,
            providers: providers.filter { $0.loginsKey != nil }.map { Provider(profile: $0.name) },
            roles: Roles(
                authenticated: arn(RoleDefinition.identityPoolAuthenticatedRole),
                unauthenticated: arn(RoleDefinition.identityPoolUnauthenticatedRole)),
            roleMappings: mappings)
    }
}

extension RoleDefinition {
    /// The default pool's role for signed-in users.
    public static let identityPoolAuthenticatedRole = "identity-pool-authenticated"
    /// The default pool's role for guests.
    public static let identityPoolUnauthenticatedRole = "identity-pool-unauthenticated"
    /// The default pool's role for the group `admin`.
    public static let identityPoolAdminRole = "identity-pool-admin"

    /// The three roles of an identity pool with Amplify's storage layout in `bucket`: guests read
    /// `public/`; signed-in users also write `public/`, read every `protected/` folder, and own
    /// `protected/<identity id>/` and `private/<identity id>/`; admins do everything under all three.
    /// Their policies are what ``StorageCompiler`` makes of ``StorageRules/amplifyDefault(bucket:)``,
    /// proved equal to those rules by ``StorageProof``. The authenticated role may also invoke
    /// `invokeResources` (`execute-api:Invoke`).
    public static func identityPoolRoles(poolId: String, bucket: String, invokeResources: [String] = []) -> [RoleDefinition] {
        // The default rules always compile; were they ever not to, the roles would allow nothing.
        let compiled = try? StorageCompiler(identityPoolId: poolId).compile(.amplifyDefault(bucket: bucket))
        func role(_ name: String, _ role: CompiledStoragePolicies.Role) -> RoleDefinition {
            RoleDefinition(
                name: name,
                trustPolicy: compiled?.trustPolicies[role]
                    ?? StorageCompiler.trustPolicy(poolId: poolId, amr: role == .unauthenticated ? "unauthenticated" : "authenticated"),
                permissionPolicies: compiled?.policies[role].map { [$0] } ?? [], bucket: bucket)
        }
        var authenticated = role(Self.identityPoolAuthenticatedRole, .authenticated)
        if !invokeResources.isEmpty { authenticated.permissionPolicies.append(APIDefinition.invokePolicy(resources: invokeResources)) }
        return [
            authenticated,
            role(Self.identityPoolUnauthenticatedRole, .unauthenticated),
            role(Self.identityPoolAdminRole, .group(StorageRules.adminGroup)),
        ]
    }
}
