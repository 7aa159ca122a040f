import Foundation
import WIFFoundation

extension WebIdentityConfiguration {
    /// Names of the environment variables read by ``init(environment:)``.
    public enum Variable {
        /// `AWS_ROLE_ARN`: the role to assume.
        public static let roleArn = "AWS_ROLE_ARN"
        /// `AWS_WEB_IDENTITY_TOKEN_FILE`: the file holding the token.
        public static let webIdentityTokenFile = "AWS_WEB_IDENTITY_TOKEN_FILE"
        /// `AWS_ROLE_SESSION_NAME`: the session name.
        public static let roleSessionName = "AWS_ROLE_SESSION_NAME"
        /// `AWS_REGION`: the region.
        public static let region = "AWS_REGION"
        /// `AWS_DEFAULT_REGION`: the region when `AWS_REGION` is unset.
        public static let defaultRegion = "AWS_DEFAULT_REGION"
        /// `AWS_ENDPOINT_URL_STS`: the STS endpoint.
        public static let stsEndpoint = "AWS_ENDPOINT_URL_STS"
        /// `AWS_ENDPOINT_URL`: the endpoint of every service, STS included, when `AWS_ENDPOINT_URL_STS`
        /// is unset.
        public static let endpoint = "AWS_ENDPOINT_URL"
        /// `AWS_IGNORE_CONFIGURED_ENDPOINT_URLS`: `true` disregards the endpoint variables and settings.
        public static let ignoreConfiguredEndpointURLs = "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS"
    }

    /// Reads the configuration the environment describes, as set up by EKS for IAM roles for service
    /// accounts.
    ///
    /// | Variable | |
    /// |---|---|
    /// | `AWS_ROLE_ARN` | required |
    /// | `AWS_WEB_IDENTITY_TOKEN_FILE` | required; read with a ``FileTokenSource`` |
    /// | `AWS_ROLE_SESSION_NAME` | optional |
    /// | `AWS_REGION`, else `AWS_DEFAULT_REGION` | optional |
    /// | `AWS_ENDPOINT_URL_STS`, else `AWS_ENDPOINT_URL` | optional, unless `AWS_IGNORE_CONFIGURED_ENDPOINT_URLS=true` |
    ///
    /// A variable set to the empty string counts as unset. The token file is not read here.
    /// - Parameter environment: The variables to read; by default the process environment.
    /// - Returns: `nil` when neither `AWS_ROLE_ARN` nor `AWS_WEB_IDENTITY_TOKEN_FILE` is set.
    /// - Throws: ``WIFCredentialsError`` with code `invalidConfiguration` when only one of the two is
    ///   set, or a value is unusable (not a role ARN, not a session name, not a region, not a URL).
    public init?(environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        func value(_ name: String) -> String? {
            guard let value = environment[name], !value.isEmpty else { return nil }
            return value
        }
        let roleArn = value(Variable.roleArn)
        let tokenFile = value(Variable.webIdentityTokenFile)
        switch (roleArn, tokenFile) {
        case (nil, nil):
            return nil
        case (_?, nil):
            throw WIFCredentialsError.invalidConfiguration(
                "\(Variable.roleArn) is set but \(Variable.webIdentityTokenFile) is not; set it to the path of the web-identity token file"
            )
        case (nil, _?):
            throw WIFCredentialsError.invalidConfiguration(
                "\(Variable.webIdentityTokenFile) is set but \(Variable.roleArn) is not; set it to the ARN of the role to assume"
            )
        case (let roleArn?, let tokenFile?):
            try Self.checkRoleArn(roleArn, origin: Variable.roleArn)
            let roleSessionName = value(Variable.roleSessionName)
            if let roleSessionName {
                try Self.checkRoleSessionName(roleSessionName, origin: Variable.roleSessionName)
            }
            var region: String?
            if let name = [Variable.region, Variable.defaultRegion].first(where: { value($0) != nil }), let text = value(name) {
                region = try STSClient.Configuration.validatedRegion(text, origin: name)
            }
            var stsEndpoint: String?
            if !Self.isTrue(value(Variable.ignoreConfiguredEndpointURLs)) {
                for name in [Variable.stsEndpoint, Variable.endpoint] {
                    guard let text = value(name) else { continue }
                    _ = try STSClient.Configuration.validatedEndpoint(text, origin: name)
                    stsEndpoint = text
                    break
                }
            }
            self.init(
                roleArn: roleArn,
                tokenSource: FileTokenSource(path: tokenFile),
                roleSessionName: roleSessionName,
                region: region,
                stsEndpoint: stsEndpoint
            )
        }
    }

    /// Whether a boolean setting says `true` (case-insensitively), as the SDKs read them.
    static func isTrue(_ value: String?) -> Bool {
        value?.trimming(.whitespaces).lowercased() == "true"
    }

    /// Checks a role ARN from a variable or setting, naming that origin on failure.
    static func checkRoleArn(_ roleArn: String, origin: String) throws {
        do throws(WIFCredentialsError) {
            try AssumeRoleWithWebIdentityRequest.validateARN(roleArn, parameter: origin, requireRole: true)
        } catch {
            throw WIFCredentialsError.invalidConfiguration(error.reason)
        }
    }

    /// Checks a session name from a variable or setting against STS's rules, naming that origin on
    /// failure.
    static func checkRoleSessionName(_ name: String, origin: String) throws {
        let lengths = AssumeRoleWithWebIdentityRequest.roleSessionNameLengths
        let valid = lengths.contains(name.unicodeScalars.count)
            && name.unicodeScalars.allSatisfy { scalar in
                switch scalar {
                case "a"..."z", "A"..."Z", "0"..."9", "_", "+", "=", ",", ".", "@", "-": true
                default: false
                }
            }
        if !valid {
            throw WIFCredentialsError.invalidConfiguration(
                "\(origin) '\(name.prefix(100))' is not a valid session name: STS accepts \(lengths.lowerBound)–\(lengths.upperBound) letters, digits and + = , . @ _ -"
            )
        }
    }
}
