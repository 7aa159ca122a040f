import Foundation
import Testing

import PolicyEngine

/// The policies shipped in `policies/` at the repository root, and the identity providers they are for.
enum ShippedPolicies {
    static let bucket = "wif-personal"
    static let roleArn = "arn:aws:iam::111122223333:role/personal-store"

    /// The repository root, found from this file's location (`Tests/PolicyEngineTests/Policies/`).
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let folder = root.appendingPathComponent("policies")

    /// Every `.json` file under `policies/`, as paths relative to it, sorted.
    static func allFiles() throws -> [String] {
        guard let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else {
            throw PolicyFileError("cannot list \(folder.path)")
        }
        let prefix = folder.standardizedFileURL.path + "/"
        var files: [String] = []
        // Storage rules files (`*.rules.json`) are not policies: AccessRulesTests read them and check
        // that the policies beside them are their compiled output.
        for case let url as URL in enumerator where url.pathExtension == "json" && !url.lastPathComponent.hasSuffix(".rules.json") {
            files.append(String(url.standardizedFileURL.path.dropFirst(prefix.count)))
        }
        return files.sorted()
    }

    static func text(_ relativePath: String) throws -> String {
        try String(contentsOf: folder.appendingPathComponent(relativePath), encoding: .utf8)
    }

    static func policy(_ relativePath: String, kind: PolicyKind) throws -> Policy {
        try TestSupport.policy(try self.text(relativePath), kind: kind, name: relativePath)
    }

    /// The kind each file is written as: trust policies are `trust.json` or `ROLE.trust.json`, everything
    /// else is an identity policy.
    static func kind(of relativePath: String) -> PolicyKind {
        relativePath.hasSuffix("/trust.json") || relativePath.hasSuffix(".trust.json") ? .trust : .identity
    }

    /// The compiled default storage layout (`wif-tool rules compile policies/storage/amplify-default.rules.json`).
    static let storageFiles = ["unauthenticated", "authenticated", "group-admin"].flatMap {
        ["storage/amplify-default/\($0).json", "storage/amplify-default/\($0).trust.json"]
    }

    /// One identity provider: where its policies live and how its users look to AWS.
    struct Provider: Sendable, CustomTestStringConvertible {
        /// The folder in `policies/` and the file name in `policies/local/`.
        var name: String
        /// A user of the application the trust policy names.
        var user: @Sendable (String) -> WebIdentity
        /// A user of another application of the same provider.
        var userOfAnotherApp: @Sendable (String) -> WebIdentity
        /// For the local stack: the same provider as the local stack configures it.
        var localUser: @Sendable (String) -> WebIdentity

        var testDescription: String { self.name }

        var personalStore: String { "\(self.name)/personal-store.json" }
        var trust: String { "\(self.name)/trust.json" }
        var local: String { "local/\(self.name).json" }
    }

    static let facebook = Provider(
        name: "facebook",
        user: { .facebook(userId: $0, appId: "FACEBOOK_APP_ID") },
        userOfAnotherApp: { .facebook(userId: $0, appId: "1234567890") },
        localUser: { .facebook(userId: $0, appId: "FACEBOOK_APP_ID") })

    static let google = Provider(
        name: "google",
        user: { .google(subject: $0, audience: "GOOGLE_CLIENT_ID.apps.googleusercontent.com") },
        userOfAnotherApp: { .google(subject: $0, audience: "other-client.apps.googleusercontent.com") },
        localUser: { .google(subject: $0, audience: "GOOGLE_CLIENT_ID.apps.googleusercontent.com") })

    static let amazon = Provider(
        name: "amazon",
        user: { .amazon(userId: $0, appId: "amzn1.application-oa2-client.AMAZON_CLIENT_ID") },
        userOfAnotherApp: { .amazon(userId: $0, appId: "amzn1.application-oa2-client.other") },
        localUser: { .amazon(userId: $0, appId: "amzn1.application-oa2-client.AMAZON_CLIENT_ID") })

    static let cognito = Provider(
        name: "cognito",
        user: { .cognito(identityId: $0, identityPoolId: "us-east-1:COGNITO_IDENTITY_POOL_ID") },
        userOfAnotherApp: { .cognito(identityId: $0, identityPoolId: "us-east-1:other-pool") },
        localUser: { .cognito(identityId: $0, identityPoolId: "us-east-1:COGNITO_IDENTITY_POOL_ID") })

    static let oidc = Provider(
        name: "oidc",
        user: { .oidc(issuer: "https://oidc.example.com", subject: $0, audiences: ["OIDC_CLIENT_ID"]) },
        userOfAnotherApp: { .oidc(issuer: "https://oidc.example.com", subject: $0, audiences: ["another-client"]) },
        localUser: { .oidc(issuer: "https://wif.localhost", subject: $0, audiences: ["wif-local"]) })

    static let providers = [facebook, google, amazon, cognito, oidc]

    /// A role session of the personal-store role for a web identity.
    static func session(_ identity: WebIdentity) throws -> WebIdentitySession {
        try WebIdentitySession(identity, role: self.roleArn, sessionName: "personal-store-user")
    }

    static func object(_ key: String) -> String { "arn:aws:s3:::\(self.bucket)/\(key)" }
}

struct PolicyFileError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
