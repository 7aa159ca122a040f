import Foundation
import Testing
import WIFFoundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A running SeaweedFS whose STS trusts a development issuer, as `scripts/seaweedfs start DIR --local-issuer`
/// leaves it and describes in `DIR/env`:
///
/// - `WIF_SEAWEEDFS_ENDPOINT`: the S3 and STS endpoint (required);
/// - `WIF_SEAWEEDFS_ISSUER_DATA_DIR`: the data directory of the `wif-tool local serve` SeaweedFS trusts,
///   whose keys sign the tokens (`wif-tool local token --data-dir`) (required);
/// - `WIF_SEAWEEDFS_ISSUER_URL`: that issuer's endpoint;
/// - `WIF_SEAWEEDFS_ISSUER_CONFIG`: that issuer's configuration file, which names it by its own URL
///   (`wif-tool local token --config`);
/// - `WIF_SEAWEEDFS_ROLE_ARN`, `WIF_SEAWEEDFS_BUCKET`: the role and bucket of the set-up;
/// - `WIF_SEAWEEDFS_ADMIN_ACCESS_KEY_ID`, `WIF_SEAWEEDFS_ADMIN_SECRET_ACCESS_KEY`: the admin identity;
/// - `WIF_SEAWEEDFS_IAM_CONFIG`: the IAM config the set-up wrote.
///
/// Tests using it are enabled when `WIF_SEAWEEDFS_ENDPOINT` is set or `WIF_REQUIRE_PEERS=1`; with the
/// latter, missing variables fail the tests instead of skipping them.
struct SeaweedFSPeer: Sendable {
    let endpoint: String
    let issuerDataDirectory: String
    let issuerURL: String?
    let issuerConfig: String?
    let roleArn: String
    let bucket: String
    let adminAccessKeyId: String?
    let adminSecretAccessKey: String?
    let iamConfig: String?

    static let variables = ProcessInfo.processInfo.environment
    static let isEnabled = variables["WIF_SEAWEEDFS_ENDPOINT"] != nil || variables["WIF_REQUIRE_PEERS"] == "1"
    static let skipReason: Comment = """
        WIF_SEAWEEDFS_ENDPOINT is not set: run `scripts/seaweedfs start DIR --local-issuer` and export the \
        variables of DIR/env (.ci/run does; WIF_REQUIRE_PEERS=1 fails instead of skipping)
        """

    /// The peer the environment describes.
    /// - Throws: `ToolError` naming the variables that are missing.
    static func configured() throws -> SeaweedFSPeer {
        let missing = ["WIF_SEAWEEDFS_ENDPOINT", "WIF_SEAWEEDFS_ISSUER_DATA_DIR"].filter { (Self.variables[$0] ?? "").isEmpty }
        guard missing.isEmpty, let endpoint = Self.variables["WIF_SEAWEEDFS_ENDPOINT"],
            let issuer = Self.variables["WIF_SEAWEEDFS_ISSUER_DATA_DIR"]
        else {
            throw ToolError("the SeaweedFS tests need \(missing.joined(separator: " and ")); start one with `scripts/seaweedfs start DIR --local-issuer` and export DIR/env")
        }
        func value(_ name: String) -> String? { Self.variables[name].flatMap { $0.isEmpty ? nil : $0 } }
        return SeaweedFSPeer(
            endpoint: endpoint, issuerDataDirectory: issuer, issuerURL: value("WIF_SEAWEEDFS_ISSUER_URL"),
            issuerConfig: value("WIF_SEAWEEDFS_ISSUER_CONFIG"),
            roleArn: value("WIF_SEAWEEDFS_ROLE_ARN") ?? "arn:aws:iam::000000000000:role/personal-store",
            bucket: value("WIF_SEAWEEDFS_BUCKET") ?? "wif-personal",
            adminAccessKeyId: value("WIF_SEAWEEDFS_ADMIN_ACCESS_KEY_ID"), adminSecretAccessKey: value("WIF_SEAWEEDFS_ADMIN_SECRET_ACCESS_KEY"),
            iamConfig: value("WIF_SEAWEEDFS_IAM_CONFIG"))
    }

    /// A user name no other test (or earlier run against the same server) uses.
    static func uniqueUser(_ name: String) -> String {
        "\(name)-\(UUID().uuidString.prefix(8).lowercased())"
    }

    /// A development token of the trusted issuer for `user` (`wif-tool local token --provider oidc`).
    /// - Parameters:
    ///   - dataDirectory: Another issuer's data directory, for a token SeaweedFS must refuse.
    func token(
        user: String, provider: String = "oidc", audience: String? = nil, ttl: Int = 3600, dataDirectory: String? = nil, home: URL
    ) throws -> String {
        var arguments = ["local", "token", "--provider", provider, "--user", user, "--ttl", String(ttl), "--data-dir", dataDirectory ?? self.issuerDataDirectory]
        if let audience { arguments += ["--audience", audience] }
        if let issuerConfig { arguments += ["--config", issuerConfig] }
        let result = try ToolRunner.run(arguments, environment: ToolRunner.cleanEnvironment(home: home))
        guard result.status == 0 else { throw ToolError("wif-tool local token failed: \(result.stderr)") }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Points `fixture` at SeaweedFS (`WIF_ENDPOINT`, `WIF_BUCKET`) and signs `user` in with a token file.
    /// - Returns: The result of `wif-tool login --json`.
    func signIn(
        _ fixture: inout StoreFixture, user: String, account: String? = nil, bucket: String? = nil, extra: [String] = []
    ) throws -> ToolRunner.Result {
        fixture.environment["WIF_ENDPOINT"] = self.endpoint
        fixture.environment["WIF_BUCKET"] = bucket ?? self.bucket
        let tokenFile = fixture.path("\(user).jwt")
        try Data((try self.token(user: user, home: fixture.home) + "\n").utf8).write(to: URL(fileURLWithPath: tokenFile))
        var arguments = ["login", "--token-file", tokenFile, "--role-arn", self.roleArn, "--json"] + extra
        if let account { arguments += ["--account", account] }
        return try fixture.run(arguments)
    }

    /// The environment that makes `wif-tool request` sign as the admin identity.
    func adminEnvironment(secret: String? = nil) throws -> [String: String] {
        guard let key = self.adminAccessKeyId, let adminSecret = self.adminSecretAccessKey else {
            throw ToolError("WIF_SEAWEEDFS_ADMIN_ACCESS_KEY_ID and WIF_SEAWEEDFS_ADMIN_SECRET_ACCESS_KEY are not set")
        }
        return ["AWS_ACCESS_KEY_ID": key, "AWS_SECRET_ACCESS_KEY": secret ?? adminSecret, "AWS_REGION": "us-east-1"]
    }

    /// An HTTP answer: status and body.
    struct Reply: Sendable {
        var status: Int
        var body: String

        /// The text of the first `<name>` element.
        func element(_ name: String) -> String? {
            guard let open = self.body.range(of: "<\(name)>"), let close = self.body.range(of: "</\(name)>", range: open.upperBound..<self.body.endIndex)
            else { return nil }
            return String(self.body[open.upperBound..<close.lowerBound])
        }
    }

    /// POSTs a form to STS, unsigned as `AssumeRoleWithWebIdentity` is.
    func sts(_ form: [(String, String)]) async throws -> Reply {
        guard let url = URL(string: self.endpoint + "/") else { throw ToolError("bad endpoint \(self.endpoint)") }
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let body = form.map { name, value in
            "\(name)=\(value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")"
        }.joined(separator: "&")
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(body.utf8)
        return try await withCheckedThrowingContinuation { continuation in
            URLSession.shared.dataTask(with: request) { data, response, error in
                if let error {
                    continuation.resume(throwing: error)
                } else {
                    let status = (response as? HTTPURLResponse)?.statusCode ?? 0
                    continuation.resume(returning: Reply(status: status, body: String(decoding: data ?? Data(), as: UTF8.self)))
                }
            }.resume()
        }
    }

    /// The form of an `AssumeRoleWithWebIdentity` call.
    func assumeRoleForm(token: String, roleArn: String? = nil, sessionName: String? = "wif-test") -> [(String, String)] {
        var form = [("Action", "AssumeRoleWithWebIdentity"), ("Version", "2011-06-15"), ("RoleArn", roleArn ?? self.roleArn), ("WebIdentityToken", token)]
        if let sessionName { form.append(("RoleSessionName", sessionName)) }
        return form
    }
}
