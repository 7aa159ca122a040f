import Foundation
import PolicyEngine
import WIFFoundation

/// Configuration files.
///
/// A configuration file is a JSON object. It starts from ``LocalConfiguration/default(dataDirectory:)``
/// (unless `"defaults": false`, which starts from nothing) and changes it:
///
/// - scalars (`host`, `port`, `issuer`, `accountId`, `region`, `allowedClockSkew`, `tokenLeeway`,
///   `adminCredentials`) replace the default; so do the lifetimes given in `oauth` and the limits given in
///   `connections`;
/// - `providers`, `buckets` and `roles` entries are matched by `name`: an entry with a new name is added,
///   an entry with the name of a default one changes only the fields it gives (`null` clears an optional
///   field); `oauthClients` entries likewise by `clientId`; `externalIssuers` entries are added;
/// - the default roles are built from the providers after the changes, so a provider's new `clientIds`
///   or the file's `issuer` and `accountId` show in the default trust policies.
///
/// Policies (`trustPolicy`, each of `permissionPolicies`, a bucket's `policy`) are an inline JSON object,
/// or a string naming a file relative to the configuration file. Each is validated with PolicyEngine as
/// the file is read, and every problem names its JSON path: `roles[2].trustPolicy: Statement[0].Effect: …`.
extension LocalConfiguration {
    /// Reads a configuration file.
    /// - Parameters:
    ///   - path: The JSON file; policy file names in it are relative to its folder.
    ///   - dataDirectory: Where the stack keeps its state.
    /// - Returns: The configuration, validated.
    /// - Throws: ``LocalStackError`` naming the file and listing every problem with its JSON path.
    public static func load(file path: String, dataDirectory: String) throws(LocalStackError) -> LocalConfiguration {
        try self.load(json: try self.fileContents(path), file: path, dataDirectory: dataDirectory)
    }

    /// Reads configuration JSON already read from a file (see ``fileContents(_:)``): policy file names in it
    /// are relative to the file's folder, and messages name the file.
    package static func load(json: [UInt8], file path: String, dataDirectory: String) throws(LocalStackError) -> LocalConfiguration {
        let folder = (path as NSString).deletingLastPathComponent
        return try self.load(json: json, baseDirectory: folder.isEmpty ? "." : folder, dataDirectory: dataDirectory, sourceName: path)
    }

    /// The most bytes a configuration file may hold.
    package static let maximumFileSize = 16 << 20

    /// The bytes of a configuration file: a regular file, or a pipe such as a shell's `<(command)`.
    /// - Throws: ``LocalStackError`` `cannot read the configuration file PATH: REASON`.
    package static func fileContents(_ path: String) throws(LocalStackError) -> [UInt8] {
        do throws(FileContents.Failure) {
            return try FileContents.read(path, limit: Self.maximumFileSize)
        } catch {
            let reason = error.kind == .missing ? "no such file" : error.reason
            throw LocalStackError("cannot read the configuration file \(path): \(reason)")
        }
    }

    /// Reads configuration JSON.
    /// - Parameters:
    ///   - json: The configuration as UTF-8 JSON.
    ///   - baseDirectory: The folder that policy and JWKS file names are relative to.
    ///   - dataDirectory: Where the stack keeps its state.
    ///   - sourceName: How messages name the configuration, such as its file name.
    /// - Returns: The configuration, validated.
    /// - Throws: ``LocalStackError`` listing every problem with its JSON path.
    public static func load(
        json: [UInt8], baseDirectory: String, dataDirectory: String, sourceName: String = "configuration"
    ) throws(LocalStackError) -> LocalConfiguration {
        let root: ConfigurationJSON
        do {
            root = try ConfigurationJSON.parse(json)
        } catch {
            let (line, column) = ConfigurationJSON.location(of: error.offset, in: json)
            throw LocalStackError("\(sourceName):\(line):\(column): not valid JSON: \(error.message)")
        }
        var reader = ConfigurationFileReader(bytes: json, baseDirectory: baseDirectory)
        let result = reader.read(root, dataDirectory: dataDirectory)
        var problems = reader.problems
        if let (configuration, labels) = result {
            // The whole configuration is checked even when some entries were refused, so that every problem
            // shows at once; a field the reader refused is not reported again for the value it was left with.
            let refused = Set(problems.map(Self.problemPath))
            problems += configuration.problems(labels: labels, checkingPolicies: false).filter { !refused.contains(Self.problemPath($0)) }
            if problems.isEmpty { return configuration }
        }
        throw LocalStackError(Self.describe(problems, in: sourceName))
    }

    /// The JSON path a problem is about: its text before the first `": "`.
    static func problemPath(_ problem: String) -> Substring {
        guard let end = problem.range(of: ": ") else { return problem[...] }
        return problem[..<end.lowerBound]
    }

    /// The configuration as a configuration file that starts from nothing (`"defaults": false`) and reads
    /// back to the same configuration, policies inline. It holds the administrator's secret, if any.
    public func fileRepresentation() -> String {
        var out = "{\n"
        var fields: [String] = [
            "\"defaults\": false",
            "\"host\": \(JSONWriter.quoted(self.host))",
            "\"port\": \(self.port)",
            "\"issuer\": \(JSONWriter.quoted(self.issuer))",
            "\"accountId\": \(JSONWriter.quoted(self.accountId))",
            "\"region\": \(JSONWriter.quoted(self.region))",
            "\"allowedClockSkew\": \(self.allowedClockSkew)",
            "\"tokenLeeway\": \(self.tokenLeeway)",
        ]
        if let admin = self.adminCredentials {
            fields.append(
                "\"adminCredentials\": {\"accessKeyId\": \(JSONWriter.quoted(admin.accessKeyId)), "
                    + "\"secretAccessKey\": \(JSONWriter.quoted(admin.secretAccessKey))}")
        }
        fields.append("\"providers\": " + Self.array(self.providers.map { provider in
            var members = [
                "\"name\": \(JSONWriter.quoted(provider.name))",
                "\"kind\": \(JSONWriter.quoted(provider.kind.rawValue))",
                "\"clientIds\": \(Self.strings(provider.clientIds))",
            ]
            if let issuer = provider.issuer { members.append("\"issuer\": \(JSONWriter.quoted(issuer))") }
            return members
        }))
        fields.append("\"externalIssuers\": " + Self.array(self.externalIssuers.map { external in
            var members = ["\"issuer\": \(JSONWriter.quoted(external.issuer))"]
            if let url = external.jwksURL { members.append("\"jwksURL\": \(JSONWriter.quoted(url))") }
            if let file = external.jwksFile { members.append("\"jwksFile\": \(JSONWriter.quoted(file))") }
            members.append("\"clientIds\": \(Self.strings(external.clientIds))")
            return members
        }))
        fields.append("\"buckets\": " + Self.array(self.buckets.map { bucket in
            var members = ["\"name\": \(JSONWriter.quoted(bucket.name))"]
            if let policy = bucket.policy { members.append("\"policy\": \(Self.inline(policy, indent: 6))") }
            return members
        }))
        fields.append("\"roles\": " + Self.array(self.roles.map { role in
            var members = [
                "\"name\": \(JSONWriter.quoted(role.name))",
                "\"path\": \(JSONWriter.quoted(role.path))",
                "\"maxSessionDuration\": \(role.maxSessionDuration)",
            ]
            if let provider = role.provider { members.append("\"provider\": \(JSONWriter.quoted(provider))") }
            if let bucket = role.bucket { members.append("\"bucket\": \(JSONWriter.quoted(bucket))") }
            if let template = role.partitionTemplate { members.append("\"partitionTemplate\": \(JSONWriter.quoted(template))") }
            members.append("\"trustPolicy\": \(Self.inline(role.trustPolicy, indent: 6))")
            let policies = role.permissionPolicies.map { "        " + Self.inline($0, indent: 8) }
            members.append("\"permissionPolicies\": " + (policies.isEmpty ? "[]" : "[\n" + policies.joined(separator: ",\n") + "\n      ]"))
            return members
        }))
        fields += self.oauthFileFields()
        fields.append(self.connectionsFileField())
        fields.append(self.identityPoolsFileField())
        fields.append(self.apisFileField())
        out += fields.map { "  " + $0 }.joined(separator: ",\n")
        return out + "\n}\n"
    }

    static func strings(_ values: [String]) -> String {
        "[" + values.map(JSONWriter.quoted).joined(separator: ", ") + "]"
    }

    static func array(_ objects: [[String]]) -> String {
        guard !objects.isEmpty else { return "[]" }
        let rendered = objects.map { members in
            "    {\n" + members.map { "      " + $0 }.joined(separator: ",\n") + "\n    }"
        }
        return "[\n" + rendered.joined(separator: ",\n") + "\n  ]"
    }

    /// Policy text placed as a value: trimmed, and its lines after the first moved to `indent`, keeping their
    /// relative indentation, so that writing what was read gives the same text.
    private static func inline(_ policy: String, indent: Int) -> String {
        let lines = policy.trimming(.whitespacesAndNewlines).split(separator: "\n", omittingEmptySubsequences: false)
        let common = lines.dropFirst().filter { !$0.allSatisfy(\.isWhitespace) }
            .map { $0.prefix { $0 == " " }.count }.min() ?? 0
        let pad = String(repeating: " ", count: indent)
        return lines.enumerated().map { index, line in
            index == 0 ? String(line) : pad + line.dropFirst(min(common, line.prefix { $0 == " " }.count))
        }.joined(separator: "\n")
    }
}

