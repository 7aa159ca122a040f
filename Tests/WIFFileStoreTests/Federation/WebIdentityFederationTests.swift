import AsyncHTTPClient
import Foundation
import Logging
import S3Partition
import Testing
import WIFCredentials
import WIFFileStore
import WIFLocal
import WIFTestSupport

/// A token federated through the local stack's STS becomes its user's folder, and nobody else's.
@Suite struct WebIdentityFederationTests {
    /// Runs `body` against a local stack in a temporary folder, with a federation into the Google role.
    static func withFederation(_ body: (LocalEndpoint, WebIdentityFederation) async throws -> Void) async throws {
        let root = TemporaryFolder.url("wif-federation")
        defer { try? FileManager.default.removeItem(at: root) }
        var configuration = LocalConfiguration.default(dataDirectory: root.path)
        configuration.port = 0
        try await StoreRuntime.withHTTPClient { httpClient in
            try await LocalStack.run(configuration, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })) { endpoint in
                let token = try endpoint.developmentToken(provider: "google", user: "probe")
                let roleArn = try #require(token.roleArn)
                let template = try #require(endpoint.configuration.role(arn: roleArn)?.partitionTemplate)
                let federation = WebIdentityFederation(
                    sts: try STSClient(
                        configuration: STSClient.Configuration(region: configuration.region, endpoint: endpoint.url), environment: [:],
                        httpClient: httpClient),
                    s3: S3Client.Configuration(region: configuration.region, endpoint: endpoint.url),
                    roleArn: roleArn, bucket: try #require(token.bucket), partitionTemplate: template, httpClient: httpClient)
                try await body(endpoint, federation)
            }
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func aTokenBecomesItsUsersFolder() async throws {
        try await Self.withFederation { endpoint, federation in
            let token = try endpoint.developmentToken(provider: "google", user: "alice")
            let alice = try await federation.federate(token: token.token, roleSessionName: SignIn.sessionName(for: "alice"))
            #expect(alice.subject == "alice")
            #expect(alice.folder.prefix.value == "google/alice/")
            #expect(alice.result.requestId != nil)

            let file = TemporaryFolder.url("wif-federation", suffix: ".txt")
            defer { try? FileManager.default.removeItem(at: file) }
            try Data("alice's notes\n".utf8).write(to: file)
            _ = try await alice.folder.put("notes.txt", fromFile: file.path)
            var names: [String] = []
            for try await object in try alice.folder.list().objects { names.append(object.name) }
            #expect(names == ["notes.txt"])

            // Another user's folder is refused by the role's policy.
            let bobToken = try endpoint.developmentToken(provider: "google", user: "bob")
            let bob = try await federation.federate(token: bobToken.token)
            let denied = await #expect(throws: S3Error.self) {
                _ = try await bob.folder.client.listObjectsV2(ListObjectsV2Request(bucket: federation.bucket, prefix: "google/alice/"))
            }
            #expect(denied?.code == .accessDenied)
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func aSubjectThatCannotNameAFolderIsRefusedWithTheRequestId() async throws {
        try await Self.withFederation { endpoint, federation in
            let token = try endpoint.developmentToken(provider: "google", user: "alice")
            let result = try await federation.assumeRole(token: token.token)
            let error = #expect(throws: FileStoreError.self) {
                try federation.folder(
                    subject: "../bob", credentialProvider: StaticCredentialProvider(credentials: result.credentials), requestId: result.requestId)
            }
            #expect(error?.code == .folderRefused)
            #expect(error?.s3Error?.code == .invalidUserId)
            #expect(error?.requestId == result.requestId)
        }
    }

    @Test func aRefusedTokenIsSTSsError() async throws {
        try await Self.withFederation { _, federation in
            let error = await #expect(throws: WIFCredentialsError.self) {
                _ = try await federation.federate(token: "not-a-token-at-all")
            }
            #expect(error.map { SignIn.refusesIdentity($0) } == true)
        }
    }
}
