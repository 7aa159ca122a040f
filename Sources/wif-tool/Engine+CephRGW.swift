import ArgumentParser
import Foundation
import Logging
import S3Partition
import WIFCredentials
import WIFEngines
import WIFLocal
import WIFFileStore

extension WIFTool.Engine {
    /// `wif-tool engine ceph-rgw`: the Ceph RADOS Gateway, through its IAM API.
    struct CephRGW: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ceph-rgw",
            abstract: "Federate a Ceph RADOS Gateway with an OpenID Connect issuer and give each user a folder.",
            discussion: """
                RGW refuses policy variables in Resource, so each user's folder is written out literally by \
                one of three strategies (--strategy): role-per-user (a role per user, trusted only by tokens \
                whose sub is that user), session-tags (one role, a policy per user that applies when the \
                session's aws:PrincipalTag/sub is that user, from the token's https://aws.amazon.com/tags \
                claim), session-policy (one role for the whole bucket that only a trusted server's tokens \
                may assume; the server narrows each session with 'ceph-rgw credentials'). See the README for \
                when each is safe.

                The gateway and its administrator come from --endpoint (default WIF_CEPH_RGW_ENDPOINT) and \
                WIF_CEPH_RGW_ACCESS_KEY with WIF_CEPH_RGW_SECRET_KEY, else the usual AWS credentials; \
                scripts/ceph-rgw writes all three to DIR/env.
                """,
            subcommands: [Setup.self, Remove.self, Credentials.self]
        )
    }
}

/// The options that name a gateway, an issuer and a plan, shared by `setup` and `remove`.
struct CephRGWPlanOptions: ParsableArguments {
    @Option(name: .long, help: "The gateway's URL (default: WIF_CEPH_RGW_ENDPOINT).")
    var endpoint: String?

    @Option(name: .long, help: "The issuer's URL, exactly the tokens' iss; RGW reads <iss>/.well-known/openid-configuration.")
    var issuerUrl: String

    @Option(name: .customLong("client-id"), help: "A client id (aud) of the users' tokens; repeat for more (default: \(ProviderProfile.developmentClientId(for: .oidc))).")
    var clientIds: [String] = []

    @Option(name: .customLong("thumbprint"), help: "The SHA-1 of the issuer's certificate, 40 hex digits; repeat for more (default: read from the issuer's JWKS).")
    var thumbprints: [String] = []

    @Option(name: .long, help: "The shared bucket (default: \(LocalConfiguration.defaultBucket)).")
    var bucket: String = LocalConfiguration.defaultBucket

    @Option(name: .long, help: "role-per-user, session-tags or session-policy (default: role-per-user).")
    var strategy: String = PartitionStrategy.rolePerUser.name

    @Option(name: .customLong("user"), help: "A user id (the tokens' sub) to give a folder; repeat for more.")
    var users: [String] = []

    @Option(name: .long, help: "The start of every role name (default: wif, making wif-alice, wif-tagged, wif-broker).")
    var namePrefix: String = "wif"

    @Option(name: .long, help: "The trusted server's client id, the only aud the session-policy role accepts (default: wif-broker).")
    var brokerClientId: String = "wif-broker"

    func validate() throws {
        if PartitionStrategy(name: self.strategy) == nil {
            throw ValidationError("--strategy must be one of \(PartitionStrategy.all.map(\.name).joined(separator: ", ")), not '\(self.strategy)'")
        }
    }

    /// The plan the options describe, checked.
    func plan() throws(CommandFailure) -> CephRGWFederationPlan {
        var issuer = self.issuerUrl
        while issuer.hasSuffix("/") { issuer.removeLast() }
        let plan = CephRGWFederationPlan(
            issuer: issuer,
            clientIds: self.clientIds.isEmpty ? [ProviderProfile.developmentClientId(for: .oidc)] : self.clientIds,
            thumbprints: self.thumbprints,
            bucket: self.bucket,
            strategy: PartitionStrategy(name: self.strategy) ?? .rolePerUser,
            users: self.users,
            namePrefix: self.namePrefix,
            brokerClientId: self.brokerClientId)
        do {
            try plan.validate()
        } catch {
            throw CommandFailure(status: .usage, message: error.reason)
        }
        return plan
    }

    /// The gateway's URL from `--endpoint` or `WIF_CEPH_RGW_ENDPOINT`.
    func gateway(environment: [String: String]) throws(CommandFailure) -> URL {
        try CephRGWAdmin.gateway(flag: self.endpoint, environment: environment)
    }
}

/// How the `ceph-rgw` commands reach the gateway as its administrator.
enum CephRGWAdmin {
    static let endpointVariable = "WIF_CEPH_RGW_ENDPOINT"
    static let accessKeyVariable = "WIF_CEPH_RGW_ACCESS_KEY"
    static let secretKeyVariable = "WIF_CEPH_RGW_SECRET_KEY"

    /// The gateway's URL from the flag or the environment.
    static func gateway(flag: String?, environment: [String: String]) throws(CommandFailure) -> URL {
        if let flag {
            return try ToolConfiguration.endpointURL(ToolConfiguration.Setting(value: flag, origin: "--endpoint"))
        }
        guard let value = environment[Self.endpointVariable], !value.isEmpty else {
            throw CommandFailure(status: .usage, message: "give the gateway with --endpoint URL (or \(Self.endpointVariable))")
        }
        return try ToolConfiguration.endpointURL(ToolConfiguration.Setting(value: value, origin: Self.endpointVariable))
    }

    /// The administrator's credentials: `WIF_CEPH_RGW_ACCESS_KEY` and `WIF_CEPH_RGW_SECRET_KEY`, else the
    /// default chain (environment, profile).
    static func credentials(_ options: GlobalOptions) async throws(CommandFailure) -> AWSCredentials {
        let environment = options.environment
        if let key = environment[Self.accessKeyVariable], !key.isEmpty {
            guard let secret = environment[Self.secretKeyVariable], !secret.isEmpty else {
                throw CommandFailure(status: .auth, message: "\(Self.accessKeyVariable) is set but \(Self.secretKeyVariable) is not")
            }
            return AWSCredentials(accessKeyId: key, secretAccessKey: secret)
        }
        do {
            return try await options.credentialProvider().getCredentials(logger: options.makeLogger())
        } catch {
            let reason = (error as? WIFCredentialsError)?.reason ?? "\(error)"
            throw CommandFailure(
                status: .auth,
                message: "no administrator credentials for the gateway (\(reason)); set \(Self.accessKeyVariable) and \(Self.secretKeyVariable) (scripts/ceph-rgw writes them to DIR/env)")
        }
    }
}

extension CephRGWAdmin {
    /// Runs `body` with the federation of `gateway`, as its administrator.
    static func withFederation<Result: Sendable>(
        _ options: GlobalOptions, gateway: URL,
        _ body: @Sendable (CephRGWFederation, Logger) async throws -> Result
    ) async throws -> Result {
        let credentials = try await Self.credentials(options)
        let logger = options.makeLogger()
        let region = options.resolvedRegion()
        return try await StoreRuntime.withHTTPClient { httpClient in
            let federation = try CephRGWFederation(
                configuration: .init(endpoint: gateway.absoluteString, region: region),
                credentialProvider: StaticCredentialProvider(credentials: credentials), httpClient: httpClient)
            return try await body(federation, logger)
        }
    }
}

extension WIFTool.Engine.CephRGW {
    /// `wif-tool engine ceph-rgw setup`: the OIDC provider, the bucket, the roles and their policies.
    struct Setup: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "setup",
            abstract: "Register the issuer with RGW and create the bucket, roles and policies of a strategy.",
            discussion: """
                Registers --issuer-url as RGW's OIDC provider for the --client-id audiences (with the SHA-1 \
                thumbprints of the certificates in its JWKS, unless --thumbprint is given), creates --bucket, \
                and creates the --strategy's roles and policies for each --user. Running it again brings \
                everything in line (new users added, trust policies replaced, a provider with other client \
                ids re-created). The documents are those of policies/ceph-rgw/ with the names filled in.

                Prints the role each user signs in with; with --json, an object with provider, \
                providerChange, thumbprints, bucket, strategy, roles (by user) and sharedRole.

                Exit status: 0 done; 3 no administrator credentials or RGW does not know them; 4 RGW refused \
                them; 7 the issuer or RGW cannot be reached, or the issuer cannot be used by RGW; 64 bad options.
                """
        )

        @OptionGroup var options: GlobalOptions
        @OptionGroup var plan: CephRGWPlanOptions

        struct Output: Encodable {
            var provider: String
            var providerChange: String
            var thumbprints: [String]
            var bucket: String
            var strategy: String
            var roles: [String: String]
            var sharedRole: String?
        }

        func run() async throws {
            try await reportingEngineErrors {
                let plan = try self.plan.plan()
                let gateway = try self.plan.gateway(environment: self.options.environment)
                let result = try await CephRGWAdmin.withFederation(self.options, gateway: gateway) { federation, logger in
                    try await federation.apply(plan, logger: logger)
                }
                let output = Output(
                    provider: result.providerARN, providerChange: result.provider.rawValue, thumbprints: result.thumbprints,
                    bucket: result.bucket, strategy: result.strategy.name, roles: result.roleARNs, sharedRole: result.sharedRoleARN)
                if self.options.json {
                    try printJSON(output)
                } else {
                    printRaw(Self.text(output, plan: plan, gateway: gateway))
                }
            }
        }

        static func text(_ output: Output, plan: CephRGWFederationPlan, gateway: URL) -> String {
            var lines = [
                "provider  \(output.provider) (\(output.providerChange)), client ids \(plan.registeredClientIds.joined(separator: ", "))",
                "bucket    \(output.bucket)",
                "strategy  \(output.strategy)",
            ]
            if let shared = output.sharedRole { lines.append("role      \(shared)") }
            for user in plan.users {
                lines.append("user      \(user): folder \(user)/, role \(output.roles[user] ?? plan.roleARN(for: user))")
            }
            let role = plan.strategy == .rolePerUser ? "ROLE" : (output.sharedRole ?? "ROLE")
            if plan.strategy == .sessionPolicy {
                lines.append(
                    "Credentials come from the trusted server: wif-tool engine ceph-rgw credentials --endpoint \(gateway.absoluteString) --role-arn \(role) --bucket \(output.bucket) --token-file FILE")
            } else {
                lines.append("Sign in with: wif-tool login --endpoint \(gateway.absoluteString) --token-file FILE --role-arn \(role) --bucket \(output.bucket)")
            }
            return lines.joined(separator: "\n") + "\n"
        }
    }

    /// `wif-tool engine ceph-rgw remove`: undo `setup`, apart from the bucket.
    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Delete the roles, role policies and OIDC provider that 'setup' made with the same options.",
            discussion: "The bucket and its objects stay. What is already gone is skipped. Exit status as for setup."
        )

        @OptionGroup var options: GlobalOptions
        @OptionGroup var plan: CephRGWPlanOptions

        struct Output: Encodable {
            var provider: String
            var roles: [String]
        }

        func run() async throws {
            try await reportingEngineErrors {
                let plan = try self.plan.plan()
                let gateway = try self.plan.gateway(environment: self.options.environment)
                try await CephRGWAdmin.withFederation(self.options, gateway: gateway) { federation, logger in
                    try await federation.remove(plan, logger: logger)
                }
                if self.options.json {
                    try printJSON(Output(provider: plan.providerARN, roles: plan.roles.map(\.name)))
                } else {
                    printOut("removed the roles \(plan.roles.map(\.name).joined(separator: ", ")) and the provider \(plan.providerARN)\n")
                }
            }
        }
    }
}
