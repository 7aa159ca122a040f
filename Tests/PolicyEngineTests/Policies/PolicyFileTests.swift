import Foundation
import Testing

import PolicyEngine

/// Every file in `policies/` is a valid policy of its kind, with no warnings, and the set of files is the
/// documented one.
@Suite("Shipped policy files")
struct PolicyFileTests {
    static let expectedFiles = (ShippedPolicies.providers.flatMap { [$0.personalStore, $0.trust, $0.local] }
        + SeaweedFSPolicyTests.files + CephRGWPolicyTests.files + ShippedPolicies.storageFiles).sorted()

    @Test func everyProviderHasAPersonalStoreATrustAndALocalPolicy() throws {
        #expect(try ShippedPolicies.allFiles() == Self.expectedFiles)
    }

    @Test(arguments: Self.expectedFiles)
    func validatesWithoutErrorsOrWarnings(file: String) throws {
        let kind = ShippedPolicies.kind(of: file)
        let result = Policy.validate(try ShippedPolicies.text(file), kind: kind, name: file)
        #expect(result.errors.isEmpty, "\(file): \(result.errors.map(\.description))")
        // No warnings are expected in any shipped policy: a warning means a risky construct crept in.
        #expect(result.warnings.isEmpty, "\(file): \(result.warnings.map(\.description))")
        let policy = try #require(result.policy)
        #expect(policy.version == .v2012_10_17, "policy variables need Version 2012-10-17")
    }

    @Test(arguments: ShippedPolicies.providers)
    func identityPoliciesAreAlsoValidAsBoundariesAndSessionPolicies(provider: ShippedPolicies.Provider) throws {
        for file in [provider.personalStore, provider.local] {
            for kind in [PolicyKind.permissionsBoundary, .session] {
                let result = Policy.validate(try ShippedPolicies.text(file), kind: kind, name: file)
                #expect(result.diagnostics.isEmpty, "\(file) as \(kind): \(result.diagnostics.map(\.description))")
            }
        }
    }

    @Test(arguments: ShippedPolicies.providers)
    func trustPoliciesAreNotIdentityPolicies(provider: ShippedPolicies.Provider) throws {
        // A trust policy names a Principal, which an identity policy must not: attaching it to the wrong
        // place is caught.
        let result = Policy.validate(try ShippedPolicies.text(provider.trust), kind: .identity, name: provider.trust)
        #expect(!result.errors.isEmpty)
        #expect(result.errors.contains { $0.path == "Statement[0].Principal" && $0.message.contains("not allowed in identity policies") })
    }

    @Test(arguments: ShippedPolicies.providers)
    func personalStoreHasTheDocumentedShape(provider: ShippedPolicies.Provider) throws {
        let policy = try ShippedPolicies.policy(provider.personalStore, kind: .identity)
        #expect(policy.statements.count == 2)
        #expect(policy.statements.map(\.sid) == ["ListOwnFolder", "ReadWriteOwnObjects"])
        #expect(policy.statements.allSatisfy { $0.effect == .allow })
        let text = try ShippedPolicies.text(provider.personalStore)
        #expect(text.contains("arn:aws:s3:::wif-personal"))
        #expect(!text.contains("\"*\""), "no statement may name every resource or action")
    }
}
