import Foundation
import Testing

import PolicyEngine

/// A permissions policy checked against its role's trust policy: variables of providers the role does
/// not trust are flagged with their JSON path and position, since the role's sessions never carry them.
@Suite struct TrustedProviderLintTests {
    static func trust(_ federated: String) throws -> Policy {
        try Policy.parse(
            #"{"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"Federated": "\#(federated)"}, "Action": "sts:AssumeRoleWithWebIdentity"}]}"#,
            kind: .trust)
    }

    static let facebookFolders = """
        {"Version": "2012-10-17", "Statement": [
          {"Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/${graph.facebook.com:id}/*"},
          {"Effect": "Allow", "Action": "s3:ListBucket", "Resource": "arn:aws:s3:::b",
           "Condition": {"StringLike": {"s3:prefix": ["${graph.facebook.com:id}/*", "${aws:userid}/*"]}}}]}
        """

    @Test func trustPoliciesNameTheirProvidersAsKeyNamespaces() throws {
        #expect(try Self.trust("accounts.google.com").trustedProviders == ["accounts.google.com"])
        #expect(try Self.trust("arn:aws:iam::123456789012:oidc-provider/token.actions.githubusercontent.com").trustedProviders
            == ["token.actions.githubusercontent.com"])
        #expect(try Self.trust("arn:aws:iam::123456789012:oidc-provider/oidc.eks.eu-west-1.amazonaws.com/id/ABC").trustedProviders
            == ["oidc.eks.eu-west-1.amazonaws.com/id/ABC"])
        #expect(try Policy.parse(#"{"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::123456789012:root"}, "Action": "sts:AssumeRole"}]}"#, kind: .trust).trustedProviders.isEmpty)
    }

    @Test func anotherProvidersVariableIsFlaggedWhereItIsWritten() throws {
        let result = Policy.validate(bytes: Array(Self.facebookFolders.utf8), trustedProviders: try Self.trust("accounts.google.com").trustedProviders)
        #expect(result.isValid)
        let flagged = result.warnings.filter { $0.message.contains("the role's trust policy trusts accounts.google.com") }
        #expect(flagged.map(\.path) == ["Statement[0].Resource", "Statement[1].Condition.StringLike.s3:prefix"])
        #expect(flagged.first?.line == 2 && flagged.first?.column == 49, "\(flagged.map { "\($0.line ?? 0):\($0.column ?? 0)" })")
        #expect(flagged.first?.hint == "use ${accounts.google.com:sub}")
        // aws: keys are every session's, whatever the provider.
        #expect(!result.warnings.contains { $0.message.contains("${aws:userid}") })
    }

    @Test func theTrustedProvidersVariablesAreNotFlagged() throws {
        let result = Policy.validate(bytes: Array(Self.facebookFolders.utf8), trustedProviders: try Self.trust("graph.facebook.com").trustedProviders)
        #expect(result.warnings.isEmpty, "\(result.warnings)")
        // Without a trust policy nothing is known about the role, and nothing is flagged.
        #expect(Policy.validate(Self.facebookFolders, kind: .identity).warnings.isEmpty)
    }
}
