import ArgumentParser
import Foundation
import Logging
import WIFCredentials

/// Options every command understands.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: "The shared-config profile to use (default: AWS_PROFILE or 'default').")
    var profile: String?

    @Option(name: .long, help: "The AWS region (default: AWS_REGION, AWS_DEFAULT_REGION, the profile's region, us-east-1).")
    var region: String?

    @Flag(name: .long, help: "Print machine-readable JSON.")
    var json = false

    @Flag(name: [.short, .long], help: "Log what happens to standard error.")
    var verbose = false

    /// The process environment; commands read it through here so one place decides.
    var environment: [String: String] { ProcessInfo.processInfo.environment }

    /// A logger writing to standard error when `--verbose` is set, discarding otherwise.
    func makeLogger() -> Logger {
        guard self.verbose else {
            return Logger(label: "wif-tool", factory: { _ in SwiftLogNoOpLogHandler() })
        }
        var logger = Logger(label: "wif-tool", factory: { StreamLogHandler.standardError(label: $0) })
        logger.logLevel = .debug
        return logger
    }

    /// The logger of a server (`local serve`): its warnings (a Lambda authorizer that failed, an issuer's
    /// keys that could not be fetched, a stored object it skips) always reach standard error, and
    /// `--verbose` adds a line per request.
    func makeServerLogger() -> Logger {
        var logger = Logger(label: "wif-tool", factory: { DeferredMetadataLogHandler(label: $0) })
        logger.logLevel = self.verbose ? .debug : .warning
        return logger
    }

    /// The region to use, from the flag, the environment, the profile, or `us-east-1`.
    func resolvedRegion() -> String {
        if let region, !region.isEmpty { return region }
        let environment = self.environment
        for name in ["AWS_REGION", "AWS_DEFAULT_REGION"] {
            if let value = environment[name], !value.isEmpty { return value }
        }
        var profileEnvironment = environment
        if let profile { profileEnvironment["AWS_PROFILE"] = profile }
        if let profiles = try? AWSProfileSet.load(environment: profileEnvironment),
            let region = profiles.selectedProfile?.region
        {
            return region
        }
        return "us-east-1"
    }

    /// The default credential chain for this invocation: environment keys, web identity from the
    /// environment, then the selected profile.
    func credentialProvider() -> DefaultCredentialChain {
        DefaultCredentialChain(environment: self.credentialEnvironment(), profile: self.profile)
    }

    /// The environment the credential chain reads: the process's, with `--region` as `AWS_REGION`
    /// when that is not set.
    func credentialEnvironment() -> [String: String] {
        var environment = self.environment
        if let region, environment["AWS_REGION"] == nil { environment["AWS_REGION"] = region }
        return environment
    }
}
