import Foundation

extension WebIdentityConfiguration {
    /// Reads the web-identity configuration of a profile in the shared config file.
    ///
    /// ```ini
    /// [profile ci]
    /// role_arn = arn:aws:iam::123456789012:role/ci
    /// web_identity_token_file = /var/run/ci/token
    /// role_session_name = ci-build
    /// duration_seconds = 1800
    /// region = eu-west-1
    /// ```
    ///
    /// A leading `~` in `web_identity_token_file` is replaced with the home directory. The region is
    /// `AWS_REGION`, else `AWS_DEFAULT_REGION`, else the profile's `region`. The STS endpoint is, in
    /// order, `AWS_ENDPOINT_URL_STS`, the `sts` `endpoint_url` of the profile's `services` section,
    /// `AWS_ENDPOINT_URL`, then the profile's `endpoint_url`; none of them when
    /// `AWS_IGNORE_CONFIGURED_ENDPOINT_URLS` is `true`, or is unset and the profile's
    /// `ignore_configured_endpoint_urls` is `true` (then the STS client disregards the endpoint variables
    /// too: ``ignoresConfiguredEndpointURLs``).
    /// - Parameters:
    ///   - profileSet: The loaded config and credentials files.
    ///   - profileName: The profile to read; `nil` for `profileSet.selectedProfileName`.
    ///   - environment: Variables that override the profile's region and endpoint, and give the home
    ///     directory; by default the process environment.
    ///   - platform: The path conventions for `~`; by default this platform's.
    /// - Returns: `nil` when the profile does not exist, or sets neither `role_arn` nor
    ///   `web_identity_token_file`, or assumes its role another way (`source_profile`,
    ///   `credential_source`).
    /// - Throws: ``WIFCredentialsError`` with code `invalidConfiguration` naming the profile and the
    ///   setting when `web_identity_token_file` is set without `role_arn` (or the reverse), or a value is
    ///   unusable.
    public init?(
        profileSet: AWSProfileSet,
        profileName: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        platform: AWSConfigFileLocation.Platform = .current
    ) throws {
        let name = profileName ?? profileSet.selectedProfileName
        guard let profile = profileSet[profile: name] else { return nil }
        let roleArn = profile.roleARN
        let tokenFile = profile.webIdentityTokenFile
        let assumesRoleOtherwise = profile.sourceProfile != nil || Self.nonEmpty(profile["credential_source"]) != nil
        switch (roleArn, tokenFile) {
        case (nil, nil):
            return nil
        case (_?, nil):
            if assumesRoleOtherwise { return nil }
            throw WIFCredentialsError.invalidConfiguration(
                "profile '\(name)' sets role_arn but not web_identity_token_file (nor source_profile or credential_source); set web_identity_token_file to the path of the web-identity token file"
            )
        case (nil, _?):
            throw WIFCredentialsError.invalidConfiguration(
                "profile '\(name)' sets web_identity_token_file but not role_arn; set role_arn to the ARN of the role to assume"
            )
        case (let roleArn?, let tokenFile?):
            if assumesRoleOtherwise {
                throw WIFCredentialsError.invalidConfiguration(
                    "profile '\(name)' sets web_identity_token_file together with source_profile or credential_source; keep only one way of assuming role_arn"
                )
            }
            try Self.checkRoleArn(roleArn, origin: "profile '\(name)': role_arn")
            let roleSessionName = profile.roleSessionName
            if let roleSessionName {
                try Self.checkRoleSessionName(roleSessionName, origin: "profile '\(name)': role_session_name")
            }
            let durationSeconds = try profile.durationSeconds
            if let durationSeconds, !AssumeRoleWithWebIdentityRequest.durationSecondsRange.contains(durationSeconds) {
                let range = AssumeRoleWithWebIdentityRequest.durationSecondsRange
                throw WIFCredentialsError.invalidConfiguration(
                    "profile '\(name)': duration_seconds is \(durationSeconds); STS accepts \(range.lowerBound)–\(range.upperBound) seconds (15 minutes to 12 hours)"
                )
            }
            let home = AWSConfigFileLocation.homeDirectory(environment: environment, platform: platform)
            let path = AWSConfigFileLocation.expandingHome(in: tokenFile, homeDirectory: home, platform: platform)
            self.init(
                roleArn: roleArn,
                tokenSource: FileTokenSource(path: path),
                roleSessionName: roleSessionName,
                durationSeconds: durationSeconds,
                region: try Self.region(profile: profile, environment: environment),
                stsEndpoint: try Self.stsEndpoint(profile: profile, profileSet: profileSet, environment: environment),
                ignoresConfiguredEndpointURLs: Self.ignoresConfiguredEndpointURLs(profile: profile, environment: environment)
            )
        }
    }

    /// Reads the shared config and credentials files the environment points at and returns the
    /// web-identity configuration of a profile in them.
    /// - Parameters:
    ///   - profileName: The profile to read; `nil` for `AWS_PROFILE`, else `default`.
    ///   - environment: The variables to read; by default the process environment.
    ///   - platform: The path conventions to apply; by default this platform's.
    /// - Returns: `nil` when the profile does not configure web identity; see
    ///   ``init(profileSet:profileName:environment:platform:)``.
    /// - Throws: ``WIFCredentialsError`` with code `profileParse` for a malformed file, or
    ///   `invalidConfiguration` as for ``init(profileSet:profileName:environment:platform:)``.
    public static func load(
        profileName: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        platform: AWSConfigFileLocation.Platform = .current
    ) throws -> WebIdentityConfiguration? {
        let profileSet = try AWSProfileSet.load(environment: environment, platform: platform)
        return try WebIdentityConfiguration(
            profileSet: profileSet,
            profileName: profileName,
            environment: environment,
            platform: platform
        )
    }

    private static func nonEmpty(_ value: String?) -> String? {
        guard let value, !value.isEmpty else { return nil }
        return value
    }

    private static func region(profile: AWSProfile, environment: [String: String]) throws -> String? {
        for name in [Variable.region, Variable.defaultRegion] {
            if let value = Self.nonEmpty(environment[name]) {
                return try STSClient.Configuration.validatedRegion(value, origin: name)
            }
        }
        guard let region = profile.region else { return nil }
        return try STSClient.Configuration.validatedRegion(region, origin: "profile '\(profile.name)': region")
    }

    /// `AWS_IGNORE_CONFIGURED_ENDPOINT_URLS` when set, else the profile's `ignore_configured_endpoint_urls`:
    /// the variable wins over the file, as for every setting the SDKs read from both.
    private static func ignoresConfiguredEndpointURLs(profile: AWSProfile, environment: [String: String]) -> Bool {
        if let variable = Self.nonEmpty(environment[Variable.ignoreConfiguredEndpointURLs]) { return Self.isTrue(variable) }
        return Self.isTrue(profile["ignore_configured_endpoint_urls"])
    }

    private static func stsEndpoint(
        profile: AWSProfile,
        profileSet: AWSProfileSet,
        environment: [String: String]
    ) throws -> String? {
        if Self.ignoresConfiguredEndpointURLs(profile: profile, environment: environment) { return nil }
        let servicesName = profile.services
        var candidates: [(value: String?, origin: String)] = [
            (environment[Variable.stsEndpoint], Variable.stsEndpoint)
        ]
        if let servicesName {
            candidates.append(
                (profileSet.servicesSection(named: servicesName)?.subProperties("sts")["endpoint_url"], "[services \(servicesName)] sts.endpoint_url")
            )
        }
        candidates.append((environment[Variable.endpoint], Variable.endpoint))
        candidates.append((profile.endpointURL, "profile '\(profile.name)': endpoint_url"))
        for (value, origin) in candidates {
            guard let value = Self.nonEmpty(value) else { continue }
            _ = try STSClient.Configuration.validatedEndpoint(value, origin: origin)
            return value
        }
        return nil
    }
}
