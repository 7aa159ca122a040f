import Foundation
import Testing

/// A Ceph RADOS Gateway given by the environment (`scripts/ceph-rgw start DIR` writes these to
/// `DIR/env`): `WIF_CEPH_RGW_ENDPOINT`, `WIF_CEPH_RGW_ACCESS_KEY` and `WIF_CEPH_RGW_SECRET_KEY`.
///
/// Tests are enabled when all three are set, or when `WIF_REQUIRE_PEERS=1` (then missing settings fail
/// the tests instead of skipping them).
struct CephRGWGateway: Sendable {
    let endpoint: String
    let accessKey: String
    let secretKey: String

    static let variables = ["WIF_CEPH_RGW_ENDPOINT", "WIF_CEPH_RGW_ACCESS_KEY", "WIF_CEPH_RGW_SECRET_KEY"]

    static let configured: CephRGWGateway? = {
        let environment = ProcessInfo.processInfo.environment
        let values = Self.variables.compactMap { environment[$0].flatMap { $0.isEmpty ? nil : $0 } }
        guard values.count == 3 else { return nil }
        return CephRGWGateway(endpoint: values[0], accessKey: values[1], secretKey: values[2])
    }()

    static let isAvailable = configured != nil || ProcessInfo.processInfo.environment["WIF_REQUIRE_PEERS"] == "1"
    static let skipReason: Comment =
        "no Ceph RGW: set WIF_CEPH_RGW_ENDPOINT, WIF_CEPH_RGW_ACCESS_KEY and WIF_CEPH_RGW_SECRET_KEY (`scripts/ceph-rgw start DIR` prints the endpoint and writes all three to DIR/env; WIF_REQUIRE_PEERS=1 fails instead of skipping)"

    /// The configured gateway, or an error naming what is missing.
    static func require() throws -> CephRGWGateway {
        guard let configured else {
            throw ToolError("WIF_REQUIRE_PEERS=1 but \(Self.variables.joined(separator: ", ")) are not all set; run scripts/ceph-rgw start DIR and export DIR/env")
        }
        return configured
    }

    /// The administrator's settings for `wif-tool engine ceph-rgw`.
    var adminEnvironment: [String: String] {
        ["WIF_CEPH_RGW_ENDPOINT": self.endpoint, "WIF_CEPH_RGW_ACCESS_KEY": self.accessKey, "WIF_CEPH_RGW_SECRET_KEY": self.secretKey]
    }
}

/// `wif-tool local serve` as an OpenID Connect issuer that the gateway can reach: its `iss` is its own
/// URL, `http://127.0.0.1:PORT`, because RGW reads `<iss>/.well-known/openid-configuration`.
final class CephRGWIssuer: @unchecked Sendable {
    let url: String
    let folder: URL
    let configFile: URL
    let dataDirectory: URL
    private let process: Process
    private let lifeline: FileHandle

    /// A supervisor that clears the signal mask inherited from the test runner and kills the server when
    /// its standard input closes, also when the test process dies.
    private static let supervisor = """
        import signal, subprocess, sys, threading
        signal.pthread_sigmask(signal.SIG_SETMASK, [])
        child = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        def watch():
            sys.stdin.buffer.read()
            child.kill()
        threading.Thread(target=watch, daemon=True).start()
        sys.exit(child.wait())
        """

    private init(url: String, folder: URL, process: Process, lifeline: FileHandle) {
        self.url = url
        self.folder = folder
        self.configFile = folder.appendingPathComponent("issuer.json")
        self.dataDirectory = folder.appendingPathComponent("issuer-data")
        self.process = process
        self.lifeline = lifeline
    }

    /// Starts an issuer keeping its files in `folder`; with `ownURL: false` it keeps the default `iss`
    /// (`https://wif.localhost`), which RGW cannot use.
    static func start(in folder: URL, ownURL: Bool = true) async throws -> CephRGWIssuer {
        guard let tool = ToolRunner.executable, let python = MotoPeer.onPath("python3") else {
            throw ToolError("wif-tool is not built, or python3 is not on PATH")
        }
        var lastError: any Error = ToolError("the issuer did not start")
        for _ in 0..<3 {
            let port = try MotoPeer.freePort()
            let url = "http://127.0.0.1:\(port)"
            let config = folder.appendingPathComponent("issuer.json")
            let issuer = ownURL ? #", "issuer": "\#(url)""# : ""
            try Data(#"{"port": \#(port)\#(issuer)}"#.utf8).write(to: config)
            let process = Process()
            process.executableURL = python
            process.arguments = [
                "-c", Self.supervisor, tool.path, "local", "serve", "--config", config.path,
                "--data-dir", folder.appendingPathComponent("issuer-data").path,
            ]
            process.environment = ToolRunner.cleanEnvironment(home: folder)
            let lifeline = Pipe()
            process.standardInput = lifeline
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            let server = CephRGWIssuer(url: url, folder: folder, process: process, lifeline: lifeline.fileHandleForWriting)
            do {
                for attempt in 0..<200 {
                    guard server.process.isRunning else { throw ToolError("wif-tool local serve exited during start-up") }
                    if MotoPeer.accepts(port: port) { return server }
                    if attempt == 199 { throw ToolError("wif-tool local serve did not listen on port \(port) within 20 seconds") }
                    try await Task.sleep(for: .milliseconds(100))
                }
            } catch {
                server.stop()
                lastError = error
            }
        }
        throw lastError
    }

    func stop() {
        try? self.lifeline.close()
        self.process.waitUntilExit()
    }

    /// A development token of the issuer's `oidc` profile, written to a file in the issuer's folder.
    /// - Returns: The file's path.
    func tokenFile(
        user: String, tags: [String: String] = [:], audience: String? = nil, ttl: Int? = nil, name: String? = nil
    ) throws -> String {
        var arguments = ["local", "token", "--provider", "oidc", "--user", user, "--config", self.configFile.path, "--data-dir", self.dataDirectory.path]
        for (key, value) in tags.sorted(by: { $0.key < $1.key }) { arguments += ["--tag", "\(key)=\(value)"] }
        if let audience { arguments += ["--audience", audience] }
        if let ttl { arguments += ["--ttl", String(ttl)] }
        let result = try ToolRunner.run(arguments, environment: ToolRunner.cleanEnvironment(home: self.folder))
        guard result.status == 0 else { throw ToolError("local token failed: \(result.stderr)") }
        let file = self.folder.appendingPathComponent(name ?? "\(user)-\(UUID().uuidString).jwt")
        try Data(result.stdout.utf8).write(to: file)
        return file.path
    }
}

/// One test's world on the gateway: its own issuer (so its own OIDC provider), bucket and role names,
/// removed afterwards.
struct CephRGWWorld {
    let gateway: CephRGWGateway
    let issuer: CephRGWIssuer
    let folder: URL
    let bucket: String
    let namePrefix: String

    static func start() async throws -> CephRGWWorld {
        let gateway = try CephRGWGateway.require()
        let folder = try ToolRunner.temporaryDirectory()
        let issuer = try await CephRGWIssuer.start(in: folder)
        let tag = String(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(8))
        return CephRGWWorld(gateway: gateway, issuer: issuer, folder: folder, bucket: "wif-rgw-\(tag)", namePrefix: "t\(tag)")
    }

    /// The `engine ceph-rgw` options of this world.
    func planArguments(strategy: String, users: [String]) -> [String] {
        var arguments = [
            "--endpoint", self.gateway.endpoint, "--issuer-url", self.issuer.url, "--bucket", self.bucket, "--strategy", strategy,
            "--name-prefix", self.namePrefix,
        ]
        for user in users { arguments += ["--user", user] }
        return arguments
    }

    /// Runs `wif-tool` as the gateway's administrator.
    func admin(_ arguments: [String], extra: [String: String] = [:]) throws -> ToolRunner.Result {
        try ToolRunner.run(
            arguments, environment: ToolRunner.cleanEnvironment(home: self.folder, extra: self.gateway.adminEnvironment.merging(extra) { $1 }))
    }

    /// `engine ceph-rgw setup`, which must succeed; its JSON output.
    func setUp(strategy: String, users: [String]) throws -> [String: Any] {
        let result = try self.admin(["engine", "ceph-rgw", "setup", "--json"] + self.planArguments(strategy: strategy, users: users))
        guard result.status == 0 else { throw ToolError("setup failed (\(result.status)): \(result.stderr)") }
        return try StoreFixture.object(result)
    }

    /// Removes the roles and provider, stops the issuer and deletes the files.
    func tearDown(strategy: String, users: [String]) {
        _ = try? self.admin(["engine", "ceph-rgw", "remove"] + self.planArguments(strategy: strategy, users: users))
        self.issuer.stop()
        try? FileManager.default.removeItem(at: self.folder)
    }

    /// A user's file store pointed at the gateway and this world's bucket.
    func store() throws -> StoreFixture {
        var fixture = try StoreFixture()
        fixture.environment = ["WIF_ENDPOINT": self.gateway.endpoint, "WIF_BUCKET": self.bucket]
        return fixture
    }

    /// Signs a user in with a token file and a role; the login's result.
    func signIn(_ fixture: StoreFixture, tokenFile: String, role: String) throws -> ToolRunner.Result {
        try fixture.run(["login", "--token-file", tokenFile, "--role-arn", role, "--json"])
    }

    /// A signed S3 request with `wif-tool request`, as the web identity of a token file assuming a role
    /// (the SDKs' `AWS_ROLE_ARN` and `AWS_WEB_IDENTITY_TOKEN_FILE`).
    func request(asRole role: String, tokenFile: String, _ arguments: [String]) throws -> ToolRunner.Result {
        try ToolRunner.run(
            ["request", "--service", "s3", "--json"] + arguments,
            environment: ToolRunner.cleanEnvironment(
                home: self.folder,
                extra: [
                    "AWS_ROLE_ARN": role, "AWS_WEB_IDENTITY_TOKEN_FILE": tokenFile, "AWS_ROLE_SESSION_NAME": "wif-test",
                    "AWS_ENDPOINT_URL_STS": self.gateway.endpoint, "AWS_REGION": "us-east-1",
                ]))
    }

    /// A signed S3 request with static credentials.
    func request(credentials: [String: Any], _ arguments: [String]) throws -> ToolRunner.Result {
        try ToolRunner.run(
            ["request", "--service", "s3", "--json"] + arguments,
            environment: ToolRunner.cleanEnvironment(
                home: self.folder,
                extra: [
                    "AWS_ACCESS_KEY_ID": credentials["AccessKeyId"] as? String ?? "",
                    "AWS_SECRET_ACCESS_KEY": credentials["SecretAccessKey"] as? String ?? "",
                    "AWS_SESSION_TOKEN": credentials["SessionToken"] as? String ?? "", "AWS_REGION": "us-east-1",
                ]))
    }

    /// The URL of a key in this world's bucket.
    func url(_ key: String) -> String { "\(self.gateway.endpoint)/\(self.bucket)/\(key)" }

    /// The URL of a listing of this world's bucket with a prefix (none when `nil`).
    func listURL(prefix: String?) -> String {
        "\(self.gateway.endpoint)/\(self.bucket)?list-type=2" + (prefix.map { "&prefix=\($0)" } ?? "")
    }

    /// The HTTP status and body of a `request --json` result.
    static func answer(_ result: ToolRunner.Result) throws -> (status: Int, body: String) {
        let object = try StoreFixture.object(result)
        return ((object["status"] as? NSNumber)?.intValue ?? 0, object["body"] as? String ?? "")
    }
}
