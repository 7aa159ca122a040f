import ArgumentParser
import Foundation
import WIFFileStore

/// Options of the file-store commands (`login`, `whoami`, `put`, `list`, `get`, `rm`, `logout`).
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: "The S3 endpoint URL, or 'embedded' for the in-process local stack (default: WIF_ENDPOINT, the config file, else the sign-in's endpoint, or embedded for login).")
    var endpoint: String?

    @Option(name: .long, help: "The STS endpoint URL (default: WIF_STS_ENDPOINT, the config file, the S3 endpoint).")
    var stsEndpoint: String?

    @Option(name: .long, help: "The shared bucket (default: WIF_BUCKET, the config file, the role's bucket on the embedded stack); after sign-in, the sign-in's, and another given here is refused.")
    var bucket: String?

    @Option(name: .long, help: "Keep a separate sign-in under this name, so several people can share one WIF_HOME (default: WIF_ACCOUNT).")
    var account: String?

    @Option(name: .long, help: "The key file of the encrypted store $WIF_HOME/secrets.enc (default: WIF_KEY_FILE, else secrets.key beside it; a passphrase comes from WIF_PASSPHRASE or the terminal).")
    var keyFile: String?

    @Flag(name: [.short, .long], help: "Print no progress bar, no line per file, and no sign-in summary (errors still go to standard error).")
    var quiet = false
}

extension ToolConfiguration {
    /// Resolves the settings of one invocation from its flags, asking for a store's passphrase on the
    /// terminal and announcing a new store on standard error.
    /// - Parameters:
    ///   - store: The store flags.
    ///   - region: The `--region` flag.
    ///   - roleArn: The `--role-arn` flag, where the command has one.
    ///   - provider: The `--provider` flag, where the command has one.
    ///   - partitionTemplate: The `--partition-template` flag, where the command has one.
    ///   - environment: The process environment.
    /// - Throws: ``FileStoreError`` as ``ToolConfiguration/resolve(_:environment:)`` reports it.
    static func resolve(
        store: StoreOptions,
        region: String? = nil,
        roleArn: String? = nil,
        provider: String? = nil,
        partitionTemplate: String? = nil,
        environment: [String: String]
    ) throws(FileStoreError) -> ToolConfiguration {
        let flags = Flags(
            endpoint: store.endpoint, stsEndpoint: store.stsEndpoint, bucket: store.bucket, account: store.account,
            keyFile: store.keyFile, region: region, roleArn: roleArn, provider: provider, partitionTemplate: partitionTemplate)
        var configuration = try ToolConfiguration.resolve(flags, environment: environment)
        configuration.interaction = .terminal
        return configuration
    }

    /// ``ToolConfiguration/endpoint(_:)`` with the tool's exit status.
    static func endpointURL(_ setting: Setting) throws(CommandFailure) -> URL {
        do {
            return try Self.endpoint(setting)
        } catch {
            throw CommandFailure(error)
        }
    }
}

extension FileBatch {
    /// Checks a `--jobs` value.
    static func validate(jobs: Int) throws {
        guard (1...Self.maximumWidth).contains(jobs) else {
            throw ValidationError("--jobs is \(jobs); give 1 to \(Self.maximumWidth) files at once")
        }
    }
}

extension StorageLevel: ExpressibleByArgument {}

/// `--level` of the file commands: Amplify's folders of an identity-pool sign-in.
struct LevelOptions: ParsableArguments {
    @Option(name: .long, help: "With an identity-pool sign-in: private (private/IDENTITY/, the default), protected (protected/IDENTITY/, which signed-in users may read) or public (public/).")
    var level: StorageLevel?
}
