extension AWSProfile {
    /// Names of the settings read by the accessors below.
    public enum Key {
        /// `aws_access_key_id`: a long-term or temporary access key id.
        public static let accessKeyId = "aws_access_key_id"
        /// `aws_secret_access_key`: the secret for ``accessKeyId``.
        public static let secretAccessKey = "aws_secret_access_key"
        /// `aws_session_token`: the session token of temporary keys.
        public static let sessionToken = "aws_session_token"
        /// `aws_account_id`: the account the keys belong to.
        public static let accountId = "aws_account_id"
        /// `role_arn`: the role to assume.
        public static let roleARN = "role_arn"
        /// `web_identity_token_file`: a file holding the web-identity token for `role_arn`.
        public static let webIdentityTokenFile = "web_identity_token_file"
        /// `role_session_name`: the session name to assume `role_arn` with.
        public static let roleSessionName = "role_session_name"
        /// `duration_seconds`: how long assumed-role credentials should last.
        public static let durationSeconds = "duration_seconds"
        /// `region`: the default region.
        public static let region = "region"
        /// `source_profile`: the profile whose credentials assume `role_arn`.
        public static let sourceProfile = "source_profile"
        /// `credential_process`: a command that prints credentials.
        public static let credentialProcess = "credential_process"
        /// `endpoint_url`: an endpoint used for every service.
        public static let endpointURL = "endpoint_url"
        /// `services`: the name of a `[services name]` section with per-service settings.
        public static let services = "services"
    }

    /// The value of `key`, or `nil` when it is absent or empty.
    private func nonEmpty(_ key: String) -> String? {
        guard let value = self[key], !value.isEmpty else { return nil }
        return value
    }

    /// `role_arn`: the role to assume, or `nil` when absent or empty.
    public var roleARN: String? { self.nonEmpty(Key.roleARN) }

    /// `web_identity_token_file`: the path of a file holding a web-identity token, or `nil` when
    /// absent or empty. The path is returned as written; `~` is not expanded.
    public var webIdentityTokenFile: String? { self.nonEmpty(Key.webIdentityTokenFile) }

    /// `role_session_name`: the session name for the assumed role, or `nil` when absent or empty.
    public var roleSessionName: String? { self.nonEmpty(Key.roleSessionName) }

    /// `duration_seconds` as a whole number of seconds, or `nil` when absent or empty.
    ///
    /// Bounds (900 to the role's maximum) are checked where the role is assumed, not here.
    /// - Throws: ``WIFCredentialsError`` with code `invalidConfiguration` when the value is not a
    ///   whole number.
    public var durationSeconds: Int? {
        get throws {
            guard let text = self.nonEmpty(Key.durationSeconds) else { return nil }
            guard let seconds = Int(text) else {
                throw WIFCredentialsError.invalidConfiguration(
                    "profile '\(self.name)': duration_seconds must be a whole number of seconds, found '\(text)'"
                )
            }
            return seconds
        }
    }

    /// `region`: the default region, or `nil` when absent or empty.
    public var region: String? { self.nonEmpty(Key.region) }

    /// `source_profile`: the profile whose credentials assume ``roleARN``, or `nil` when absent or
    /// empty.
    public var sourceProfile: String? { self.nonEmpty(Key.sourceProfile) }

    /// `credential_process`: a command that prints credentials as JSON, or `nil` when absent or empty.
    public var credentialProcess: String? { self.nonEmpty(Key.credentialProcess) }

    /// `endpoint_url`: an endpoint for every service, or `nil` when absent or empty. Returned as text;
    /// the caller validates it as a URL.
    public var endpointURL: String? { self.nonEmpty(Key.endpointURL) }

    /// `services`: the name of the `[services name]` section holding per-service settings, or `nil`
    /// when absent or empty. Look the section up with ``AWSProfileSet/servicesSection(named:)``.
    public var services: String? { self.nonEmpty(Key.services) }

    /// Whether the profile sets `aws_access_key_id` or `aws_secret_access_key` (even to an empty
    /// value).
    public var hasStaticKeys: Bool {
        self[Key.accessKeyId] != nil || self[Key.secretAccessKey] != nil
    }
}
