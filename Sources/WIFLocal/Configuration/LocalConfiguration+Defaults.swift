import Foundation
import PolicyEngine
import WIFFoundation

extension LocalConfiguration {
    /// The stack that works with no configuration file: the bucket `wif-personal`, the five provider
    /// profiles, and a role `personal-store-<profile>` for each whose trust policy is the provider's
    /// `policies/<provider>/trust.json` and whose permissions are `policies/local/<profile>.json`, and the
    /// public OAuth client `wif-local` (``OAuthClient/development(clientId:)``); the Cognito user pool
    /// profile `cognito-idp` and the identity pool ``IdentityPoolDefinition/defaultPoolId`` with its three
    /// roles (``IdentityPoolDefinition/development(accountId:providers:)``).
    /// - Parameter dataDirectory: Where the stack keeps its state.
    /// - Returns: The configuration.
    public static func `default`(dataDirectory: String) -> LocalConfiguration {
        let issuer = LocalConfiguration.defaultIssuer
        let kindProfiles = ProviderProfile.Kind.allCases.map { ProviderProfile.development($0, issuer: issuer) }
        let providers = kindProfiles + [ProviderProfile.cognitoUserPool()]
        let account = LocalConfiguration.defaultAccountId
        let bucket = LocalConfiguration.defaultBucket
        let roles = kindProfiles.map { RoleDefinition.personalStore(for: $0, bucket: bucket, accountId: account, issuer: issuer) }
            + RoleDefinition.identityPoolRoles(
                poolId: IdentityPoolDefinition.defaultPoolId, bucket: bucket, invokeResources: [Self.todoReadResource])
        return LocalConfiguration(
            dataDirectory: dataDirectory,
            issuer: issuer,
            accountId: account,
            providers: providers,
            roles: roles,
            buckets: [BucketDefinition(name: bucket)],
            oauthClients: [.development()],
            identityPools: [.development(accountId: account, providers: providers)],
            apis: [.todo()]
        )
    }

    /// What the default identity pool's authenticated role may invoke: every `GET` of the `todo` API.
    static let todoReadResource = "arn:aws:execute-api:us-east-1:\(LocalConfiguration.defaultAccountId):\(APIDefinition.todoName)/local/GET/*"
}

extension ProviderProfile {
    /// The development client ids of each provider kind, shaped like the real ones.
    public static func developmentClientId(for kind: Kind) -> String {
        switch kind {
        case .facebook: "100000000000001"
        case .amazon: "amzn1.application-oa2-client.wiflocal"
        case .google: "wif-local.apps.googleusercontent.com"
        case .cognito: "us-east-1:00000000-0000-4000-8000-000000000001"
        case .oidc: "wif-local"
        }
    }

    /// The `iss` of a kind's ID tokens; `nil` for opaque-token providers. The development issuer for `oidc`.
    public static func standardIssuer(for kind: Kind, developmentIssuer: String) -> String? {
        switch kind {
        case .facebook, .amazon: nil
        case .google: "https://accounts.google.com"
        case .cognito: "https://cognito-identity.amazonaws.com"
        case .oidc: developmentIssuer
        }
    }

    /// The development profile of a provider kind, named after it.
    /// - Parameters:
    ///   - kind: The provider kind.
    ///   - issuer: The development OIDC issuer of the stack.
    /// - Returns: The profile.
    public static func development(_ kind: Kind, issuer: String) -> ProviderProfile {
        ProviderProfile(
            name: kind.rawValue,
            kind: kind,
            clientIds: [Self.developmentClientId(for: kind)],
            issuer: Self.standardIssuer(for: kind, developmentIssuer: issuer)
        )
    }

    /// The policy key prefix of the profile's identities (`graph.facebook.com`, `wif.localhost`, …).
    public var keyPrefix: String {
        switch self.kind {
        case .facebook: "graph.facebook.com"
        case .amazon: "www.amazon.com"
        case .google: "accounts.google.com"
        case .cognito: "cognito-identity.amazonaws.com"
        case .oidc: Self.keyPrefix(ofIssuer: self.issuer ?? "")
        }
    }

    /// The policy variable that holds the user id (`${graph.facebook.com:id}`, `${accounts.google.com:sub}`, …).
    public var userIdVariable: String {
        switch self.kind {
        case .facebook: "${graph.facebook.com:id}"
        case .amazon: "${www.amazon.com:user_id}"
        case .google, .cognito, .oidc: "${\(self.keyPrefix):sub}"
        }
    }

    /// An issuer URL without its scheme and trailing slashes, as IAM names OIDC providers and their keys.
    public static func keyPrefix(ofIssuer issuer: String) -> String {
        var prefix = Substring(issuer)
        if prefix.hasPrefix("https://") {
            prefix = prefix.dropFirst(8)
        } else if prefix.hasPrefix("http://") {
            prefix = prefix.dropFirst(7)
        }
        while prefix.hasSuffix("/") { prefix = prefix.dropLast() }
        return String(prefix)
    }
}

extension RoleDefinition {
    /// The personal-store role of a provider profile: trusted by the provider for the profile's client ids,
    /// allowed to read and write `<bucket>/<profile>/<user id>/` only.
    /// - Parameters:
    ///   - profile: The provider profile.
    ///   - bucket: The shared bucket.
    ///   - accountId: The account that owns the role (and registers OIDC providers).
    ///   - issuer: The development issuer.
    /// - Returns: The role `personal-store-<profile>`.
    public static func personalStore(
        for profile: ProviderProfile, bucket: String, accountId: String, issuer: String
    ) -> RoleDefinition {
        RoleDefinition(
            name: "personal-store-\(profile.name)",
            trustPolicy: PolicyTemplates.trust(for: profile, accountId: accountId),
            permissionPolicies: [PolicyTemplates.personalStore(bucket: bucket, folder: "\(profile.name)/", userIdVariable: profile.userIdVariable)],
            provider: profile.name,
            bucket: bucket,
            partitionTemplate: "\(profile.name)/{id}/"
        )
    }
}

/// The policy documents of the default stack, in the layout of the files in `policies/`: the
/// permissions policy is built with PolicyEngine's model and written by its writer; the trust policy
/// stays a template, since it writes a list of client ids on one line as the shipped files do.
public enum PolicyTemplates {
    /// The per-user permissions policy: list `<folder><id>/` and deeper, and read, write and delete objects
    /// below it. With an empty folder this is `policies/<provider>/personal-store.json`; with `<provider>/`
    /// it is `policies/local/<provider>.json`.
    public static func personalStore(bucket: String, folder: String, userIdVariable: String) -> String {
        let home = "\(folder)\(userIdVariable)/"
        let statements = [
            Statement(
                sid: "ListOwnFolder", effect: .allow, action: .action(["s3:ListBucket"]), resource: .resource(["arn:aws:s3:::\(bucket)"]),
                conditions: [Condition(.stringLike, key: "s3:prefix", values: [home, home + "*"])]),
            Statement(
                sid: "ReadWriteOwnObjects", effect: .allow,
                action: .action(["s3:GetObject", "s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload", "s3:ListMultipartUploadParts"]),
                resource: .resource(["arn:aws:s3:::\(bucket)/\(home)*"])),
        ]
        return PolicyWriter.json(version: .v2012_10_17, id: nil, statements: statements, pretty: true) + "\n"
    }

    /// The trust policy of a profile's role: `Principal.Federated` is the provider and the condition pins the
    /// profile's client ids, as `policies/<provider>/trust.json` with its placeholders filled in.
    public static func trust(for profile: ProviderProfile, accountId: String) -> String {
        let principal: String
        let sid: String
        let audienceKey: String
        var extra = ""
        switch profile.kind {
        case .facebook:
            (principal, sid, audienceKey) = ("graph.facebook.com", "FacebookUsersOfTheApp", "graph.facebook.com:app_id")
        case .amazon:
            (principal, sid, audienceKey) = ("www.amazon.com", "LoginWithAmazonUsersOfTheApp", "www.amazon.com:app_id")
        case .google:
            (principal, sid, audienceKey) = ("accounts.google.com", "GoogleUsersOfTheApp", "accounts.google.com:aud")
        case .cognito:
            (principal, sid, audienceKey) = (
                "cognito-identity.amazonaws.com", "CognitoAuthenticatedUsersOfTheApp", "cognito-identity.amazonaws.com:aud"
            )
            extra = """
                ,
                        "ForAnyValue:StringLike": {
                          "cognito-identity.amazonaws.com:amr": "authenticated"
                        }
                """
        case .oidc:
            let prefix = profile.keyPrefix
            (principal, sid, audienceKey) = ("arn:aws:iam::\(accountId):oidc-provider/\(prefix)", "OIDCProviderUsersOfTheApp", "\(prefix):aud")
        }
        let audiences = profile.clientIds.map { JSONWriter.quoted($0) }
        let audience = audiences.count == 1 ? audiences[0] : "[\(audiences.joined(separator: ", "))]"
        return """
            {
              "Version": "2012-10-17",
              "Statement": [
                {
                  "Sid": "\(sid)",
                  "Effect": "Allow",
                  "Principal": {
                    "Federated": \(JSONWriter.quoted(principal))
                  },
                  "Action": "sts:AssumeRoleWithWebIdentity",
                  "Condition": {
                    "StringEquals": {
                      \(JSONWriter.quoted(audienceKey)): \(audience)
                    }\(extra)
                  }
                }
              ]
            }

            """
    }
}
