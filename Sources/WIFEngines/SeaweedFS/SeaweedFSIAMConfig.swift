import Foundation
import PolicyEngine
import S3Partition
import WIFFoundation

/// SeaweedFS's IAM config, the file `weed mini -s3.iam.config FILE` (or `weed s3 -iam.config`) reads when
/// it starts: STS trusting one OpenID Connect issuer, and one role that the issuer's users assume and that
/// keeps each of them in their own folder of a shared bucket.
///
/// SeaweedFS differs from AWS IAM in ways the document follows:
/// - `Principal.Federated` in a trust policy is the provider's *name* from this file, not an issuer URL
///   or an `oidc-provider` ARN;
/// - the token's claims are policy variables as `${jwt:sub}`, not `${<issuer>:sub}`;
/// - the audience is checked by the provider's `clientId`, not by a trust-policy condition;
/// - roles are found by name: the account in the role ARN only gives it the shape clients expect;
/// - durations are in nanoseconds.
///
/// The value holds the STS signing key: its description and errors never show it.
package struct SeaweedFSIAMConfig: Sendable, Equatable {
    /// The issuer whose tokens STS accepts.
    package struct Issuer: Sendable, Equatable {
        /// The tokens' `iss`, exactly.
        package var issuer: String
        /// Where SeaweedFS fetches the issuer's signing keys.
        package var jwksURI: String
        /// The `aud` the tokens must carry.
        package var clientId: String

        /// Creates an issuer.
        package init(issuer: String, jwksURI: String, clientId: String) {
            self.issuer = issuer
            self.jwksURI = jwksURI
            self.clientId = clientId
        }
    }

    /// The provider's name, which the trust policy names in `Principal.Federated`.
    package var providerName: String
    /// The issuer STS trusts.
    package var issuer: Issuer
    /// The shared bucket.
    package var bucket: String
    /// The role users assume, such as `arn:aws:iam::000000000000:role/personal-store`.
    package var roleArn: String
    /// Where a user's folder is, with `{id}` for the token's `sub`: `{id}/` by default, as `wif-tool login`.
    package var partitionTemplate: String
    /// The base64 of the 32-byte key SeaweedFS signs its session tokens with. Kept across rewrites, so
    /// sessions issued before a restart stay valid.
    package var signingKey: String
    /// How long credentials last when the caller asks for no duration, in seconds.
    package var sessionSeconds: Int = 3600
    /// The longest session a caller may ask for, in seconds.
    package var maximumSessionSeconds: Int = 43_200

    /// Creates a configuration.
    package init(
        providerName: String, issuer: Issuer, bucket: String, roleArn: String, partitionTemplate: String, signingKey: String
    ) {
        self.providerName = providerName
        self.issuer = issuer
        self.bucket = bucket
        self.roleArn = roleArn
        self.partitionTemplate = partitionTemplate
        self.signingKey = signingKey
    }

    /// The provider's name unless another is given.
    package static let defaultProviderName = "wif-local"
    /// The role unless another is given.
    package static let defaultRoleArn = "arn:aws:iam::000000000000:role/personal-store"
    /// The policy variable SeaweedFS substitutes with the token's `sub`.
    static let subjectVariable = "${jwt:sub}"

    /// The role's name: what follows `role/` (and any path) in its ARN.
    package var roleName: String {
        String(self.roleArn.split(separator: "/", omittingEmptySubsequences: false).last ?? "")
    }

    /// The name the permission policy is stored under.
    package var policyName: String { self.roleName }

    /// Checks every setting and says which one is wrong.
    /// - Throws: ``EngineSetupError`` with code ``EngineSetupError/Code/invalidConfiguration`` naming the
    ///   setting.
    package func validate() throws(EngineSetupError) {
        if let problem = S3BucketName.awsRuleProblem(self.bucket) {
            throw .invalidConfiguration("the bucket '\(self.bucket)' is not a bucket name: \(problem)")
        }
        let allowedName = self.providerName.unicodeScalars.allSatisfy {
            $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "_-.".unicodeScalars.contains($0))
        }
        guard !self.providerName.isEmpty, self.providerName.utf8.count <= 64, allowedName else {
            throw .invalidConfiguration("the provider name '\(self.providerName)' must be 1 to 64 letters, digits, '_', '-' or '.'")
        }
        let parts = self.roleArn.split(separator: ":", maxSplits: 5, omittingEmptySubsequences: false)
        let roleNameAllowed = self.roleName.unicodeScalars.allSatisfy {
            $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "+=,.@_-".unicodeScalars.contains($0))
        }
        guard parts.count == 6, parts[0] == "arn", parts[2] == "iam", parts[5].hasPrefix("role/"),
            !self.roleName.isEmpty, self.roleName.utf8.count <= 64, roleNameAllowed
        else {
            throw .invalidConfiguration("the role ARN '\(self.roleArn)' is not arn:aws:iam::ACCOUNT:role/NAME with a NAME of 1 to 64 of [A-Za-z0-9+=,.@_-]")
        }
        guard let issuerURL = URL(string: self.issuer.issuer), issuerURL.scheme != nil, issuerURL.host() != nil else {
            throw .invalidConfiguration("the issuer '\(self.issuer.issuer)' is not a URL")
        }
        guard let jwks = URL(string: self.issuer.jwksURI), ["http", "https"].contains(jwks.scheme?.lowercased() ?? ""),
            jwks.host() != nil
        else {
            throw .invalidConfiguration("the JWKS address '\(self.issuer.jwksURI)' is not an http or https URL")
        }
        if self.issuer.clientId.isEmpty {
            throw .invalidConfiguration("the client id must not be empty")
        }
        _ = try Self.folderPattern(self.partitionTemplate)
        guard let key = Data(base64Encoded: self.signingKey), key.count >= 32 else {
            throw .invalidConfiguration("the STS signing key must be the base64 of at least 32 bytes")
        }
        guard (900...self.maximumSessionSeconds).contains(self.sessionSeconds), self.maximumSessionSeconds <= 43_200 else {
            throw .invalidConfiguration("session lengths must be 900 to 43200 seconds, the default no longer than the maximum")
        }
    }

    /// A user's folder as a policy pattern: the template with `{id}` replaced by `${jwt:sub}`.
    ///
    /// The template's fixed text must follow the object-name rules and must not contain `*`, `?`, `$`,
    /// `{` or `}`, which are wildcards or variable syntax in a policy and would widen what a user may reach.
    /// - Parameter template: The partition template, such as `users/{id}/`.
    /// - Returns: The pattern, such as `users/${jwt:sub}/`.
    /// - Throws: ``EngineSetupError`` with code ``EngineSetupError/Code/invalidConfiguration`` naming the
    ///   rule the template breaks.
    package static func folderPattern(_ template: String) throws(EngineSetupError) -> String {
        do {
            _ = try PartitionPrefix.make(template: template, userId: "id")
        } catch {
            throw .invalidConfiguration("the partition template '\(template)' is refused: \(error.message)")
        }
        let fixed = template.replacing(PartitionPrefix.placeholder, with: "")
        if let special = fixed.first(where: { "*?${}".contains($0) }) {
            throw .invalidConfiguration("the partition template '\(template)' must not contain '\(special)' outside {id}: in a policy it is a wildcard or variable syntax")
        }
        return template.replacing(PartitionPrefix.placeholder, with: Self.subjectVariable)
    }

    // MARK: Policies

    /// The role's permission policy: each user may read, write and delete objects under their folder, clean
    /// up their multipart uploads, and list the bucket only with their folder as the prefix.
    /// - Throws: ``EngineSetupError`` for an unusable partition template.
    package func permissionPolicy() throws(EngineSetupError) -> PolicyDocument {
        let folder = try Self.folderPattern(self.partitionTemplate)
        return PolicyDocument(statements: [
            .allow(
                "ListOwnFolder", actions: ["s3:ListBucket"], resources: ["arn:aws:s3:::\(self.bucket)"],
                conditions: [Condition(.stringLike, key: "s3:prefix", values: [folder, "\(folder)*"])]),
            .allow(
                "ReadWriteOwnObjects",
                actions: ["s3:GetObject", "s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload", "s3:ListMultipartUploadParts"],
                resources: ["arn:aws:s3:::\(self.bucket)/\(folder)*"]),
        ])
    }

    /// The role's trust policy: the provider's users may assume the role with a web-identity token.
    package func trustPolicy() -> PolicyDocument {
        PolicyDocument(statements: [
            .allow("IssuerUsers", federated: [self.providerName], actions: ["sts:AssumeRoleWithWebIdentity"])
        ])
    }

    /// Both policies checked as IAM policies: no errors, no warnings.
    /// - Throws: ``EngineSetupError`` with code ``EngineSetupError/Code/invalidConfiguration`` and the
    ///   diagnostics.
    package func checkPolicies() throws(EngineSetupError) {
        let documents: [(String, PolicyDocument, PolicyKind)] = [
            ("permission policy", try self.permissionPolicy(), .identity), ("trust policy", self.trustPolicy(), .trust),
        ]
        for (name, document, kind) in documents {
            let result = Policy.validate(document.json(), kind: kind, name: name)
            if !result.diagnostics.isEmpty {
                throw .invalidConfiguration("the \(name) does not check out: \(result.diagnostics.map(\.description).joined(separator: "; "))")
            }
        }
    }
}

extension SeaweedFSIAMConfig: CustomStringConvertible {
    /// The provider, role and bucket; never the signing key.
    package var description: String {
        "SeaweedFSIAMConfig(provider: \(self.providerName), issuer: \(self.issuer.issuer), role: \(self.roleArn), bucket: \(self.bucket))"
    }
}
