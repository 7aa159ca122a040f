import Foundation
import S3Partition
import WIFCredentials

/// The settings a file-store command runs with, resolved from flags, the environment and the config file.
///
/// Precedence, highest first: a flag, a `WIF_*` environment variable, the `[account NAME]` section of
/// the config file, its `[default]` section, the built-in default.
public struct ToolConfiguration: Sendable {
    /// Where the tool talks to.
    public enum Target: Sendable, Equatable {
        /// The local stack, run inside the process with its data in this folder.
        case embedded(dataDirectory: URL)
        /// A running S3 service and the STS that federates into it.
        case remote(s3: URL, sts: URL)

        /// How a session records the target it was made for.
        public var identifier: String {
            switch self {
            case .embedded: ToolConfiguration.embeddedName
            case .remote(let s3, _): s3.absoluteString
            }
        }
    }

    /// The word that selects the embedded stack where an endpoint URL is expected.
    public static let embeddedName = "embedded"

    /// The tool's folder: `WIF_HOME`, or `~/.wif`.
    public var home: URL
    /// The named sign-in, or `nil` for the default one.
    public var account: String?
    /// Where the file-store commands send their requests.
    public var target: Target
    /// Where the endpoint was set (`--endpoint`, `WIF_ENDPOINT`, a config-file line), or `nil` when the
    /// command has no endpoint of its own: ``target`` is then the embedded stack until
    /// ``forSignIn(_:)`` gives it the sign-in's.
    public var endpointOrigin: String?
    /// The region requests are signed for.
    public var region: String
    /// Where the region was set (`--region`, `WIF_REGION`, a config-file line), or `nil` when it came from
    /// `AWS_REGION` or the default: a region of the command's own must match a sign-in's.
    public var regionOrigin: String?
    /// The shared bucket, when configured.
    public var bucket: String?
    /// Where the bucket was set (`--bucket`, `WIF_BUCKET`, a config-file line), when it was.
    public var bucketOrigin: String?
    /// The role to assume, when configured.
    public var roleArn: String?
    /// The identity provider's name (`google`, `facebook`, …), when configured.
    public var provider: String?
    /// The folder template, `{id}` standing for the user id, when configured.
    public var partitionTemplate: String?
    /// How long one STS call may take in all, retries included (`WIF_STS_DEADLINE`, `sts_deadline`
    /// in the config file); `nil` for STS's default of 15 seconds.
    public var stsDeadline: Duration?

    /// `--key-file`, when given.
    public var keyFile: String?

    /// How the encrypted store asks for a passphrase and announces a new store; by default it asks
    /// nothing and says nothing.
    public var interaction: SecretStore.Interaction = .silent

    /// The plaintext file earlier versions kept the sign-in of ``account`` in; it is moved into the
    /// encrypted store when found.
    public var legacySessionFile: URL {
        guard let account else { return self.home.appendingPathComponent("session.json") }
        return self.home.appendingPathComponent("session.\(account).json")
    }

    /// The encrypted store's file, `<home>/secrets.enc`.
    public var secretsFile: URL { SecretStore.file(home: self.home) }

    /// The sign-in of ``account`` in the encrypted store, its key chosen as ``SecretStore`` describes.
    /// - Parameters:
    ///   - environment: The process environment (`WIF_PASSPHRASE`, `WIF_KEY_FILE`).
    ///   - newPassphrase: Whether a store created now gets a passphrase asked through ``interaction``.
    /// - Throws: ``FileStoreError`` as ``SecretStore/open(home:keyFile:newPassphrase:environment:interaction:)``
    ///   reports it; what ``interaction`` throws.
    public func sessionStore(environment: [String: String], newPassphrase: Bool = false) throws -> SessionStore {
        let secrets = try SecretStore.open(
            home: self.home, keyFile: self.keyFile, newPassphrase: newPassphrase, environment: environment, interaction: self.interaction)
        return SessionStore(secrets: secrets, account: self.account, legacyFile: self.legacySessionFile)
    }

    /// The config file, `<home>/config`.
    public var configFile: URL { Self.configFile(home: self.home) }

    package static func configFile(home: URL) -> URL { home.appendingPathComponent("config") }

    /// The settings given on the command line; `nil` where a flag is not given.
    public struct Flags: Sendable {
        /// `--endpoint`: an S3 endpoint URL, or `embedded`.
        public var endpoint: String?
        /// `--sts-endpoint`.
        public var stsEndpoint: String?
        /// `--bucket`.
        public var bucket: String?
        /// `--account`.
        public var account: String?
        /// `--key-file`.
        public var keyFile: String?
        /// `--region`.
        public var region: String?
        /// `--role-arn`, where the command has one.
        public var roleArn: String?
        /// `--provider`, where the command has one.
        public var provider: String?
        /// `--partition-template`, where the command has one.
        public var partitionTemplate: String?

        /// Creates flags; each is `nil` unless given.
        public init(
            endpoint: String? = nil, stsEndpoint: String? = nil, bucket: String? = nil, account: String? = nil, keyFile: String? = nil,
            region: String? = nil, roleArn: String? = nil, provider: String? = nil, partitionTemplate: String? = nil
        ) {
            self.endpoint = endpoint
            self.stsEndpoint = stsEndpoint
            self.bucket = bucket
            self.account = account
            self.keyFile = keyFile
            self.region = region
            self.roleArn = roleArn
            self.provider = provider
            self.partitionTemplate = partitionTemplate
        }
    }

    /// Resolves the settings of one invocation.
    /// - Parameters:
    ///   - flags: The flags given.
    ///   - environment: The process environment.
    /// - Returns: The settings, with ``interaction`` silent.
    /// - Throws: ``FileStoreError``: `invalidSetting` naming the setting that is malformed and where it
    ///   came from; `fileError` when the config file exists but cannot be read.
    public static func resolve(_ flags: Flags, environment: [String: String]) throws(FileStoreError) -> ToolConfiguration {
        let home = Self.home(environment: environment)
        let account = try Self.account(flag: flags.account, environment: environment)
        let file = try ConfigFile.load(from: Self.configFile(home: home))
        let section = file.settings(account: account)

        func pick(_ flag: String?, flagName: String, _ variable: String, _ key: ConfigFile.Key) -> Setting? {
            if let flag { return Setting(value: flag, origin: flagName) }
            if let value = environment[variable], !value.isEmpty { return Setting(value: value, origin: variable) }
            return section[key]
        }

        let endpoint = pick(flags.endpoint, flagName: "--endpoint", "WIF_ENDPOINT", .endpoint)
        let stsEndpoint = pick(flags.stsEndpoint, flagName: "--sts-endpoint", "WIF_STS_ENDPOINT", .stsEndpoint)
        let target: Target
        if let endpoint, endpoint.value != Self.embeddedName {
            let s3 = try Self.endpoint(endpoint)
            let sts = try stsEndpoint.map { setting throws(FileStoreError) in try Self.endpoint(setting) } ?? s3
            target = .remote(s3: s3, sts: sts)
        } else {
            if let stsEndpoint {
                throw FileStoreError.invalidSetting("\(stsEndpoint.origin) is set but the endpoint is the embedded stack; set --endpoint too, or remove \(stsEndpoint.origin)")
            }
            target = .embedded(dataDirectory: home.appendingPathComponent("local"))
        }

        var resolvedRegion = pick(flags.region, flagName: "--region", "WIF_REGION", .region)
        let regionOrigin = resolvedRegion?.origin
        if resolvedRegion == nil {
            for name in ["AWS_REGION", "AWS_DEFAULT_REGION"] {
                if let value = environment[name], !value.isEmpty {
                    resolvedRegion = Setting(value: value, origin: name)
                    break
                }
            }
        }
        let regionName = resolvedRegion?.value ?? "us-east-1"
        if let resolvedRegion, !Self.isRegionName(regionName) {
            throw FileStoreError.invalidSetting("\(resolvedRegion.origin) '\(regionName)' is not a region name such as us-east-1")
        }

        let bucket = pick(flags.bucket, flagName: "--bucket", "WIF_BUCKET", .bucket)
        if let bucket, let problem = S3BucketName.awsRuleProblem(bucket.value) {
            throw FileStoreError.invalidSetting("\(bucket.origin) '\(bucket.value)' is not a bucket name: \(problem)")
        }
        let role = pick(flags.roleArn, flagName: "--role-arn", "WIF_ROLE_ARN", .roleArn)
        if let role, !role.value.hasPrefix("arn:") || role.value.split(separator: ":", omittingEmptySubsequences: false).count < 6 {
            throw FileStoreError.invalidSetting("\(role.origin) '\(role.value)' is not a role ARN such as arn:aws:iam::123456789012:role/NAME")
        }
        let providerSetting = pick(flags.provider, flagName: "--provider", "WIF_PROVIDER", .provider)
        if let providerSetting, providerSetting.value.isEmpty {
            throw FileStoreError.invalidSetting("\(providerSetting.origin) must not be empty")
        }
        let template = pick(flags.partitionTemplate, flagName: "--partition-template", "WIF_PARTITION_TEMPLATE", .partitionTemplate)
        if let template {
            do {
                _ = try PartitionPrefix.make(template: template.value, userId: "id")
            } catch {
                throw FileStoreError.invalidSetting("\(template.origin): \(error.message)")
            }
        }

        var stsDeadline: Duration?
        if let setting = pick(nil, flagName: "", STSClient.Configuration.deadlineVariable, .stsDeadline) {
            guard let deadline = STSClient.Configuration.deadline(seconds: setting.value) else {
                throw FileStoreError.invalidSetting("\(setting.origin) '\(setting.value)' is not a number of seconds more than 0 and at most 86400")
            }
            stsDeadline = deadline
        }

        return ToolConfiguration(
            home: home,
            account: account,
            target: target,
            endpointOrigin: endpoint?.origin,
            region: regionName,
            regionOrigin: regionOrigin,
            bucket: bucket?.value,
            bucketOrigin: bucket?.origin,
            roleArn: role?.value,
            provider: providerSetting?.value,
            partitionTemplate: template?.value,
            stsDeadline: stsDeadline,
            keyFile: flags.keyFile
        )
    }

    /// A value and where it was set, for error messages.
    package struct Setting: Sendable, Equatable {
        package var value: String
        package var origin: String

        package init(value: String, origin: String) {
            self.value = value
            self.origin = origin
        }
    }

    /// `WIF_HOME`, or `.wif` in the home folder.
    package static func home(environment: [String: String]) -> URL {
        if let home = environment["WIF_HOME"], !home.isEmpty {
            return URL(fileURLWithPath: home, isDirectory: true).standardizedFileURL
        }
        let user = environment["HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0, isDirectory: true) }
            ?? FileManager.default.homeDirectoryForCurrentUser
        return user.appendingPathComponent(".wif", isDirectory: true)
    }

    /// The account name from `--account` or `WIF_ACCOUNT`; `nil` (the default sign-in) when neither is set.
    package static func account(flag: String?, environment: [String: String]) throws(FileStoreError) -> String? {
        let origin: String
        let name: String
        if let flag {
            (name, origin) = (flag, "--account")
        } else if let value = environment["WIF_ACCOUNT"], !value.isEmpty {
            (name, origin) = (value, "WIF_ACCOUNT")
        } else {
            return nil
        }
        let allowed = name.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "_-.".unicodeScalars.contains(scalar))
        }
        guard !name.isEmpty, name.utf8.count <= 64, allowed, !name.hasPrefix(".") else {
            throw FileStoreError.invalidSetting("\(origin) '\(name)' is not an account name: use 1 to 64 letters, digits, '_', '-' or '.', not starting with '.'")
        }
        return name == "default" ? nil : name
    }

    /// An endpoint setting as a URL: http or https with a host, no query, no trailing `/`.
    /// - Throws: ``FileStoreError`` (invalid setting) naming where the setting came from.
    package static func endpoint(_ setting: Setting) throws(FileStoreError) -> URL {
        // `http://host:9000/` and `http://host:9000` are the same endpoint, and sessions are matched by it.
        var text = setting.value
        while text.hasSuffix("/") { text.removeLast() }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host(), !host.isEmpty, url.query == nil
        else {
            throw FileStoreError.invalidSetting("\(setting.origin) '\(setting.value)' is not an http or https URL with a host (or '\(Self.embeddedName)')")
        }
        return url
    }

    package static func isRegionName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 32 && name.utf8.first != UInt8(ascii: "-")
            && name.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: "-") }
    }
}
