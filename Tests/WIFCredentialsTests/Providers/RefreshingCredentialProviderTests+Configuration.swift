import Foundation
import Logging
import Synchronization
import Testing
@testable import WIFCredentials
import WIFTestSupport

extension RefreshingCredentialProviderTests {
    // MARK: Configuration

    @Test func defaultConfiguration() throws {
        let configuration = Configuration()
        #expect(configuration.advisoryWindow == nil)
        #expect(configuration.mandatoryWindow == .seconds(60))
        #expect(configuration.refreshBackoff == .seconds(420))
        #expect(configuration.nonRecoverableErrorCacheDuration == .seconds(5))
        #expect(configuration.refresh == .waitForAdvisoryRefresh)
        try configuration.validate()
        try Configuration(advisoryWindow: .seconds(60)).validate()
        try Configuration(mandatoryWindow: .zero, refreshBackoff: .zero, nonRecoverableErrorCacheDuration: .zero).validate()
    }

    @Test(arguments: [
        (Configuration(advisoryWindow: .seconds(30)), ["advisoryWindow", "30", "mandatoryWindow", "60"]),
        (Configuration(mandatoryWindow: .seconds(-1)), ["mandatoryWindow", "negative"]),
        (Configuration(refreshBackoff: .seconds(-5)), ["refreshBackoff", "negative"]),
        (Configuration(nonRecoverableErrorCacheDuration: .milliseconds(-1)), ["nonRecoverableErrorCacheDuration", "negative"]),
    ])
    func invalidConfigurationIsReportedByName(configuration: Configuration, mentions: [String]) async throws {
        let error = #expect(throws: WIFCredentialsError.self) { try configuration.validate() }
        #expect(error?.code == .invalidConfiguration)
        for word in mentions {
            #expect(error?.reason.contains(word) == true, "\(error?.reason ?? "") should mention \(word)")
        }

        let clock = ManualTimeSource()
        let source = ControlledCredentialSource(clock: clock)
        let provider = RefreshingCredentialProvider(source: source, configuration: configuration, timeSource: clock.timeSource)
        let thrown = await #expect(throws: WIFCredentialsError.self) { try await provider.getCredentials() }
        #expect(thrown?.code == .invalidConfiguration)
        #expect(thrown?.reason == error?.reason)
        #expect(source.calls == 0)
    }

    @Test func configuredAdvisoryWindowDecidesWhenToRefresh() async throws {
        let fixture = try await Fixture(configuration: Configuration(advisoryWindow: .seconds(1_800)))
        #expect(await fixture.provider.cache.advisoryWindow == 1_800)
        fixture.moveTo(secondsLeft: 1_800)
        #expect(try await fixture.provider.getCredentials() == fixture.seeded)
        fixture.moveTo(secondsLeft: 1_799)
        #expect(try await fixture.provider.getCredentials().accessKeyId == "ASIASOURCE2")
    }

    // MARK: Logging and descriptions

    @Test func logsUseDottedKeysAtDebugOrInfoAndNeverSecrets() async throws {
        let recorder = TestLogRecorder()
        let fixture = try await Fixture(seed: false)
        _ = try await fixture.provider.getCredentials(logger: recorder.logger)
        fixture.moveTo(secondsLeft: 30)
        fixture.source.failNext(with: WIFCredentialsError.network("reset"))
        _ = try await fixture.provider.getCredentials(logger: recorder.logger)
        _ = try await fixture.provider.getCredentials(logger: recorder.logger) // backing off
        fixture.clock.advance(by: .seconds(420))
        fixture.source.failNext(with: ConnectionDropped())
        _ = try await fixture.provider.getCredentials(logger: recorder.logger)
        fixture.clock.advance(by: .seconds(420))
        fixture.source.failNext(with: Self.accessDenied)
        _ = try? await fixture.provider.getCredentials(logger: recorder.logger)
        _ = try? await fixture.provider.getCredentials(logger: recorder.logger) // cached error
        await fixture.provider.cache.invalidate(accessKeyId: "ASIASOURCE1", logger: recorder.logger)

        let entries = recorder.records
        let outcomes = Set(entries.compactMap { $0.metadata["wif.credentials.refresh"].map { "\($0)" } })
        #expect(outcomes.isSuperset(of: ["initial", "refreshed", "mandatory", "failed_using_cached", "backoff", "failed_non_recoverable", "cached_error", "invalidate"]))
        for entry in entries {
            #expect(entry.level == .debug || entry.level == .info, "\(entry.message)")
            let text = entry.message + " " + entry.metadata.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            for secret in ["source-secret", "source-token-value", "do-not-leak"] {
                #expect(!text.contains(secret), "log leaks a secret: \(text)")
            }
            for key in entry.metadata.keys {
                #expect(key.hasPrefix("wif.credentials."), "\(key)")
            }
        }
        let refreshed = try #require(entries.first { $0.metadata["wif.credentials.refresh"] == "refreshed" })
        #expect(refreshed.level == .info)
        #expect(refreshed.metadata["wif.credentials.access_key_id"] == "ASIASOURCE1")
        #expect(refreshed.metadata["wif.credentials.refresh.advisory_window_seconds"] == "900")
        let failed = try #require(entries.first { $0.metadata["wif.credentials.refresh"] == "failed_using_cached" })
        #expect(failed.metadata["wif.credentials.refresh.retry_after_seconds"] == "420")
    }

    @Test func descriptionNamesTheSourceAndNoSecrets() async throws {
        let fixture = try await Fixture()
        let text = "\(fixture.provider)"
        #expect(text == "RefreshingCredentialProvider(source: ControlledCredentialSource)")
        #expect(!String(reflecting: fixture.provider).contains("source-secret"))
    }
}
