import Testing

import PolicyEngine

/// Each provider's personal-store policy gives a user their own folder — read, write, delete, multipart
/// housekeeping and listing with their own prefix — and nothing of anyone else's, whatever their id.
@Suite("Personal store policies")
struct PersonalStorePolicyTests {
    /// The two layouts: `<id>/…` (the provider folders) and `<provider>/<id>/…` (the local stack).
    struct Layout: Sendable, CustomTestStringConvertible {
        var provider: ShippedPolicies.Provider
        var local: Bool

        var file: String { self.local ? self.provider.local : self.provider.personalStore }
        /// The folder of a user, with its trailing slash.
        func folder(_ id: String) -> String { self.local ? "\(self.provider.name)/\(id)/" : "\(id)/" }
        func identity(_ id: String) -> WebIdentity { self.local ? self.provider.localUser(id) : self.provider.user(id) }
        var testDescription: String { self.local ? "local/\(self.provider.name)" : self.provider.name }
    }

    static let layouts = ShippedPolicies.providers.flatMap { [Layout(provider: $0, local: false), Layout(provider: $0, local: true)] }

    static let objectActions = ["GetObject", "PutObject", "DeleteObject", "AbortMultipartUpload", "ListMultipartUploadParts"]

    /// Ids chosen to break naive pattern building: wildcards, path syntax, variable syntax, the empty id,
    /// a very long id, non-ASCII and decomposed characters, and ids that are prefixes of one another.
    static let adversarialIds = [
        "*", "?", "/", "..", "../1002", "${", "${graph.facebook.com:id}", "}", "", " ", "*/*", "10*", "1?02", "a/b",
        "1002/..", "%2F", "\\", ":", "us-east-1:*", String(repeating: "9", count: 5_000), String(repeating: "*", count: 200),
        "ünïcødé-ユーザー", "e\u{301}", "line\nbreak", "12", "123", "1001", "10012",
    ]

    static let victims = ["1002", "12", "123", "1001", "10012", "*", "x", "ünïcødé-ユーザー"]

    func simulator(_ layout: Layout) throws -> PolicySimulator {
        PolicySimulator(identityPolicies: [try ShippedPolicies.policy(layout.file, kind: .identity)])
    }

    /// The ListBucket decision for a prefix, with `s3:prefix` exactly as S3 sets it (empty when none).
    func list(_ sim: PolicySimulator, prefix: String?, as session: WebIdentitySession) -> Decision {
        sim.decideListBucket(ShippedPolicies.bucket, prefix: prefix, as: session)
    }

    @Test(arguments: Self.layouts)
    func aUserReachesTheirOwnFolder(layout: Layout) throws {
        let sim = try self.simulator(layout)
        let me = try ShippedPolicies.session(layout.identity("1001"))
        let folder = layout.folder("1001")
        for action in Self.objectActions {
            for key in ["\(folder)a.txt", "\(folder)photos/2024/holiday picture.jpg", "\(folder)", "\(folder)../x"] {
                let decision = sim.decide(.s3(action), ShippedPolicies.object(key), as: me)
                #expect(decision == .allow, "\(action) \(key): \(sim.explain(.s3(action), ShippedPolicies.object(key), as: me).text)")
            }
        }
        for prefix in [folder, "\(folder)photos/", "\(folder)photos/2024-", "\(folder)*"] {
            #expect(self.list(sim, prefix: prefix, as: me) == .allow, "prefix \(prefix)")
            #expect(sim.decideListBucket(ShippedPolicies.bucket, prefix: prefix, delimiter: "/", as: me) == .allow)
        }
        let allowed = sim.decide(.s3("GetObject"), ShippedPolicies.object("\(folder)a.txt"), as: me)
        #expect(allowed.statements.map(\.sid) == ["ReadWriteOwnObjects"])
        #expect(self.list(sim, prefix: folder, as: me).statements.map(\.sid) == ["ListOwnFolder"])
    }

    @Test(arguments: Self.layouts)
    func nothingOfAnotherUser(layout: Layout) throws {
        let sim = try self.simulator(layout)
        let me = try ShippedPolicies.session(layout.identity("1001"))
        let other = layout.folder("1002")
        for action in Self.objectActions {
            for key in ["\(other)a.txt", other, "\(other)deep/er/key"] {
                #expect(sim.decide(.s3(action), ShippedPolicies.object(key), as: me) == .implicitDeny, "\(action) \(key)")
            }
        }
        for prefix in [other, "\(other)photos/", ""] {
            #expect(self.list(sim, prefix: prefix, as: me) == .implicitDeny, "prefix \(prefix.debugDescription)")
        }
        // No prefix at all: S3 sends s3:prefix as "", and a request missing the key is refused too.
        #expect(self.list(sim, prefix: nil, as: me) == .implicitDeny)
        #expect(sim.decide(.s3("ListBucket"), "arn:aws:s3:::\(ShippedPolicies.bucket)", as: me) == .implicitDeny)
        // Prefixes that would also list other users' folders.
        let mine = layout.folder("1001")
        for prefix in [String(mine.dropLast()), "100", "1", layout.local ? "\(layout.provider.name)/" : "/", "*", "1001*", "\(mine.dropLast())?"] {
            #expect(self.list(sim, prefix: prefix, as: me) == .implicitDeny, "prefix \(prefix.debugDescription)")
        }
        // The bucket itself, objects outside any folder, and other buckets.
        #expect(sim.decide(.s3("GetObject"), ShippedPolicies.object("1001"), as: me) == .implicitDeny)
        #expect(sim.decide(.s3("GetObject"), ShippedPolicies.object("readme.txt"), as: me) == .implicitDeny)
        #expect(sim.decide(.s3("GetObject"), "arn:aws:s3:::other-bucket/\(mine)a.txt", as: me) == .implicitDeny)
        #expect(sim.decide(.s3("ListBucket"), "arn:aws:s3:::other-bucket", as: me, context: ["s3:prefix": .single(mine)]) == .implicitDeny)
        for action in ["DeleteBucket", "PutBucketPolicy", "GetBucketPolicy", "ListBucketMultipartUploads", "PutObjectAcl", "GetObjectAcl"] {
            #expect(sim.decide(.s3(action), "arn:aws:s3:::\(ShippedPolicies.bucket)", as: me) == .implicitDeny, "\(action)")
            #expect(sim.decide(.s3(action), ShippedPolicies.object("\(mine)a.txt"), as: me) == .implicitDeny, "\(action)")
        }
    }

    @Test(arguments: Self.layouts)
    func idsThatArePrefixesOfEachOtherStayApart(layout: Layout) throws {
        let sim = try self.simulator(layout)
        let short = try ShippedPolicies.session(layout.identity("12"))
        let long = try ShippedPolicies.session(layout.identity("123"))
        #expect(sim.decide(.s3("GetObject"), ShippedPolicies.object("\(layout.folder("123"))a"), as: short) == .implicitDeny)
        #expect(sim.decide(.s3("GetObject"), ShippedPolicies.object("\(layout.folder("12"))a"), as: long) == .implicitDeny)
        #expect(self.list(sim, prefix: String(layout.folder("12").dropLast()), as: short) == .implicitDeny, "'12' would list '123/' too")
        #expect(self.list(sim, prefix: layout.folder("123"), as: short) == .implicitDeny)
        #expect(self.list(sim, prefix: layout.folder("12"), as: short) == .allow)
        #expect(self.list(sim, prefix: layout.folder("123"), as: long) == .allow)
    }

    @Test(arguments: Self.layouts)
    func adversarialIdsNeverReachAnotherFolder(layout: Layout) throws {
        let sim = try self.simulator(layout)
        for id in Self.adversarialIds {
            let user = try ShippedPolicies.session(layout.identity(id))
            let own = layout.folder(id)
            for victim in Self.victims where victim != id {
                let theirs = layout.folder(victim)
                for key in ["\(theirs)secret.txt", theirs] where !key.hasPrefix(own) {
                    for action in ["GetObject", "PutObject", "DeleteObject"] {
                        #expect(
                            sim.decide(.s3(action), ShippedPolicies.object(key), as: user) == .implicitDeny,
                            "id \(id.debugDescription) \(action) \(key.debugDescription)")
                    }
                }
                if !theirs.hasPrefix(own) {
                    #expect(self.list(sim, prefix: theirs, as: user) == .implicitDeny, "id \(id.debugDescription) lists \(theirs.debugDescription)")
                }
            }
            for prefix in ["", "*", "?", "/", String(own.dropLast())] where !prefix.hasPrefix(own) {
                #expect(self.list(sim, prefix: prefix, as: user) == .implicitDeny, "id \(id.debugDescription) lists \(prefix.debugDescription)")
            }
            #expect(sim.decide(.s3("PutObject"), ShippedPolicies.object("\(own)mine.txt"), as: user) == .allow, "id \(id.debugDescription)")
            #expect(self.list(sim, prefix: own, as: user) == .allow, "id \(id.debugDescription)")
        }
    }

    @Test(arguments: Self.layouts)
    func wildcardIdsMatchOnlyThemselves(layout: Layout) throws {
        let sim = try self.simulator(layout)
        let star = try ShippedPolicies.session(layout.identity("*"))
        let question = try ShippedPolicies.session(layout.identity("?"))
        #expect(sim.decide(.s3("GetObject"), ShippedPolicies.object("\(layout.folder("*"))x"), as: star) == .allow)
        #expect(sim.decide(.s3("GetObject"), ShippedPolicies.object("\(layout.folder("1002"))x"), as: star) == .implicitDeny)
        #expect(sim.decide(.s3("GetObject"), ShippedPolicies.object("\(layout.folder("a"))x"), as: question) == .implicitDeny)
        #expect(self.list(sim, prefix: layout.folder("a"), as: question) == .implicitDeny)
        #expect(self.list(sim, prefix: layout.folder("?"), as: question) == .allow)
    }

    /// A session whose token came from another provider has no value for this policy's id key: the variable
    /// resolves to nothing and no statement applies, whatever folder it names.
    @Test(arguments: Self.layouts)
    func anotherProvidersUserReachesNothing(layout: Layout) throws {
        let sim = try self.simulator(layout)
        for provider in ShippedPolicies.providers where provider.name != layout.provider.name {
            let stranger = try ShippedPolicies.session(layout.local ? provider.localUser("1001") : provider.user("1001"))
            for key in [layout.folder("1001") + "a.txt", layout.folder("") + "a.txt", "\(layout.folder("${x}"))a", "a.txt"] {
                #expect(sim.decide(.s3("GetObject"), ShippedPolicies.object(key), as: stranger) == .implicitDeny, "\(provider.name) \(key)")
            }
            for prefix in [layout.folder("1001"), layout.folder(""), "", "/"] {
                #expect(self.list(sim, prefix: prefix, as: stranger) == .implicitDeny, "\(provider.name) lists \(prefix.debugDescription)")
            }
        }
    }

    /// In the local layout, equal ids from two providers still get two folders.
    @Test(arguments: ShippedPolicies.providers)
    func localFoldersAreSeparatedByProvider(provider: ShippedPolicies.Provider) throws {
        let sim = try self.simulator(Layout(provider: provider, local: true))
        let user = try ShippedPolicies.session(provider.localUser("1001"))
        for other in ShippedPolicies.providers where other.name != provider.name {
            #expect(sim.decide(.s3("GetObject"), ShippedPolicies.object("\(other.name)/1001/a.txt"), as: user) == .implicitDeny)
            #expect(self.list(sim, prefix: "\(other.name)/1001/", as: user) == .implicitDeny)
        }
        #expect(sim.decide(.s3("GetObject"), ShippedPolicies.object("1001/a.txt"), as: user) == .implicitDeny)
        #expect(sim.decide(.s3("GetObject"), ShippedPolicies.object("\(provider.name)/1001/a.txt"), as: user) == .allow)
    }

    @Test func explanationsNameTheMissingCondition() throws {
        let layout = Layout(provider: ShippedPolicies.facebook, local: false)
        let sim = try self.simulator(layout)
        let me = try ShippedPolicies.session(layout.identity("1001"))
        let explanation = sim.explain(
            .s3("ListBucket"), "arn:aws:s3:::\(ShippedPolicies.bucket)", as: me, context: ["s3:prefix": ""])
        #expect(explanation.outcome == .implicitDeny)
        let list = try #require(explanation.policies.first?.statements.first)
        #expect(list.reference.sid == "ListOwnFolder")
        #expect(list.action.matched && list.resource.matched)
        #expect(list.conditions.map(\.policyValues) == [["1001/", "1001/*"]])
        #expect(list.conditions.first?.matched == false)
    }
}
