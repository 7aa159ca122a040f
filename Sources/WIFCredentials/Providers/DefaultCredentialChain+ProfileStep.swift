import Foundation
import Logging
import Synchronization

extension DefaultCredentialChain {
    /// The chain's last step: the selected profile, assuming its role with web identity when it sets
    /// `role_arn` and `web_identity_token_file`, else returning its static keys.
    ///
    /// The files are read when the step is asked. Once a profile turns out to use web identity, the
    /// provider built for it is kept, so its cached credentials and refresh survive between calls, until
    /// the config or credentials file changes on disk (another file, size or modification time): the
    /// next call then reads them again, and keeps the provider only if the profile's web-identity
    /// settings are the same.
    struct ProfileStep: CredentialProvider, CustomStringConvertible {
        let environment: [String: String]
        let profileName: String?
        let platform: AWSConfigFileLocation.Platform
        let makeWebIdentity: @Sendable (WebIdentityConfiguration) -> WebIdentityCredentialProvider
        private let webIdentity = Slot()

        init(
            environment: [String: String],
            profileName: String?,
            platform: AWSConfigFileLocation.Platform,
            makeWebIdentity: @escaping @Sendable (WebIdentityConfiguration) -> WebIdentityCredentialProvider
        ) {
            self.environment = environment
            self.profileName = profileName
            self.platform = platform
            self.makeWebIdentity = makeWebIdentity
        }

        func getCredentials(logger: Logger) async throws -> AWSCredentials {
            var location = AWSConfigFileLocation(environment: self.environment, platform: self.platform)
            if let profileName { location.profileName = profileName }
            // Stamped before reading, so an edit made during the read is seen by the next call.
            let stamp = FilesStamp(location)
            if let kept = self.webIdentity.kept.withLock({ $0 }), kept.stamp == stamp {
                return try await kept.provider.getCredentials(logger: logger)
            }
            let profileSet = try AWSProfileSet.load(from: location)
            guard let configuration = try WebIdentityConfiguration(profileSet: profileSet, environment: self.environment, platform: self.platform)
            else {
                self.webIdentity.kept.withLock { $0 = nil }
                return try await ProfileCredentialProvider(profileSet: profileSet).getCredentials(logger: logger)
            }
            let settings = configuration.description
            let provider = self.webIdentity.kept.withLock { kept in
                // Two calls may race, and a touched file may hold the same settings: both keep the
                // provider already there rather than start a new cache.
                if let current = kept, current.settings == settings {
                    kept = Kept(stamp: stamp, settings: settings, provider: current.provider)
                    return current.provider
                }
                let created = self.makeWebIdentity(configuration)
                kept = Kept(stamp: stamp, settings: settings, provider: created)
                return created
            }
            logger.debug(
                "profile uses web identity",
                metadata: ["wif.profile.name": "\(profileSet.selectedProfileName)", "wif.web_identity.role_arn": "\(configuration.roleArn)"]
            )
            return try await provider.getCredentials(logger: logger)
        }

        func invalidate(accessKeyId: String) async {
            if let kept = self.webIdentity.kept.withLock({ $0 }) {
                await kept.provider.invalidate(accessKeyId: accessKeyId)
            }
        }

        var description: String {
            "ProfileCredentialProvider(profile: \(self.profileName ?? "<selected>"), web identity or static keys)"
        }

        /// The web-identity provider of the profile as last read, and what the files looked like then.
        struct Kept: Sendable {
            var stamp: FilesStamp
            /// The profile's web-identity settings, as its configuration describes them.
            var settings: String
            var provider: WebIdentityCredentialProvider
        }

        /// The kept provider, shared by copies of the step.
        private final class Slot: Sendable {
            let kept = Mutex<Kept?>(nil)
        }
    }

    /// What the shared config and credentials files looked like: for each, its file number, size and
    /// modification time, or that it is absent. A file replaced by another (as editors and `aws
    /// configure` save) has another number; one written in place has another size or time.
    struct FilesStamp: Equatable, Sendable {
        struct File: Equatable, Sendable {
            var number: UInt64
            var size: UInt64
            var modified: Date?
        }

        var files: [File?]

        init(_ location: AWSConfigFileLocation) {
            self.files = [AWSConfigFileKind.config, .credentials].map { kind in
                guard let attributes = try? FileManager.default.attributesOfItem(atPath: location.path(of: kind)) else { return nil }
                return File(
                    number: (attributes[.systemFileNumber] as? NSNumber)?.uint64Value ?? 0,
                    size: (attributes[.size] as? NSNumber)?.uint64Value ?? 0,
                    modified: attributes[.modificationDate] as? Date
                )
            }
        }
    }
}
