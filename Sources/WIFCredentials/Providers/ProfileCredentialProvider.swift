import Foundation
import Logging

/// Supplies the static keys of a profile in the shared config and credentials files:
/// `aws_access_key_id`, `aws_secret_access_key` and, for temporary keys, `aws_session_token`
/// (plus `aws_account_id` when present).
///
/// Profiles that assume a role (`role_arn`), run a process or use SSO are not handled here. When the
/// provider reads files, it reads them on every call, so edits (`aws configure`) take effect without a
/// restart; wrap it in a cache if that matters.
public struct ProfileCredentialProvider: CredentialProvider, CustomStringConvertible {
    enum Source: Sendable {
        case files(AWSConfigFileLocation)
        case profiles(AWSProfileSet)
    }

    let source: Source
    /// The profile to read; `nil` means the selected one (`AWS_PROFILE`, else `default`).
    public let profileName: String?

    /// Creates a provider that reads the files the environment points at.
    /// - Parameters:
    ///   - profileName: The profile to read; `nil` selects `AWS_PROFILE`, else `default`.
    ///   - environment: The variables to read; by default the process environment.
    ///   - platform: The path conventions to apply; by default this platform's.
    public init(
        profileName: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        platform: AWSConfigFileLocation.Platform = .current
    ) {
        self.init(profileName: profileName, location: AWSConfigFileLocation(environment: environment, platform: platform))
    }

    /// Creates a provider that reads the files at `location`.
    /// - Parameters:
    ///   - profileName: The profile to read; `nil` selects `location.profileName`.
    ///   - location: The files to read.
    public init(profileName: String? = nil, location: AWSConfigFileLocation) {
        self.profileName = profileName
        self.source = .files(location)
    }

    /// Creates a provider over profiles already loaded.
    /// - Parameters:
    ///   - profileName: The profile to read; `nil` selects `profileSet.selectedProfileName`.
    ///   - profileSet: The profiles.
    public init(profileName: String? = nil, profileSet: AWSProfileSet) {
        self.profileName = profileName
        self.source = .profiles(profileSet)
    }

    /// Returns the selected profile's static keys.
    /// - Parameter logger: Where to log.
    /// - Returns: The credentials.
    /// - Throws: ``WIFCredentialsError`` with code `noCredentials` naming the profile and the missing
    ///   key, `profileParse` when a file is malformed, or `invalidConfiguration` when a file cannot be
    ///   read.
    public func getCredentials(logger: Logger) async throws -> AWSCredentials {
        let profileSet: AWSProfileSet
        let searched: String
        switch self.source {
        case .files(let location):
            profileSet = try AWSProfileSet.load(from: location)
            searched = Self.describeSearch(location: location, read: profileSet.sourcePaths)
        case .profiles(let set):
            profileSet = set
            searched = set.sourcePaths.isEmpty ? "the given profiles" : set.sourcePaths.joined(separator: " and ")
        }
        let name = self.profileName ?? profileSet.selectedProfileName
        logger.debug(
            "reading profile",
            metadata: [
                "wif.profile.name": "\(name)",
                "wif.profile.files": .array(profileSet.sourcePaths.map { .string($0) }),
            ]
        )
        for warning in profileSet.warnings {
            logger.debug("profile file entry ignored", metadata: ["wif.profile.warning": "\(warning)"])
        }
        guard let profile = profileSet.profiles[name] else {
            throw WIFCredentialsError.noCredentials("profile '\(name)' is not defined in \(searched)")
        }
        return try Self.credentials(from: profile)
    }

    /// Reads the static keys of `profile`.
    /// - Parameter profile: The profile.
    /// - Returns: The credentials.
    /// - Throws: ``WIFCredentialsError`` with code `noCredentials` naming the profile and the missing
    ///   or empty key.
    public static func credentials(from profile: AWSProfile) throws -> AWSCredentials {
        let keyNames = [AWSProfile.Key.accessKeyId, AWSProfile.Key.secretAccessKey]
        let values = keyNames.map { profile[$0] }
        if values.allSatisfy({ $0 == nil }) {
            var reason = "profile '\(profile.name)' has no aws_access_key_id and aws_secret_access_key"
            let other = [AWSProfile.Key.roleARN, AWSProfile.Key.credentialProcess, "sso_session", "sso_start_url"]
                .filter { profile[$0] != nil }
            if !other.isEmpty {
                reason += " (it sets \(other.joined(separator: ", ")), which this provider does not use)"
            }
            throw WIFCredentialsError.noCredentials(reason)
        }
        guard let accessKeyId = values[0], !accessKeyId.isEmpty, let secretAccessKey = values[1], !secretAccessKey.isEmpty
        else {
            let problems = zip(keyNames, values).compactMap { name, value -> String? in
                switch value {
                case nil: "no \(name)"
                case ""?: "an empty \(name)"
                default: nil
                }
            }
            throw WIFCredentialsError.noCredentials(
                "profile '\(profile.name)' has \(problems.joined(separator: " and "))"
            )
        }
        let sessionToken = profile[AWSProfile.Key.sessionToken]
        let accountId = profile[AWSProfile.Key.accountId]
        return AWSCredentials(
            accessKeyId: accessKeyId,
            secretAccessKey: secretAccessKey,
            sessionToken: sessionToken?.isEmpty == false ? sessionToken : nil,
            accountId: accountId?.isEmpty == false ? accountId : nil
        )
    }

    /// The provider's type and profile name.
    public var description: String {
        "ProfileCredentialProvider(profile: \(self.profileName ?? "<selected>"))"
    }

    private static func describeSearch(location: AWSConfigFileLocation, read: [String]) -> String {
        let paths = [location.configFilePath, location.credentialsFilePath]
        let missing = paths.filter { !read.contains($0) }
        var text = paths.joined(separator: " or ")
        if missing.count == paths.count {
            text += " (neither file exists)"
        } else if let missing = missing.first {
            text += " (\(missing) does not exist)"
        }
        return text
    }
}
