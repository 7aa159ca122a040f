import Foundation

extension CredentialProvider where Self == StaticCredentialProvider {
    /// A provider that always returns `credentials`.
    /// - Parameter credentials: The credentials to return.
    /// - Returns: A ``StaticCredentialProvider``.
    public static func `static`(_ credentials: AWSCredentials) -> Self {
        StaticCredentialProvider(credentials: credentials)
    }

    /// A provider that always returns the given keys.
    /// - Parameters:
    ///   - accessKeyId: The access key id.
    ///   - secretAccessKey: The secret access key.
    ///   - sessionToken: The session token, for temporary credentials.
    /// - Returns: A ``StaticCredentialProvider``.
    public static func `static`(accessKeyId: String, secretAccessKey: String, sessionToken: String? = nil) -> Self {
        StaticCredentialProvider(accessKeyId: accessKeyId, secretAccessKey: secretAccessKey, sessionToken: sessionToken)
    }
}

extension CredentialProvider where Self == EnvironmentCredentialProvider {
    /// A provider reading `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and friends from the process
    /// environment as it is when this is evaluated.
    public static var environment: Self {
        EnvironmentCredentialProvider()
    }

    /// A provider reading `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and friends from `environment`.
    /// - Parameter environment: The variables to read.
    /// - Returns: An ``EnvironmentCredentialProvider``.
    public static func environment(_ environment: [String: String]) -> Self {
        EnvironmentCredentialProvider(environment: environment)
    }
}

extension CredentialProvider where Self == ProfileCredentialProvider {
    /// A provider reading a profile's static keys from the files the environment points at.
    /// - Parameters:
    ///   - name: The profile; `nil` selects `AWS_PROFILE`, else `default`.
    ///   - environment: The variables to read; by default the process environment.
    ///   - platform: The path conventions to apply; by default this platform's.
    /// - Returns: A ``ProfileCredentialProvider``.
    public static func profile(
        _ name: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        platform: AWSConfigFileLocation.Platform = .current
    ) -> Self {
        ProfileCredentialProvider(profileName: name, environment: environment, platform: platform)
    }

    /// A provider reading a profile's static keys from profiles already loaded.
    /// - Parameters:
    ///   - name: The profile; `nil` selects `profileSet.selectedProfileName`.
    ///   - profileSet: The profiles.
    /// - Returns: A ``ProfileCredentialProvider``.
    public static func profile(_ name: String? = nil, in profileSet: AWSProfileSet) -> Self {
        ProfileCredentialProvider(profileName: name, profileSet: profileSet)
    }
}

extension CredentialProvider where Self == ChainCredentialProvider {
    /// A provider trying `providers` in order and keeping to the first that succeeds.
    /// - Parameter providers: The providers, in the order to try them.
    /// - Returns: A ``ChainCredentialProvider``.
    public static func chain<each Provider: CredentialProvider>(_ providers: repeat each Provider) -> Self {
        var list: [any CredentialProvider] = []
        for provider in repeat each providers {
            list.append(provider)
        }
        return ChainCredentialProvider(list)
    }

    /// A provider trying `providers` in order and keeping to the first that succeeds.
    /// - Parameter providers: The providers, in the order to try them.
    /// - Returns: A ``ChainCredentialProvider``.
    public static func chain(_ providers: [any CredentialProvider]) -> Self {
        ChainCredentialProvider(providers)
    }
}
