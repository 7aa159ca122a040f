import Logging
import Synchronization
import Testing
@testable import WIFCredentials

/// A provider whose answers are scripted and whose calls are counted.
private final class ScriptedProvider: CredentialProvider, CustomStringConvertible {
    struct Calls: Sendable {
        var getCredentials = 0
        var invalidated: [String] = []
    }

    let name: String
    private let result: Mutex<Result<AWSCredentials, any Error>>
    private let calls = Mutex(Calls())

    init(_ name: String, result: Result<AWSCredentials, any Error>) {
        self.name = name
        self.result = Mutex(result)
    }

    static func succeeding(_ name: String, keyId: String) -> ScriptedProvider {
        ScriptedProvider(name, result: .success(AWSCredentials(accessKeyId: keyId, secretAccessKey: "hidden-\(keyId)")))
    }

    static func failing(_ name: String, _ error: any Error) -> ScriptedProvider {
        ScriptedProvider(name, result: .failure(error))
    }

    func setResult(_ result: Result<AWSCredentials, any Error>) {
        self.result.withLock { $0 = result }
    }

    var callCount: Int { self.calls.withLock { $0.getCredentials } }
    var invalidated: [String] { self.calls.withLock { $0.invalidated } }

    func getCredentials(logger: Logger) async throws -> AWSCredentials {
        self.calls.withLock { $0.getCredentials += 1 }
        return try self.result.withLock { $0 }.get()
    }

    func invalidate(accessKeyId: String) async {
        self.calls.withLock { $0.invalidated.append(accessKeyId) }
    }

    var description: String { "Scripted(\(self.name))" }
}

private struct ForeignError: Error, CustomStringConvertible {
    var description: String { "contains hidden-material" }
}

@Suite struct ChainCredentialProviderTests {
    @Test func returnsTheFirstSuccessInOrder() async throws {
        let first = ScriptedProvider.failing("first", WIFCredentialsError.noCredentials("nothing here"))
        let second = ScriptedProvider.succeeding("second", keyId: "AKIATWO")
        let third = ScriptedProvider.succeeding("third", keyId: "AKIATHREE")
        let chain = ChainCredentialProvider([first, second, third])

        #expect(chain.selectedIndex == nil)
        #expect(try await chain.getCredentials().accessKeyId == "AKIATWO")
        #expect(chain.selectedIndex == 1)
        #expect([first.callCount, second.callCount, third.callCount] == [1, 1, 0])
    }

    @Test func remembersTheProviderThatSucceeded() async throws {
        let first = ScriptedProvider.failing("first", WIFCredentialsError.noCredentials("nothing here"))
        let second = ScriptedProvider.succeeding("second", keyId: "AKIATWO")
        let chain = ChainCredentialProvider([first, second])
        _ = try await chain.getCredentials()
        _ = try await chain.getCredentials()
        let copy = chain
        _ = try await copy.getCredentials()
        #expect(first.callCount == 1)
        #expect(second.callCount == 3)

        // The first provider now has credentials, but the chain keeps to the one it chose.
        first.setResult(.success(AWSCredentials(accessKeyId: "AKIAONE", secretAccessKey: "s")))
        #expect(try await chain.getCredentials().accessKeyId == "AKIATWO")
        #expect(first.callCount == 1)
    }

    @Test func chosenProviderFailuresAreNotMaskedByFallback() async throws {
        let first = ScriptedProvider.succeeding("first", keyId: "AKIAONE")
        let second = ScriptedProvider.succeeding("second", keyId: "AKIATWO")
        let chain = ChainCredentialProvider([first, second])
        _ = try await chain.getCredentials()
        first.setResult(.failure(WIFCredentialsError.network("connection reset")))
        let error = try await #require(throws: WIFCredentialsError.self) { try await chain.getCredentials() }
        #expect(error.code == .network)
        #expect(second.callCount == 0)
    }

    @Test func allFailuresAreListed() async throws {
        let chain = ChainCredentialProvider([
            EnvironmentCredentialProvider(environment: ["AWS_SECRET_ACCESS_KEY": "hidden-env"]),
            ProfileCredentialProvider(profileName: "dev", profileSet: try AWSProfileSet(credentialsFile: "[dev]\naws_secret_access_key = hidden-profile\n")),
            ScriptedProvider.failing("foreign", ForeignError()),
        ])
        let error = try await #require(throws: WIFCredentialsError.self) { try await chain.getCredentials() }
        #expect(error.code == .noCredentials)
        #expect(
            error.reason
                == "no provider in the chain supplied credentials: "
                + "1. EnvironmentCredentialProvider: no credentials in the environment: AWS_ACCESS_KEY_ID is not set; "
                + "2. ProfileCredentialProvider(profile: dev): profile 'dev' has no aws_access_key_id; "
                + "3. Scripted(foreign): failed with ForeignError"
        )
        #expect(!error.reason.contains("hidden"))
        #expect(chain.selectedIndex == nil)
    }

    @Test func failuresAreRetriedUntilSomethingSucceeds() async throws {
        let only = ScriptedProvider.failing("only", WIFCredentialsError.noCredentials("not yet"))
        let chain = ChainCredentialProvider([only])
        await #expect(throws: WIFCredentialsError.noCredentials("")) { try await chain.getCredentials() }
        only.setResult(.success(AWSCredentials(accessKeyId: "AKIALATER", secretAccessKey: "s")))
        #expect(try await chain.getCredentials().accessKeyId == "AKIALATER")
        #expect(chain.selectedIndex == 0)
    }

    @Test func emptyChain() async throws {
        let error = try await #require(throws: WIFCredentialsError.self) {
            try await ChainCredentialProvider([]).getCredentials()
        }
        #expect(error.code == .noCredentials)
        #expect(error.reason == "the credential provider chain is empty")
    }

    @Test func cancellationStopsTheChain() async throws {
        let first = ScriptedProvider.failing("first", CancellationError())
        let second = ScriptedProvider.succeeding("second", keyId: "AKIATWO")
        let chain = ChainCredentialProvider([first, second])
        await #expect(throws: CancellationError.self) { try await chain.getCredentials() }
        #expect(second.callCount == 0)
    }

    @Test func invalidateGoesToEveryProviderUntilOneIsChosen() async throws {
        let first = ScriptedProvider.failing("first", WIFCredentialsError.noCredentials("none"))
        let second = ScriptedProvider.succeeding("second", keyId: "AKIATWO")
        let chain = ChainCredentialProvider([first, second])
        await chain.invalidate(accessKeyId: "AKIAOLD")
        #expect(first.invalidated == ["AKIAOLD"])
        #expect(second.invalidated == ["AKIAOLD"])

        _ = try await chain.getCredentials()
        await chain.invalidate(accessKeyId: "AKIATWO")
        #expect(first.invalidated == ["AKIAOLD"])
        #expect(second.invalidated == ["AKIAOLD", "AKIATWO"])
    }

    @Test func factoriesCompose() async throws {
        let directory = try AWSConfigTestDirectory()
        try directory.writeCredentials("[default]\naws_access_key_id = AKIAPROFILE\naws_secret_access_key = s\n")
        let provider: ChainCredentialProvider = .chain(
            .environment([:]),
            .profile(environment: directory.environment(), platform: .posix),
            .static(accessKeyId: "AKIASTATIC", secretAccessKey: "s")
        )
        #expect(try await provider.getCredentials().accessKeyId == "AKIAPROFILE")
        #expect(provider.selectedIndex == 1)
        #expect(provider.providers.count == 3)
        #expect(
            provider.description
                == "ChainCredentialProvider(EnvironmentCredentialProvider, ProfileCredentialProvider(profile: <selected>), StaticCredentialProvider(accessKeyId: AKIASTATIC))"
        )

        // Leading-dot syntax also works where any provider is accepted.
        func keyId(from provider: some CredentialProvider) async throws -> String {
            try await provider.getCredentials().accessKeyId
        }
        #expect(try await keyId(from: .chain(.environment([:]), .static(accessKeyId: "AKIAOPAQUE", secretAccessKey: "s"))) == "AKIAOPAQUE")

        let fromArray: ChainCredentialProvider = .chain([StaticCredentialProvider(accessKeyId: "AKIAARRAY", secretAccessKey: "s")])
        #expect(try await fromArray.getCredentials().accessKeyId == "AKIAARRAY")
    }
}
