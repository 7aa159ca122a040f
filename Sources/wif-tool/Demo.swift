import ArgumentParser
import AsyncHTTPClient
import Foundation
import Logging
import S3Partition
import WIFCredentials
import WIFFileStore
import WIFFoundation
import WIFLocal

extension WIFTool {
    /// `wif-tool demo`: the personal file store end to end, on a fresh local stack.
    struct Demo: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "demo",
            abstract: "Show the personal file store end to end on a fresh local stack.",
            discussion: """
                Starts a local stack in a temporary folder (removed afterwards; ~/.wif is not touched). \
                Two users, alice and bob, sign in with development Google ID tokens and assume the same \
                role, whose policy gives each of them only their own folder (google/<id>/). Each uploads, \
                lists and downloads a file; then bob tries alice's file and folder and is refused \
                (AccessDenied is the expected outcome), and a name that would leave his folder is refused \
                before anything is sent. Then the stack's identity pool, as Amplify's storage uses one: a \
                guest reads public/ and cannot write; alice and bob sign in through the pool with the same \
                tokens; alice writes public/ and her protected/<identity id>/ folder; bob reads her \
                protected file but not her private folder. Last the stack's todo API, whose @auth rules give each \
                todo to its owner and let an API key and signed-in IAM callers read: alice creates a todo with \
                her user pool token, bob's token is refused it, an API key reads it but cannot create one, and \
                bob's identity pool credentials read it. Every step and its result is printed (--json: {"ok", "steps": \
                [{"step", "actor", "action", "expected", "outcome", "ok"}]}).

                Exit status: 0 when every step behaved as expected; 1 otherwise.
                """
        )

        @OptionGroup var options: GlobalOptions

        struct Step: Encodable {
            var step: Int
            var actor: String
            var action: String
            var expected: String
            var outcome: String
            var ok: Bool
        }

        struct Output: Encodable {
            var ok: Bool
            var steps: [Step]
        }

        func run() async throws {
            try await reportingStoreErrors {
                let root = FileManager.default.temporaryDirectory.appendingPathComponent("wif-demo-\(UUID().uuidString)")
                try StoreRuntime.createPrivateFolder(root)
                defer { try? FileManager.default.removeItem(at: root) }
                let recorder = DemoRecorder(json: self.options.json)
                let local = LocalConfiguration.default(dataDirectory: root.appendingPathComponent("stack").path)
                let logger = self.options.makeLogger()
                try await StoreRuntime.withHTTPClient { httpClient in
                    try await StoreRuntime.withEmbeddedStack(local, logger: logger) { endpoint in
                        try await DemoScript(endpoint: endpoint, work: root, recorder: recorder, httpClient: httpClient, logger: logger).run()
                    }
                }
                let steps = recorder.steps
                let ok = !steps.isEmpty && steps.allSatisfy(\.ok)
                if self.options.json {
                    try printJSON(Output(ok: ok, steps: steps))
                } else {
                    let failed = steps.filter { !$0.ok }.count
                    printOut(ok ? "\nAll \(steps.count) steps behaved as expected.\n" : "\n\(failed) of \(steps.count) steps did not behave as expected.\n")
                }
                if !ok { throw ExitStatus.failure.exitCode }
            }
        }
    }
}

/// Collects the demo's steps and prints each as it completes.
final class DemoRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [WIFTool.Demo.Step] = []
    let json: Bool

    init(json: Bool) {
        self.json = json
    }

    var steps: [WIFTool.Demo.Step] { self.lock.withLock { self.recorded } }

    func record(actor: String, action: String, expected: String, outcome: String, ok: Bool) {
        let step = self.lock.withLock { () -> WIFTool.Demo.Step in
            let step = WIFTool.Demo.Step(
                step: self.recorded.count + 1, actor: actor, action: action, expected: expected, outcome: outcome, ok: ok)
            self.recorded.append(step)
            return step
        }
        guard !self.json else { return }
        let mark = ok ? "ok" : "UNEXPECTED"
        printRaw(String(format: "%2d. ", step.step) + "\(actor): \(action)\n    expected: \(expected)\n    \(mark): \(outcome)\n")
    }
}

/// The demo's steps, against a running stack.
struct DemoScript {
    let endpoint: LocalEndpoint
    let work: URL
    let recorder: DemoRecorder
    let httpClient: HTTPClient
    let logger: Logger

    static let provider = "google"

    /// A signed-in demo user.
    struct User {
        var name: String
        var bucket: PartitionedBucket
        var client: S3Client
    }

    /// Why a step ended early.
    struct StepFailed: Error {}

    func run() async throws {
        do {
            let alice = try await self.signIn("alice")
            let bob = try await self.signIn("bob")
            let aliceText = "alice's shopping list: apples, pears\n"
            let bobText = "bob's notes: call the plumber\n"
            try await self.put(alice, name: "notes.txt", text: aliceText)
            try await self.put(bob, name: "notes.txt", text: bobText)
            try await self.list(alice, expecting: ["notes.txt"])
            try await self.list(bob, expecting: ["notes.txt"])
            try await self.get(alice, name: "notes.txt", expecting: aliceText)
            try await self.get(bob, name: "notes.txt", expecting: bobText)

            let aliceKey = try alice.bucket.key(for: "notes.txt")
            try await self.expectDenied(bob, action: "reads alice's file s3://\(bob.bucket.bucket)/\(aliceKey)") {
                let target = self.work.appendingPathComponent("stolen.txt").path
                _ = try await bob.client.getObject(bucket: bob.bucket.bucket, key: aliceKey, toFile: target, logger: self.logger)
            }
            try await self.expectDenied(bob, action: "lists alice's folder \(alice.bucket.prefix.value)") {
                let request = ListObjectsV2Request(bucket: bob.bucket.bucket, prefix: alice.bucket.prefix.value)
                _ = try await bob.client.listObjectsV2(request, logger: self.logger)
            }
            try await self.expectDenied(bob, action: "writes into alice's folder (\(alice.bucket.prefix.value)gift.txt)") {
                _ = try await bob.client.putObject(
                    bucket: bob.bucket.bucket, key: alice.bucket.prefix.value + "gift.txt", bytes: Array("hi".utf8), logger: self.logger)
            }
            self.refusedName(bob, name: "../alice/notes.txt")

            let stillThere = try await self.readText(alice, name: "notes.txt")
            self.recorder.record(
                actor: "alice", action: "reads notes.txt again", expected: "her file, untouched by bob",
                outcome: stillThere == aliceText ? "unchanged (\(aliceText.utf8.count) bytes)" : "content changed",
                ok: stillThere == aliceText)
            let poolBob = try await self.identityPoolSteps()
            try await self.apiSteps(iamCredentials: poolBob?.credentials)
        } catch is StepFailed {
            return
        }
    }

    /// An identity of the stack's pool: its id and an S3 client with its credentials.
    struct PoolIdentity {
        var name: String
        var identityId: String
        var client: S3Client
        var bucket: String
        /// The identity's credentials.
        var credentials: AWSCredentials

        /// The identity's folder of a level, or `identity`'s.
        func folder(_ level: StorageLevel, of identity: String? = nil) throws -> PartitionedBucket {
            let folder = level.folder(identityId: identity ?? self.identityId)
            return try PartitionedBucket(
                client: self.client, bucket: self.bucket, prefix: try PartitionPrefix.make(template: folder.template, userId: folder.id))
        }

        /// The identity as a user of the other steps' helpers, in a level's folder.
        func user(_ level: StorageLevel, of identity: String? = nil) throws -> User {
            User(name: self.name, bucket: try self.folder(level, of: identity), client: self.client)
        }
    }

    /// The identity pool: guest access, Amplify's public and protected folders, and a private folder
    /// nobody else reads.
    /// - Returns: Bob's identity, for the API steps.
    private func identityPoolSteps() async throws -> PoolIdentity? {
        guard let pool = self.endpoint.configuration.identityPools.first else { return nil }
        let guest = try await self.signIn(pool: pool, user: nil)
        let alice = try await self.signIn(pool: pool, user: "alice")
        let bob = try await self.signIn(pool: pool, user: "bob")
        let hello = "hello from alice, for everyone\n"
        let card = "alice's card: signed-in users may read this\n"
        try await self.put(try alice.user(.public), name: "hello.txt", text: hello, expected: "stored in public/, which signed-in users may write")
        try await self.put(try alice.user(.protected), name: "card.txt", text: card, expected: "stored in her protected folder")
        try await self.get(try guest.user(.public), name: "hello.txt", expecting: hello, expected: "alice's public file: guests read public/")
        try await self.expectDenied(try guest.user(.public), action: "writes public/graffiti.txt") {
            _ = try await guest.folder(.public).put("graffiti.txt", bytes: Array("x".utf8), logger: self.logger)
        }
        try await self.get(
            try bob.user(.protected, of: alice.identityId), name: "card.txt", expecting: card,
            expected: "alice's protected file: signed-in users read protected/")
        try await self.expectDenied(bob, action: "lists alice's private folder private/\(alice.identityId)/") {
            _ = try await bob.folder(.private, of: alice.identityId).list(logger: self.logger).objects.first { _ in true }
        }
        return bob
    }

    private func expectDenied(_ identity: PoolIdentity, action: String, _ body: () async throws -> Void) async throws {
        try await self.expectDenied(try identity.user(.private), action: action, body)
    }

    private func signIn(pool: IdentityPoolDefinition, user: String?) async throws -> PoolIdentity {
        let name = user.map { "\($0) (identity pool)" } ?? "guest"
        let action = user == nil ? "signs in as a guest of the identity pool" : "signs in to the identity pool with the same \(Self.provider) token"
        let expected = user == nil ? "a new identity with the pool's guest role" : "an identity of their own with the pool's authenticated role"
        do {
            var login: (key: String, token: String)?
            if let user {
                let token = try self.endpoint.developmentToken(provider: Self.provider, user: user)
                guard let key = self.endpoint.configuration.provider(named: Self.provider)?.loginsKey else {
                    throw CommandFailure(status: .failure, message: "the pool has no logins key for \(Self.provider)")
                }
                login = (key, token.token)
            }
            guard let url = URL(string: self.endpoint.url) else {
                throw CommandFailure(status: .failure, message: "the local stack reported an unusable address \(self.endpoint.url)")
            }
            let connection = IdentityPoolSignIn.Connection(endpoint: self.endpoint.url, stsEndpoint: url, httpClient: self.httpClient)
            let issued = try await IdentityPoolSignIn.credentials(
                poolId: pool.id, login: login, identityId: nil, basicFlowRoleArn: nil, connection: connection, logger: self.logger)
            let region = self.endpoint.configuration.region
            let role = await IdentityPoolSignIn.role(of: issued.credentials, region: region, connection: connection, logger: self.logger)
            let client = try S3Client(
                configuration: S3Client.Configuration(region: region, endpoint: self.endpoint.url),
                credentialProvider: StaticCredentialProvider(credentials: issued.credentials), environment: [:], httpClient: self.httpClient)
            let bucket = role.flatMap { self.endpoint.configuration.role(arn: $0)?.bucket } ?? "wif-personal"
            let roleName = role?.split(separator: "/").last.map(String.init) ?? "unknown"
            self.recorder.record(
                actor: name, action: action, expected: expected, outcome: "identity \(issued.identityId), role \(roleName)",
                ok: role == (user == nil ? pool.roles.unauthenticated : pool.roles.authenticated))
            return PoolIdentity(name: name, identityId: issued.identityId, client: client, bucket: bucket, credentials: issued.credentials)
        } catch {
            self.recorder.record(actor: name, action: action, expected: expected, outcome: Self.describe(error), ok: false)
            throw StepFailed()
        }
    }

    private func signIn(_ user: String) async throws -> User {
        let action = "signs in with a development \(Self.provider) ID token"
        do {
            let token = try self.endpoint.developmentToken(provider: Self.provider, user: user)
            guard let roleArn = token.roleArn, let bucketName = token.bucket else {
                throw CommandFailure(status: .failure, message: "the local stack has no role for \(Self.provider)")
            }
            let region = self.endpoint.configuration.region
            let federation = WebIdentityFederation(
                sts: try STSClient(
                    configuration: STSClient.Configuration(region: region, endpoint: self.endpoint.url), environment: [:],
                    httpClient: self.httpClient),
                s3: S3Client.Configuration(region: region, endpoint: self.endpoint.url),
                roleArn: roleArn, bucket: bucketName,
                partitionTemplate: self.endpoint.configuration.role(arn: roleArn)?.partitionTemplate ?? PartitionPrefix.defaultTemplate,
                httpClient: self.httpClient)
            let federated = try await federation.federate(
                token: token.token, providerId: token.providerId, roleSessionName: SignIn.sessionName(for: user), fallbackSubject: user,
                logger: self.logger)
            let subject = federated.subject
            let bucket = federated.folder
            let client = bucket.client
            let role = roleArn.split(separator: "/").last.map(String.init) ?? roleArn
            self.recorder.record(
                actor: user, action: action, expected: "temporary credentials for role \(role)",
                outcome: "signed in as \(subject); folder s3://\(bucketName)/\(bucket.prefix.value)", ok: true)
            return User(name: user, bucket: bucket, client: client)
        } catch {
            self.recorder.record(actor: user, action: action, expected: "temporary credentials", outcome: Self.describe(error), ok: false)
            throw StepFailed()
        }
    }

    private func put(_ user: User, name: String, text: String, expected: String = "stored in their own folder") async throws {
        let path = self.work.appendingPathComponent("\(user.name)-\(name)")
        let action = "uploads \(name)"
        do {
            try Data(text.utf8).write(to: path)
            let result = try await user.bucket.put(name, fromFile: path.path, logger: self.logger)
            self.recorder.record(
                actor: user.name, action: action, expected: expected,
                outcome: "stored s3://\(user.bucket.bucket)/\(user.bucket.prefix.value)\(name) (\(result.size) bytes)", ok: true)
        } catch {
            self.recorder.record(actor: user.name, action: action, expected: expected, outcome: Self.describe(error), ok: false)
            throw StepFailed()
        }
    }

    private func list(_ user: User, expecting names: [String]) async throws {
        let expected = "only their own files: \(names.joined(separator: ", "))"
        do {
            var found: [String] = []
            for try await object in try user.bucket.list(logger: self.logger).objects { found.append(object.name) }
            self.recorder.record(
                actor: user.name, action: "lists their folder", expected: expected,
                outcome: found.isEmpty ? "no files" : found.joined(separator: ", "), ok: found == names)
        } catch {
            self.recorder.record(actor: user.name, action: "lists their folder", expected: expected, outcome: Self.describe(error), ok: false)
            throw StepFailed()
        }
    }

    private func get(_ user: User, name: String, expecting text: String, expected: String = "their own content back") async throws {
        let action = "downloads \(user.bucket.prefix.value)\(name)"
        do {
            let content = try await self.readText(user, name: name)
            self.recorder.record(
                actor: user.name, action: action, expected: expected,
                outcome: content == text ? "\"\(text.trimming(.newlines))\"" : "different content: \"\(content)\"",
                ok: content == text)
        } catch {
            self.recorder.record(actor: user.name, action: action, expected: expected, outcome: Self.describe(error), ok: false)
            throw StepFailed()
        }
    }

    private func readText(_ user: User, name: String) async throws -> String {
        let path = self.work.appendingPathComponent("\(user.name)-downloaded-\(name)")
        try await user.bucket.get(name, toFile: path.path, logger: self.logger)
        return String(decoding: try Data(contentsOf: path), as: UTF8.self)
    }

    private func expectDenied(_ user: User, action: String, _ body: () async throws -> Void) async throws {
        let expected = "refused by the role's policy: AccessDenied"
        do {
            try await body()
            self.recorder.record(actor: user.name, action: action, expected: expected, outcome: "it was allowed", ok: false)
        } catch let error as S3Error where error.code == .accessDenied {
            self.recorder.record(actor: user.name, action: action, expected: expected, outcome: "AccessDenied (as expected): \(error.message)", ok: true)
        } catch {
            self.recorder.record(actor: user.name, action: action, expected: expected, outcome: Self.describe(error), ok: false)
        }
    }

    private func refusedName(_ user: User, name: String) {
        let action = "asks for '\(name)'"
        let expected = "refused before sending: names cannot leave the folder"
        do {
            let key = try user.bucket.key(for: name)
            self.recorder.record(actor: user.name, action: action, expected: expected, outcome: "accepted as \(key)", ok: false)
        } catch {
            self.recorder.record(
                actor: user.name, action: action, expected: expected, outcome: "refused: \(error.message)", ok: error.code == .invalidObjectName)
        }
    }

    static func describe(_ error: any Error) -> String {
        switch error {
        case let error as S3Error: return ExitStatus.message(s3: error)
        case let error as WIFCredentialsError: return error.reason
        case let error as LocalStackError: return error.message
        default: return String(describing: error)
        }
    }
}
