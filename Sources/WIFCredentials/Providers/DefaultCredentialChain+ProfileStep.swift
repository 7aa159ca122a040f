import Foundation
import Logging
import Synchronization

extension DefaultCredentialChain {
    /// The chain's last step: the selected profile, assuming its role with web identity when it sets
    /// `role_arn` and `web_identity_token_file`, else returning its static keys.
    ///
    /// The files are read when the step is asked; once a profile turns out to use web identity, the
    /// provider built for it is kept, so its cached credentials and refresh survive between calls.
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
            if let provider = self.webIdentity.provider.withLock({ $0 }) {
                return try await provider.getCredentials(logger: logger)
            }
            var location = AWSConfigFileLocation(environment: self.environment, platform: self.platform)
            if let profileName { location.profileName = profileName }
            let profileSet = try AWSProfileSet.load(from: location)
            if let configuration = try WebIdentityConfiguration(
                profileSet: profileSet,
                environment: self.environment,
                platform: self.platform
            ) {
                let candidate = self.makeWebIdentity(configuration)
                // Two first calls may race; both then use the provider stored first.
                let provider = self.webIdentity.provider.withLock { stored in
                    if stored == nil { stored = candidate }
                    return stored ?? candidate
                }
                logger.debug(
                    "profile uses web identity",
                    metadata: ["wif.profile.name": "\(profileSet.selectedProfileName)", "wif.web_identity.role_arn": "\(configuration.roleArn)"]
                )
                return try await provider.getCredentials(logger: logger)
            }
            return try await ProfileCredentialProvider(profileSet: profileSet).getCredentials(logger: logger)
        }

        func invalidate(accessKeyId: String) async {
            if let provider = self.webIdentity.provider.withLock({ $0 }) {
                await provider.invalidate(accessKeyId: accessKeyId)
            }
        }

        var description: String {
            "ProfileCredentialProvider(profile: \(self.profileName ?? "<selected>"), web identity or static keys)"
        }

        /// The web-identity provider, once the profile turned out to need one; shared by copies.
        private final class Slot: Sendable {
            let provider = Mutex<WebIdentityCredentialProvider?>(nil)
        }
    }
}
