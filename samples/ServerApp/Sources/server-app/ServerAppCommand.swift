import ArgumentParser
import Foundation
import Hummingbird
import Logging
import S3Partition
import ServerApp
import WIFAPIServer
import WIFLocal

/// `server-app`: serve each user's folder of a shared bucket over HTTP, federating their ID tokens.
@main
struct ServerAppCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "server-app",
        abstract: "Serve each user's folder of a shared S3 bucket, federating their ID tokens with STS.",
        discussion: """
            Clients send 'Authorization: Bearer <ID token>' (and 'X-Provider-Id' for Facebook or Amazon \
            access tokens) to GET /files, PUT /files/NAME, GET /files/NAME and DELETE /files/NAME.

            With no --endpoint (nor WIF_ENDPOINT), the local stack (development issuer, STS and S3) runs \
            inside the process on a free loopback port, and development tokens for alice and bob are \
            written beside its data, ready for curl; the notes API (POST /notes, GET /notes, GET /notes/ID) then takes \
            the same tokens in OPENID_CONNECT mode, or the development API key in x-api-key for reads. Otherwise \
            give --role-arn and --bucket.

            Each option falls back to an environment variable: SERVER_APP_HOST, SERVER_APP_PORT, \
            WIF_ENDPOINT, WIF_STS_ENDPOINT, WIF_ROLE_ARN, WIF_BUCKET, WIF_PARTITION_TEMPLATE, AWS_REGION.

            Exit status: 0 after SIGINT or SIGTERM; 1 when the server cannot start; 64 for bad options.
            """
    )

    @Option(help: "The address to listen on (default: SERVER_APP_HOST, 127.0.0.1).")
    var host: String?

    @Option(help: "The port to listen on; 0 picks a free one (default: SERVER_APP_PORT, 8080).")
    var port: Int?

    @Option(help: "The S3 endpoint (default: WIF_ENDPOINT; none runs the local stack in the process).")
    var endpoint: String?

    @Option(help: "The STS endpoint (default: WIF_STS_ENDPOINT, the S3 endpoint when given, else AWS's regional one).")
    var stsEndpoint: String?

    @Option(help: "The role users federate into (default: WIF_ROLE_ARN; the local stack's role for --provider).")
    var roleArn: String?

    @Option(help: "The shared bucket (default: WIF_BUCKET; the local stack's bucket).")
    var bucket: String?

    @Option(help: "Each user's folder, {id} standing for their subject (default: WIF_PARTITION_TEMPLATE, {id}/; the local stack's <provider>/{id}/).")
    var partitionTemplate: String?

    @Option(help: "The region (default: AWS_REGION, us-east-1).")
    var region: String?

    @Option(help: "The local stack's identity provider whose role users federate into: google, cognito, oidc, facebook, amazon.")
    var provider: String = "google"

    @Option(help: "The local stack's data directory (default: a temporary one, removed at exit).")
    var localData: String?

    @Flag(name: [.short, .long], help: "Log each request to standard error.")
    var verbose = false

    func validate() throws {
        if let port = self.port ?? Self.environment("SERVER_APP_PORT").flatMap(Int.init), !(0...65535).contains(port) {
            throw ValidationError("--port must be 0 to 65535, not \(port)")
        }
        if let port = Self.environment("SERVER_APP_PORT"), self.port == nil, Int(port) == nil {
            throw ValidationError("SERVER_APP_PORT must be a port number, not '\(port)'")
        }
        if self.resolvedEndpoint != nil {
            if self.roleArn ?? Self.environment("WIF_ROLE_ARN") == nil {
                throw ValidationError("with an endpoint, give the role to assume with --role-arn or WIF_ROLE_ARN")
            }
            if self.bucket ?? Self.environment("WIF_BUCKET") == nil {
                throw ValidationError("with an endpoint, give the shared bucket with --bucket or WIF_BUCKET")
            }
        }
    }

    func run() async throws {
        let logger = self.makeLogger()
        var configuration = FileServer.Configuration(
            host: self.host ?? Self.environment("SERVER_APP_HOST") ?? "127.0.0.1",
            port: self.port ?? Self.environment("SERVER_APP_PORT").flatMap(Int.init) ?? 8080,
            roleArn: self.roleArn ?? Self.environment("WIF_ROLE_ARN") ?? "",
            bucket: self.bucket ?? Self.environment("WIF_BUCKET") ?? "",
            partitionTemplate: self.partitionTemplate ?? Self.environment("WIF_PARTITION_TEMPLATE") ?? PartitionPrefix.defaultTemplate,
            region: self.region ?? Self.environment("AWS_REGION"),
            stsEndpoint: self.stsEndpoint ?? Self.environment("WIF_STS_ENDPOINT"),
            s3Endpoint: self.resolvedEndpoint
        )
        if configuration.s3Endpoint != nil {
            configuration.stsEndpoint = configuration.stsEndpoint ?? configuration.s3Endpoint
            try await Self.serve(configuration, logger: logger, local: nil)
        } else {
            try await self.serveWithLocalStack(configuration, logger: logger)
        }
    }

    /// Runs the local stack in the process, points the server at it, and writes development tokens.
    private func serveWithLocalStack(_ base: FileServer.Configuration, logger: Logger) async throws {
        let temporary = self.localData == nil
        let dataDirectory = self.localData
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("server-app-local-\(UUID().uuidString.prefix(8))").path
        defer { if temporary { try? FileManager.default.removeItem(atPath: dataDirectory) } }
        var local = LocalConfiguration.default(dataDirectory: dataDirectory)
        local.port = 0
        if let region = base.region { local.region = region }
        let provider = self.provider
        try await LocalStack.run(local, logger: logger) { endpoint in
            guard let role = endpoint.federation.role(forProvider: provider), let roleArn = endpoint.roleArn(forProvider: provider) else {
                throw ValidationError("the local stack has no role for provider '\(provider)'")
            }
            var configuration = base
            configuration.roleArn = self.roleArn ?? Self.environment("WIF_ROLE_ARN") ?? roleArn
            configuration.bucket = self.bucket ?? Self.environment("WIF_BUCKET") ?? role.bucket ?? LocalConfiguration.defaultBucket
            if self.partitionTemplate == nil, Self.environment("WIF_PARTITION_TEMPLATE") == nil, let template = role.partitionTemplate {
                configuration.partitionTemplate = template
            }
            configuration.region = endpoint.configuration.region
            configuration.stsEndpoint = endpoint.url
            configuration.s3Endpoint = endpoint.url
            // The notes API takes the same development ID tokens, verified with the stack's keys, and a
            // development API key for reads.
            if let profile = endpoint.configuration.provider(named: provider), let issuer = profile.issuer {
                configuration.notes = FileServer.NotesAPI(
                    issuer: issuer, clientIds: Set(profile.clientIds), jwksURL: "\(endpoint.url)/.well-known/jwks.json",
                    apiKeys: [APIKey(name: "development", value: Self.developmentNotesKey)])
            }
            try await Self.serve(configuration, logger: logger, local: (endpoint, provider))
        }
    }

    /// The notes API's key when the local stack runs in the process.
    static let developmentNotesKey = "da2-serverappdevelopmentnotes0"

    /// Runs the server until SIGINT or SIGTERM.
    private static func serve(
        _ configuration: FileServer.Configuration, logger: Logger, local: (endpoint: LocalEndpoint, provider: String)?
    ) async throws {
        let server = try FileServer(configuration: configuration)
        defer { try? FileManager.default.removeItem(atPath: server.spoolDirectory) }
        let application = Application(
            router: server.router(),
            configuration: ApplicationConfiguration(
                address: .hostname(configuration.host, port: configuration.port), serverName: "server-app"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? configuration.port
                let url = "http://\(configuration.host):\(port)"
                var lines = ["server-app listening on \(url), serving s3://\(configuration.bucket)/\(configuration.partitionTemplate)"]
                if let local {
                    lines += Self.developmentTokenLines(local.endpoint, provider: local.provider, serverURL: url)
                }
                // Written at once, unbuffered, so that a script reading the output sees it while the server runs.
                FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
            },
            logger: logger
        )
        try await application.runService()
    }

    /// Writes development tokens for alice and bob beside the local stack's data (never to the
    /// terminal), and returns how to use them.
    private static func developmentTokenLines(_ endpoint: LocalEndpoint, provider: String, serverURL: String) -> [String] {
        var lines = ["Local stack at \(endpoint.url). Development tokens (valid 12 hours):"]
        for user in ["alice", "bob"] {
            let path = (endpoint.configuration.dataDirectory as NSString).appendingPathComponent("\(user).token")
            do throws(LocalStackError) {
                let token = try endpoint.developmentToken(provider: provider, user: user, ttl: 12 * 3600)
                if FileManager.default.createFile(atPath: path, contents: Data(token.token.utf8), attributes: [.posixPermissions: 0o600]) {
                    lines.append("  \(user): \(path)")
                } else {
                    lines.append("  \(user): cannot write \(path)")
                }
            } catch {
                lines.append("  \(user): cannot mint a token: \(error.message)")
            }
        }
        let alice = (endpoint.configuration.dataDirectory as NSString).appendingPathComponent("alice.token")
        lines.append("Try:")
        lines.append("  curl -T notes.txt -H \"Authorization: Bearer $(cat \(alice))\" \(serverURL)/files/notes.txt")
        lines.append("  curl -H \"Authorization: Bearer $(cat \(alice))\" \(serverURL)/files")
        return lines
    }

    private var resolvedEndpoint: String? { self.endpoint ?? Self.environment("WIF_ENDPOINT") }

    private static func environment(_ name: String) -> String? {
        guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else { return nil }
        return value
    }

    private func makeLogger() -> Logger {
        guard self.verbose else { return Logger(label: "server-app", factory: { _ in SwiftLogNoOpLogHandler() }) }
        var logger = Logger(label: "server-app", factory: { StreamLogHandler.standardError(label: $0) })
        logger.logLevel = .info
        return logger
    }
}
