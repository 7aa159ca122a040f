import Testing

import PolicyEngine

/// Each shipped per-user policy, weakened in many ways: every weakening that leaks is caught with a
/// counterexample the simulator confirms, and every weakening that does not leak is proved.
@Suite struct PolicyMutationTests {
    /// A per-user policy and the names it uses.
    struct Subject: Sendable, CustomTestStringConvertible {
        var file: String
        var idKey: String
        /// The folder of the user, relative to the bucket, such as `facebook/{id}/`.
        var template: String
        var alphabet: String

        var testDescription: String { self.file }
        var variable: String { "${\(self.idKey)}" }
        var folderPrefix: String { String(self.template.prefix { $0 != "{" }) }
    }

    /// One way to weaken (or merely change) a policy, and whether the result leaks.
    struct Mutation: Sendable, CustomTestStringConvertible {
        var name: String
        var leaks: Bool
        var apply: @Sendable (inout [Statement], Subject) -> Void

        var testDescription: String { self.name }
    }

    /// The per-user policies written by hand: the mutations edit their `ListOwnFolder` and
    /// `ReadWriteOwnObjects` statements. The compiled storage layout names its statements by path, and
    /// StorageRulesTests mutates it against its rules instead.
    static let subjects: [Subject] = ShippedPolicyProofTests.cases.filter { $0.placeholder == nil && !$0.identity.hasPrefix("storage/") }.map {
        Subject(file: $0.identity, idKey: $0.idKey, template: $0.template, alphabet: $0.alphabet)
    }

    static let bucketARN = "arn:aws:s3:::\(ShippedPolicies.bucket)"

    /// Applies `change` to the statement with the given Sid.
    static func edit(_ statements: inout [Statement], _ sid: String, _ change: (inout Statement) -> Void) {
        for index in statements.indices where statements[index].sid == sid { change(&statements[index]) }
    }

    static func replaceInResources(_ statements: inout [Statement], _ old: String, _ new: String) {
        self.edit(&statements, "ReadWriteOwnObjects") { statement in
            statement.resource = .resource((statement.resource?.patterns ?? []).map { $0.replacingOccurrences(of: old, with: new) })
        }
    }

    static func editPrefixCondition(_ statements: inout [Statement], _ change: @escaping (inout Condition) -> Void) {
        self.edit(&statements, "ListOwnFolder") { statement in
            for index in statement.conditions.indices where statement.conditions[index].key == "s3:prefix" {
                change(&statement.conditions[index])
            }
        }
    }

    static let mutations: [Mutation] = [
        Mutation(name: "prefix condition removed", leaks: true) { statements, _ in
            edit(&statements, "ListOwnFolder") { $0.conditions = [] }
        },
        Mutation(name: "star added after the variable", leaks: true) { statements, subject in
            replaceInResources(&statements, subject.variable + "/*", subject.variable + "*/*")
        },
        Mutation(name: "question mark added after the variable", leaks: true) { statements, subject in
            replaceInResources(&statements, subject.variable + "/*", subject.variable + "?/*")
        },
        Mutation(name: "variable replaced by a star", leaks: true) { statements, subject in
            replaceInResources(&statements, subject.variable, "*")
        },
        Mutation(name: "slash after the variable dropped from the resource", leaks: true) { statements, subject in
            replaceInResources(&statements, subject.variable + "/*", subject.variable + "*")
        },
        Mutation(name: "slash after the variable dropped from the prefix condition", leaks: true) { statements, subject in
            editPrefixCondition(&statements) { condition in
                condition.values = condition.values.map { $0.replacingOccurrences(of: subject.variable + "/", with: subject.variable) }
            }
        },
        Mutation(name: "StringNotLike where StringLike was", leaks: true) { statements, _ in
            editPrefixCondition(&statements) { $0.operator = .stringNotLike }
        },
        Mutation(name: "IfExists added to the prefix condition", leaks: true) { statements, _ in
            editPrefixCondition(&statements) { $0.operator = $0.operator.ifExists }
        },
        Mutation(name: "the empty prefix allowed", leaks: true) { statements, _ in
            editPrefixCondition(&statements) { $0.values.append("") }
        },
        Mutation(name: "NotResource where Resource was", leaks: true) { statements, _ in
            edit(&statements, "ReadWriteOwnObjects") { $0.resource = .notResource($0.resource?.patterns ?? []) }
        },
        Mutation(name: "another user's folder named literally", leaks: true) { statements, subject in
            edit(&statements, "ReadWriteOwnObjects") { statement in
                statement.resource = .resource(
                    (statement.resource?.patterns ?? []) + ["\(bucketARN)/\(subject.folderPrefix)1001/*"])
            }
        },
        Mutation(name: "object resource widened to the bucket, guarded by no deny", leaks: true) { statements, _ in
            edit(&statements, "ReadWriteOwnObjects") { $0.resource = .resource(["\(bucketARN)/*"]) }
        },
        Mutation(name: "StringEquals where StringLike was", leaks: false) { statements, _ in
            editPrefixCondition(&statements) { $0.operator = .stringEquals }
        },
        Mutation(name: "listing widened to every s3:List action", leaks: false) { statements, _ in
            edit(&statements, "ListOwnFolder") { $0.action = .action(["s3:List*"]) }
        },
        Mutation(name: "object actions widened to s3:*", leaks: false) { statements, _ in
            edit(&statements, "ReadWriteOwnObjects") { $0.action = .action(["s3:*"]) }
        },
        Mutation(name: "object resource of another bucket", leaks: false) { statements, _ in
            edit(&statements, "ReadWriteOwnObjects") { statement in
                statement.resource = .resource(["arn:aws:s3:::another-bucket/*"])
            }
        },
        Mutation(name: "object resource widened to the bucket, guarded by a deny outside the folder", leaks: false) {
            statements, subject in
            let own = "\(bucketARN)/\(subject.folderPrefix)\(subject.variable)/*"
            edit(&statements, "ReadWriteOwnObjects") { $0.resource = .resource(["\(bucketARN)/*"]) }
            statements.append(Statement(
                sid: "DenyOutsideOwnFolder", effect: .deny, action: .action(["s3:*"]),
                resource: .notResource([own, bucketARN])))
        },
        Mutation(name: "a deny of the empty prefix added", leaks: false) { statements, _ in
            statements.append(Statement(
                sid: "NoRootListing", effect: .deny, action: .action(["s3:ListBucket"]), resource: .resource([bucketARN]),
                conditions: [Condition(.stringEquals, key: "s3:prefix", values: [""])]))
        },
    ]

    @Test(arguments: subjects, mutations)
    func weakeningIsCaughtOrProved(_ subject: Subject, _ mutation: Mutation) throws {
        let original = try ShippedPolicies.policy(subject.file, kind: .identity)
        var statements = original.statements
        mutation.apply(&statements, subject)
        #expect(statements != original.statements, "the mutation changed nothing")
        let policy = try Policy(version: .v2012_10_17, statements: statements, kind: .identity, name: subject.file)
        let prover = PolicyProver(bucket: ShippedPolicies.bucket, alphabet: try IdentifierAlphabet(subject.alphabet))
        let result = prover.proveIsolation(
            identityPolicies: [policy], template: try PartitionTemplate(subject.template), idKey: subject.idKey)
        if mutation.leaks {
            let found = try ProverFixtures.confirmedCounterexample(
                result, template: subject.template, idKey: subject.idKey, policies: PolicySimulator(identityPolicies: [policy]))
            #expect(found != nil, "\(mutation.name) leaks but was not caught")
        } else {
            #expect(result.name == "proved", "\(mutation.name) does not leak but was not proved: \(result)")
        }
    }
}
