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
    public static func identityPoolRoles(poolId: String, bucket: String) -> [RoleDefinition] {
        [
            RoleDefinition(
                name: Self.identityPoolAuthenticatedRole, trustPolicy: PolicyTemplates.identityPoolTrust(poolId: poolId, amr: "authenticated"),
                permissionPolicies: [PolicyTemplates.amplifyStorage(bucket: bucket, level: .authenticated)], bucket: bucket),
            RoleDefinition(
                name: Self.identityPoolUnauthenticatedRole,
                trustPolicy: PolicyTemplates.identityPoolTrust(poolId: poolId, amr: "unauthenticated"),
                permissionPolicies: [PolicyTemplates.amplifyStorage(bucket: bucket, level: .guest)], bucket: bucket),
            RoleDefinition(
                name: Self.identityPoolAdminRole, trustPolicy: PolicyTemplates.identityPoolTrust(poolId: poolId, amr: "authenticated"),
                permissionPolicies: [PolicyTemplates.amplifyStorage(bucket: bucket, level: .admin)], bucket: bucket),
        ]
    }
}

extension PolicyTemplates {
    /// Who an Amplify storage policy is for.
    public enum AmplifyAccess: Sendable {
        /// Guests: read `public/`.
        case guest
        /// Signed-in users: `public/` read and write, `protected/` read, their own `protected/` and `private/` folders.
        case authenticated
        /// Admins: everything under `public/`, `protected/` and `private/`.
        case admin
    }

    /// Amplify's storage layout as a permissions policy; folders are keyed by
    /// `${cognito-identity.amazonaws.com:sub}`, the identity id.
    public static func amplifyStorage(bucket: String, level: AmplifyAccess) -> String {
        let own = "${cognito-identity.amazonaws.com:sub}"
        let objects = { (paths: [String]) in paths.map { "arn:aws:s3:::\(bucket)/\($0)" } }
        let readWrite = ["s3:GetObject", "s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload", "s3:ListMultipartUploadParts"]
        let list = { (prefixes: [String]) in
            Statement(
                sid: "List", effect: .allow, action: .action(["s3:ListBucket"]), resource: .resource(["arn:aws:s3:::\(bucket)"]),
                conditions: [Condition(.stringLike, key: "s3:prefix", values: prefixes.flatMap { [$0, $0 + "*"] })])
        }
        let statements: [Statement]
        switch level {
        case .guest:
            statements = [
                list(["public/"]),
                Statement(sid: "ReadPublic", effect: .allow, action: .action(["s3:GetObject"]), resource: .resource(objects(["public/*"]))),
            ]
        case .authenticated:
            statements = [
                list(["public/", "protected/", "private/\(own)/"]),
                Statement(
                    sid: "ReadWriteOwn", effect: .allow, action: .action(readWrite),
                    resource: .resource(objects(["public/*", "protected/\(own)/*", "private/\(own)/*"]))),
                Statement(sid: "ReadProtected", effect: .allow, action: .action(["s3:GetObject"]), resource: .resource(objects(["protected/*"]))),
            ]
        case .admin:
            statements = [
                list(["public/", "protected/", "private/"]),
                Statement(
                    sid: "ReadWriteAll", effect: .allow, action: .action(readWrite),
                    resource: .resource(objects(["public/*", "protected/*", "private/*"]))),
            ]
        }
        return PolicyWriter.json(version: .v2012_10_17, id: nil, statements: statements, pretty: true) + "\n"
    }

    /// The trust policy of an identity pool's role: `cognito-identity.amazonaws.com` for the pool's
    /// identities whose `amr` holds `amr` (`authenticated` or `unauthenticated`).
    public static func identityPoolTrust(poolId: String, amr: String) -> String {
        """
        {
          "Version": "2012-10-17",
          "Statement": [
            {
              "Effect": "Allow",
              "Principal": {
                "Federated": "cognito-identity.amazonaws.com"
              },
              "Action": "sts:AssumeRoleWithWebIdentity",
              "Condition": {
                "StringEquals": {
                  "cognito-identity.amazonaws.com:aud": \(JSONWriter.quoted(poolId))
                },
                "ForAnyValue:StringLike": {
                  "cognito-identity.amazonaws.com:amr": \(JSONWriter.quoted(amr))
                }
              }
            }
          ]
        }

        """
    }
}
