import Testing

@testable import PolicyEngine

/// `s3:` actions that S3 does not define: IAM accepts them, and they match no request.
@Suite struct S3ActionLintTests {
    private func warnings(_ actions: String, element: String = "Action") -> [PolicyDiagnostic] {
        let json = """
            {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "\(element)": \(actions), "Resource": "arn:aws:s3:::b/*"}]}
            """
        let validation = Policy.validate(json, kind: .identity)
        #expect(validation.errors.isEmpty, "unexpected errors: \(validation.errors)")
        return validation.warnings.filter { $0.message.contains("Amazon S3 defines") }
    }

    @Test func aMisspeltActionIsNamedWithTheClosestOne() throws {
        let found = self.warnings(#"["s3:GetObject", "s3:GetObjets"]"#)
        #expect(found.count == 1)
        let warning = try #require(found.first)
        #expect(warning.path == "Statement[0].Action[1]")
        #expect(warning.message == "'s3:GetObjets' is not an action that Amazon S3 defines, so it matches no request")
        #expect(warning.hint == "did you mean 's3:GetObject'?")
        #expect(warning.column == 88)
    }

    /// The API's operation names, where the permission is named otherwise, say which action to write.
    @Test func anOperationNameSaysWhichActionItNeeds() {
        let found = self.warnings(#"["s3:ListBuckets", "s3:HeadObject", "s3:CopyObject"]"#)
        #expect(found.map(\.hint) == [
            "ListBuckets is the API operation; it needs s3:ListAllMyBuckets",
            "HeadObject is the API operation; it needs s3:GetObject",
            "CopyObject is the API operation; it needs s3:GetObject and s3:PutObject",
        ])
        for actions in S3ActionNames.operations.values {
            for action in actions { #expect(S3ActionNames.lowercased.contains(action.lowercased()), "\(action)") }
        }
        #expect(S3ActionNames.operations.keys.allSatisfy { !S3ActionNames.lowercased.contains($0) })
    }

    @Test func actionsAreComparedWithoutCase() {
        #expect(self.warnings(#"["s3:getobject", "S3:PUTOBJECT", "s3:ListAllMyBuckets"]"#).isEmpty)
    }

    @Test func anActionFarFromEveryNameHasNoHint() {
        let found = self.warnings(#""s3:LaunchRocket""#)
        #expect(found.map(\.message) == ["'s3:LaunchRocket' is not an action that Amazon S3 defines, so it matches no request"])
        #expect(found.first?.hint == nil)
    }

    @Test func aPatternMustMatchSomeAction() {
        #expect(self.warnings(#"["s3:Get*", "s3:*Object", "s3:?utObject", "s3:*"]"#).isEmpty)
        #expect(self.warnings(#""s3:Gte*""#).map(\.message) == ["'s3:Gte*' matches no action that Amazon S3 defines, so it matches no request"])
    }

    @Test func notActionIsCheckedToo() {
        #expect(self.warnings(#""s3:DeleteObjekt""#, element: "NotAction").map(\.path) == ["Statement[0].NotAction"])
    }

    @Test func otherServicesAreLeftAlone() {
        #expect(self.warnings(#"["sts:AssumeRoleWithWebIdentity", "execute-api:Invoke", "s3express:CreateSession"]"#).isEmpty)
    }

    /// The list is names of letters only, sorted and each once, so two names run together show here.
    @Test func theListIsWellFormed() {
        let names = S3ActionNames.all
        #expect(names.count == 180)
        #expect(names == names.sorted())
        #expect(Set(names).count == names.count)
        for name in names {
            #expect(name.first?.isUppercase == true && name.allSatisfy { $0.isLetter || $0.isNumber }, "\(name)")
            #expect(name.count < 60, "\(name)")
        }
    }

    /// The actions this package names itself (the prover's catalogue, the linter's object actions) are
    /// all in the list.
    @Test func theCataloguesOfThisPackageAreKnownActions() {
        let named = S3ActionCatalog.objectActions + S3ActionCatalog.listingActions + S3ActionCatalog.escalatingBucketActions.map(\.action)
            + PolicyLinter.objectActions
        for action in named {
            #expect(S3ActionNames.lowercased.contains(String(action.dropFirst(3)).lowercased()), "\(action)")
        }
    }
}
