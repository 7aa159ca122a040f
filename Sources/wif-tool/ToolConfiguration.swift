import ArgumentParser
import Foundation
import S3Partition

/// Options of the file-store commands (`login`, `whoami`, `put`, `list`, `get`, `rm`, `logout`).
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: "The S3 endpoint URL, or 'embedded' for the in-process local stack (default: WIF_ENDPOINT, the config file, embedded).")
    var endpoint: String?

    @Option(name: .long, help: "The STS endpoint URL (default: WIF_STS_ENDPOINT, the config file, the S3 endpoint).")
    var stsEndpoint: String?

    @Option(name: .long, help: "The shared bucket (default: WIF_BUCKET, the config file, the role's bucket on the embedded stack).")
    var bucket: String?

    @Option(name: .long, help: "Keep a separate sign-in under this name, so several people can share one WIF_HOME (default: WIF_ACCOUNT).")
    var account: String?

    @Option(name: .long, help: "The key file of the encrypted store $WIF_HOME/secrets.enc (default: WIF_KEY_FILE, else secrets.key beside it; a passphrase comes from WIF_PASSPHRASE or the terminal).")
    var keyFile: String?

    @Flag(name: [.short, .long], help: "Print no progress bar and no line per file.")
    var quiet = false
}

/// The settings a file-store command runs with, resolved from flags, the environment and the config file.
///
/// Precedence, highest first: a flag, a `WIF_*` environment variable, the `[account NAME]` section of
/// the config file, its `[default]` section, the built-in default.
struct ToolConfiguration: Sendable {
    /// Where the tool talks to.
    enum Target: Sendable, Equatable {
        /// The local stack, run inside the process with its data in this folder.
        case embedded(dataDirectory: URL)
        /// A running S3 service and the STS that federates into it.
        case remote(s3: URL, sts: URL)

        /// How a session records the target it was made for.
        var identifier: String {
            switch self {
            case .embedded: ToolConfiguration.embeddedName
            case .remote(let s3, _): s3.absoluteString
            }
        }
    }

    /// The word that selects the embedded stack where an endpoint URL is expected.
    static let embeddedName = "embedded"

    /// The tool's folder: `WIF_HOME`, or `~/.wif`.
    var home: URL
    /// The named sign-in, or `nil` for the default one.
    var account: String?
    var target: Target
    var region: String
    var bucket: String?
    var roleArn: String?
    var provider: String?
    var partitionTemplate: String?

    /// `--key-file`, when given.
    var keyFile: String?

    /// The plaintext file earlier versions kept the sign-in of ``account`` in; it is moved into the
    /// encrypted store when found.
    var legacySessionFile: URL {
        guard let account else { return self.home.appendingPathComponent("session.json") }
        return self.home.appendingPathComponent("session.\(account).json")
    }

    /// The encrypted store's file, `<home>/secrets.enc`.
    var secretsFile: URL { SecretStore.file(home: self.home) }

    /// The sign-in of ``account`` in the encrypted store, its key chosen as ``SecretStore`` describes.
    /// - Parameters:
    ///   - environment: The process environment (`WIF_PASSPHRASE`, `WIF_KEY_FILE`).
    ///   - newPassphrase: Whether a store created now gets a passphrase asked on the terminal.
    func sessionStore(environment: [String: String], newPassphrase: Bool = false) throws(CommandFailure) -> SessionStore {
        let secrets = try SecretStore.open(home: self.home, keyFile: self.keyFile, newPassphrase: newPassphrase, environment: environment)
        return SessionStore(secrets: secrets, account: self.account, legacyFile: self.legacySessionFile)
    }

    /// The config file, `<home>/config`.
    var configFile: URL { Self.configFile(home: self.home) }

    static func configFile(home: URL) -> URL { home.appendingPathComponent("config") }

    /// Resolves the settings of one invocation.
    /// - Parameters:
    ///   - store: The store flags.
    ///   - region: The `--region` flag.
    ///   - roleArn: The `--role-arn` flag, where the command has one.
    ///   - provider: The `--provider` flag, where the command has one.
    ///   - partitionTemplate: The `--partition-template` flag, where the command has one.
    ///   - environment: The process environment.
    /// - Throws: `CommandFailure` (usage) naming the setting that is malformed and where it came from;
    ///   (I/O) when the config file exists but cannot be read.
    static func resolve(
        store: StoreOptions,
        region: String? = nil,
        roleArn: String? = nil,
        provider: String? = nil,
        partitionTemplate: String? = nil,
        environment: [String: String]
    ) throws(CommandFailure) -> ToolConfiguration {
        let home = Self.home(environment: environment)
        let account = try Self.account(flag: store.account, environment: environment)
        let file = try ConfigFile.load(from: Self.configFile(home: home))
        let section = file.settings(account: account)

        func pick(_ flag: String?, flagName: String, _ variable: String, _ key: ConfigFile.Key) -> Setting? {
            if let flag { return Setting(value: flag, origin: flagName) }
            if let value = environment[variable], !value.isEmpty { return Setting(value: value, origin: variable) }
            return section[key]
        }

        let endpoint = pick(store.endpoint, flagName: "--endpoint", "WIF_ENDPOINT", .endpoint)
        let stsEndpoint = pick(store.stsEndpoint, flagName: "--sts-endpoint", "WIF_STS_ENDPOINT", .stsEndpoint)
        let target: Target
        if let endpoint, endpoint.value != Self.embeddedName {
            let s3 = try Self.endpointURL(endpoint)
            let sts = try stsEndpoint.map { setting throws(CommandFailure) in try Self.endpointURL(setting) } ?? s3
            target = .remote(s3: s3, sts: sts)
        } else {
            if let stsEndpoint {
                throw CommandFailure(
                    status: .usage,
                    message: "\(stsEndpoint.origin) is set but the endpoint is the embedded stack; set --endpoint too, or remove \(stsEndpoint.origin)"
                )
            }
            target = .embedded(dataDirectory: home.appendingPathComponent("local"))
        }

        var resolvedRegion = pick(region, flagName: "--region", "WIF_REGION", .region)
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
            throw CommandFailure(
                status: .usage,
                message: "\(resolvedRegion.origin) '\(regionName)' is not a region name such as us-east-1")
        }

        let bucket = pick(store.bucket, flagName: "--bucket", "WIF_BUCKET", .bucket)
        if let bucket, let problem = S3BucketName.awsRuleProblem(bucket.value) {
            throw CommandFailure(status: .usage, message: "\(bucket.origin) '\(bucket.value)' is not a bucket name: \(problem)")
        }
        let role = pick(roleArn, flagName: "--role-arn", "WIF_ROLE_ARN", .roleArn)
        if let role, !role.value.hasPrefix("arn:") || role.value.split(separator: ":", omittingEmptySubsequences: false).count < 6 {
            throw CommandFailure(
                status: .usage,
                message: "\(role.origin) '\(role.value)' is not a role ARN such as arn:aws:iam::123456789012:role/NAME")
        }
        let providerSetting = pick(provider, flagName: "--provider", "WIF_PROVIDER", .provider)
        if let providerSetting, providerSetting.value.isEmpty {
            throw CommandFailure(status: .usage, message: "\(providerSetting.origin) must not be empty")
        }
        let template = pick(partitionTemplate, flagName: "--partition-template", "WIF_PARTITION_TEMPLATE", .partitionTemplate)
        if let template {
            do {
                _ = try PartitionPrefix.make(template: template.value, userId: "id")
            } catch {
                throw CommandFailure(status: .usage, message: "\(template.origin): \(error.message)")
            }
        }

        return ToolConfiguration(
            home: home,
            account: account,
            target: target,
            region: regionName,
            bucket: bucket?.value,
            roleArn: role?.value,
            provider: providerSetting?.value,
            partitionTemplate: template?.value,
            keyFile: store.keyFile
        )
    }

    /// A value and where it was set, for error messages.
    struct Setting: Sendable, Equatable {
        var value: String
        var origin: String
    }

    /// `WIF_HOME`, or `.wif` in the home folder.
    static func home(environment: [String: String]) -> URL {
        if let home = environment["WIF_HOME"], !home.isEmpty {
            return URL(fileURLWithPath: home, isDirectory: true).standardizedFileURL
        }
        let user = environment["HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0, isDirectory: true) }
            ?? FileManager.default.homeDirectoryForCurrentUser
        return user.appendingPathComponent(".wif", isDirectory: true)
    }

    /// The account name from `--account` or `WIF_ACCOUNT`; `nil` (the default sign-in) when neither is set.
    static func account(flag: String?, environment: [String: String]) throws(CommandFailure) -> String? {
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
            throw CommandFailure(
                status: .usage,
                message: "\(origin) '\(name)' is not an account name: use 1 to 64 letters, digits, '_', '-' or '.', not starting with '.'"
            )
        }
        return name == "default" ? nil : name
    }

    static func endpointURL(_ setting: Setting) throws(CommandFailure) -> URL {
        // `http://host:9000/` and `http://host:9000` are the same endpoint, and sessions are matched by it.
        var text = setting.value
        while text.hasSuffix("/") { text.removeLast() }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host(), !host.isEmpty, url.query == nil
        else {
            throw CommandFailure(
                status: .usage,
                message: "\(setting.origin) '\(setting.value)' is not an http or https URL with a host (or '\(Self.embeddedName)')")
        }
        return url
    }

    static func isRegionName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 32 && name.utf8.first != UInt8(ascii: "-")
            && name.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: "-") }
    }
}

/// The config file, `~/.wif/config`: INI sections like the AWS config file.
///
/// ```
/// # Lines starting with '#' or ';' are comments.
/// [default]
/// endpoint = https://s3.eu-west-1.amazonaws.com
/// sts_endpoint = https://sts.eu-west-1.amazonaws.com
/// region = eu-west-1
/// bucket = my-shared-bucket
/// role_arn = arn:aws:iam::123456789012:role/personal-store-google
/// provider = google
/// partition_template = {id}/
///
/// [account bob]
/// provider = facebook
/// ```
///
/// Settings before the first section belong to `[default]`; an `[account NAME]` section overrides
/// `[default]` for `--account NAME`. `endpoint = embedded` selects the in-process local stack.
struct ConfigFile: Sendable {
    /// The settings the file may hold.
    enum Key: String, CaseIterable, Sendable {
        case endpoint
        case stsEndpoint = "sts_endpoint"
        case region
        case bucket
        case roleArn = "role_arn"
        case provider
        case partitionTemplate = "partition_template"
    }

    /// Settings by section: `""` for `[default]`, the account name for `[account NAME]`.
    var sections: [String: [Key: ToolConfiguration.Setting]] = [:]

    /// The settings of an account: its section over `[default]`.
    func settings(account: String?) -> [Key: ToolConfiguration.Setting] {
        var merged = self.sections[""] ?? [:]
        if let account, let own = self.sections[account] {
            merged.merge(own) { $1 }
        }
        return merged
    }

    /// Reads the file; a missing file is an empty configuration.
    static func load(from url: URL) throws(CommandFailure) -> ConfigFile {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch let error as CocoaError where error.code == .fileReadNoSuchFile {
            return ConfigFile()
        } catch {
            if !FileManager.default.fileExists(atPath: url.path) { return ConfigFile() }
            throw CommandFailure(status: .io, message: "cannot read the config file \(url.path): \(error.localizedDescription)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw CommandFailure(status: .usage, message: "the config file \(url.path) is not UTF-8 text")
        }
        return try Self.parse(text, path: url.path)
    }

    /// Parses the text of a config file.
    static func parse(_ text: String, path: String) throws(CommandFailure) -> ConfigFile {
        var file = ConfigFile()
        var section = ""
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let where_ = "\(path) line \(index + 1)"
            let line = rawLine.trimmingCharacters(in: .whitespaces.union(CharacterSet(charactersIn: "\r")))
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]") else {
                    throw CommandFailure(status: .usage, message: "\(where_): a section header must end with ']'")
                }
                let header = line.dropFirst().dropLast().split(separator: " ", omittingEmptySubsequences: true)
                if header == ["default"] {
                    section = ""
                } else if header.count == 2, header[0] == "account" {
                    let name = String(header[1])
                    do {
                        _ = try ToolConfiguration.account(flag: name, environment: [:])
                    } catch {
                        throw CommandFailure(status: .usage, message: "\(where_): \(error.message)")
                    }
                    section = name == "default" ? "" : name
                } else {
                    throw CommandFailure(
                        status: .usage, message: "\(where_): unknown section '\(line)'; use [default] or [account NAME]")
                }
                continue
            }
            guard let equals = line.firstIndex(of: "=") else {
                throw CommandFailure(status: .usage, message: "\(where_): expected 'key = value'")
            }
            let name = line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            guard let key = Key(rawValue: name) else {
                let known = Key.allCases.map(\.rawValue).joined(separator: ", ")
                throw CommandFailure(status: .usage, message: "\(where_): unknown setting '\(name)'; known settings: \(known)")
            }
            guard !value.isEmpty else {
                throw CommandFailure(status: .usage, message: "\(where_): '\(name)' has no value")
            }
            file.sections[section, default: [:]][key] = ToolConfiguration.Setting(value: value, origin: "\(where_) (\(name))")
        }
        return file
    }
}
