import Foundation
import Testing

@testable import WIFEngines

/// The IAM config a SeaweedFS set-up writes, and the checks on its settings, without a SeaweedFS.
@Suite("SeaweedFS IAM config")
struct SeaweedFSIAMConfigTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func config(template: String = "{id}/", bucket: String = "wif-personal") -> SeaweedFSIAMConfig {
        SeaweedFSIAMConfig(
            providerName: "wif-local",
            issuer: .init(issuer: "https://wif.localhost", jwksURI: "http://127.0.0.1:4566/.well-known/jwks.json", clientId: "wif-local"),
            bucket: bucket, roleArn: SeaweedFSIAMConfig.defaultRoleArn, partitionTemplate: template,
            signingKey: Data(repeating: 7, count: 32).base64EncodedString())
    }

    static func jsonObject(_ text: String) throws -> NSDictionary {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? NSDictionary)
    }

    static func jsonObject(_ data: Data) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    // MARK: The document

    @Test func theDefaultPoliciesAreTheShippedOnes() throws {
        let config = Self.config()
        for (file, document) in [("personal-store.json", try config.permissionPolicy()), ("trust.json", config.trustPolicy())] {
            let shipped = try String(contentsOf: Self.repository.appendingPathComponent("policies/seaweedfs/\(file)"), encoding: .utf8)
            #expect(try Self.jsonObject(document.json()) == Self.jsonObject(shipped), "policies/seaweedfs/\(file) differs from what set-up writes")
        }
        try config.checkPolicies()
    }

    @Test func theFileHoldsTheProviderTheRoleAndItsPolicy() throws {
        let object = try Self.jsonObject(try Self.config().fileContents())
        let sts = try #require(object["sts"] as? [String: Any])
        #expect((sts["tokenDuration"] as? NSNumber)?.int64Value == 3_600_000_000_000, "nanoseconds")
        #expect((sts["maxSessionLength"] as? NSNumber)?.int64Value == 43_200_000_000_000)
        #expect(sts["signingKey"] as? String == Data(repeating: 7, count: 32).base64EncodedString())
        let providers = try #require(sts["providers"] as? [[String: Any]])
        #expect(providers.count == 1)
        #expect(providers.first?["name"] as? String == "wif-local")
        #expect(providers.first?["type"] as? String == "oidc")
        #expect(providers.first?["enabled"] as? Bool == true)
        let provider = try #require(providers.first?["config"] as? [String: String])
        #expect(provider == ["issuer": "https://wif.localhost", "clientId": "wif-local", "jwksUri": "http://127.0.0.1:4566/.well-known/jwks.json"])
        #expect((object["policy"] as? [String: String])?["defaultEffect"] == "Deny")

        let roles = try #require(object["roles"] as? [[String: Any]])
        #expect(roles.count == 1)
        #expect(roles.first?["roleName"] as? String == "personal-store")
        #expect(roles.first?["roleArn"] as? String == "arn:aws:iam::000000000000:role/personal-store")
        #expect(roles.first?["attachedPolicies"] as? [String] == ["personal-store"])
        let trust = try #require(roles.first?["trustPolicy"] as? [String: Any])
        let statement = try #require((trust["Statement"] as? [[String: Any]])?.first)
        #expect(statement["Principal"] as? [String: String] == ["Federated": "wif-local"], "SeaweedFS names the provider, not its URL")
        let policies = try #require(object["policies"] as? [[String: Any]])
        #expect(policies.first?["name"] as? String == "personal-store")
        let text = String(decoding: try Self.config().fileContents(), as: UTF8.self)
        #expect(text.contains("arn:aws:s3:::wif-personal/${jwt:sub}/*"))
    }

    @Test func theSameSettingsGiveTheSameBytes() throws {
        #expect(try Self.config().fileContents() == Self.config().fileContents())
        #expect(try Self.config().fileContents() != Self.config(bucket: "other-bucket").fileContents())
    }

    @Test(arguments: [
        ("{id}/", "${jwt:sub}/"), ("users/{id}/", "users/${jwt:sub}/"), ("oidc/{id}/files/", "oidc/${jwt:sub}/files/"),
    ])
    func aTemplateBecomesAFolderPattern(template: String, pattern: String) throws {
        #expect(try SeaweedFSIAMConfig.folderPattern(template) == pattern)
        let policy = try Self.config(template: template).permissionPolicy().json()
        #expect(policy.contains("\"arn:aws:s3:::wif-personal/\(pattern)*\""))
        #expect(policy.contains("\"\(pattern)\",\"\(pattern)*\""), "\(policy)")
        try Self.config(template: template).checkPolicies()
    }

    @Test(arguments: [
        ("a*/{id}/", "must not contain '*'"), ("x?/{id}/", "must not contain '?'"), ("$/{id}/", "must not contain '$'"),
        ("{x}/{id}/", "must not contain '{'"), ("{id}", "is refused"), ("../{id}/", "is refused"), ("users/", "is refused"),
    ])
    func aTemplateThatWouldWidenThePolicyIsRefused(template: String, message: String) throws {
        let error = #expect(throws: EngineSetupError.self) { try SeaweedFSIAMConfig.folderPattern(template) }
        #expect(error?.description.contains(message) == true, "\(error?.description ?? "")")
        #expect(error?.description.contains(template) == true)
    }

    @Test func everySettingIsChecked() throws {
        var cases: [(SeaweedFSIAMConfig, String)] = []
        var config = Self.config(bucket: "Not_A_Bucket")
        cases.append((config, "is not a bucket name"))
        config = Self.config()
        config.providerName = "wif local"
        cases.append((config, "provider name"))
        config = Self.config()
        config.roleArn = "arn:aws:iam::role/personal-store"
        cases.append((config, "is not arn:aws:iam::ACCOUNT:role/NAME"))
        config = Self.config()
        config.roleArn = "arn:aws:s3:::bucket/role/x"
        cases.append((config, "role ARN"))
        config = Self.config()
        config.issuer.jwksURI = "file:///etc/keys"
        cases.append((config, "JWKS address"))
        config = Self.config()
        config.issuer.clientId = ""
        cases.append((config, "client id"))
        config = Self.config()
        config.signingKey = Data(repeating: 1, count: 16).base64EncodedString()
        cases.append((config, "at least 32 bytes"))
        config = Self.config()
        config.sessionSeconds = 600
        cases.append((config, "900 to 43200"))
        for (config, message) in cases {
            let error = #expect(throws: EngineSetupError.self) { try config.fileContents() }
            #expect(error?.description.contains(message) == true, "\(message): \(error?.description ?? "")")
        }
    }

    @Test func theSigningKeyOfAnExistingFileIsKept() throws {
        let contents = try Self.config().fileContents()
        #expect(SeaweedFSIAMConfig.existingSigningKey(in: contents) == Data(repeating: 7, count: 32).base64EncodedString())
        #expect(SeaweedFSIAMConfig.existingSigningKey(in: Data("not json".utf8)) == nil)
        #expect(SeaweedFSIAMConfig.existingSigningKey(in: Data(#"{"sts": {"signingKey": "c2hvcnQ="}}"#.utf8)) == nil, "too short to keep")
        let fresh = SeaweedFSIAMConfig.newSigningKey()
        #expect(Data(base64Encoded: fresh)?.count == 32)
        #expect(fresh != SeaweedFSIAMConfig.newSigningKey())
    }

    @Test func aFileThisSetupDidNotWriteIsNotReplaced() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wif-iam-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("iam.json")
        for (text, reason) in [
            ("my notes about the cluster\n", "is not an IAM config (not JSON: line 1, column 1)"),
            ("[1, 2]", "is not an IAM config (its JSON is an array, not an object)"),
            (#"{"identities": [{"name": "admin"}], "sts": {}}"#, "holds identities, which this setup does not write and would lose"),
        ] {
            try Data(text.utf8).write(to: file)
            let error = #expect(throws: EngineSetupError.self) { try SeaweedFSSetup.signingKey(keptIn: file) }
            #expect(error?.description.contains(reason) == true, "\(error?.description ?? "")")
            #expect(error?.description.contains("it was left as it is") == true)
        }
        // What the setup wrote, or an empty file, is replaced.
        try Self.config().fileContents().write(to: file)
        #expect(try SeaweedFSSetup.signingKey(keptIn: file) == Data(repeating: 7, count: 32).base64EncodedString())
        try Data().write(to: file)
        #expect(Data(base64Encoded: try SeaweedFSSetup.signingKey(keptIn: file))?.count == 32)
    }
}
