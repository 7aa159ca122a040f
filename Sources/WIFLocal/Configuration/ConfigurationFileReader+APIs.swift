import AccessRules
import Foundation
import WIFAPIServer
import WIFFoundation

extension ConfigurationFileReader {
    /// One entry of `apis`:
    ///
    /// ```json
    /// {"name": "notes", "schema": "type Note @model @auth(rules: [{allow: owner}]) { id: ID! }",
    ///  "authorizationModes": ["AMAZON_COGNITO_USER_POOLS", "API_KEY"], "defaultMode": "AMAZON_COGNITO_USER_POOLS",
    ///  "apiKeys": [{"name": "web", "value": "da2-…", "expires": "2027-01-01T00:00:00Z"}], "stage": "local",
    ///  "semantics": "v2"}
    /// ```
    ///
    /// `schemaFile` (relative to the configuration file) may stand for `schema`. An API that accepts
    /// `AWS_LAMBDA` names the program deciding its tokens: `"lambdaAuthorizer": {"command": ["./authorizer",
    /// "--strict"], "resultTTLSeconds": 300, "timeoutSeconds": 10}`, a program path with a `/` relative to
    /// the configuration file. An entry named like a default API replaces it.
    mutating func api(_ node: ConfigurationJSON, path: String) -> APIDefinition? {
        let keys = ["name", "schema", "schemaFile", "authorizationModes", "defaultMode", "apiKeys", "stage", "userPoolProfile", "oidcProfile", "semantics", "lambdaAuthorizer"]
        guard let members = self.object(node, path: path, keys: keys), let name = self.requiredString(members, "name", path: path) else {
            return nil
        }
        func member(_ key: String) -> ConfigurationJSON? { members.first { $0.key == key }?.value }
        let schema: String?
        switch (member("schema"), member("schemaFile")) {
        case (let text?, nil): schema = self.string(text, path: "\(path).schema")
        case (nil, let file?):
            guard let name = self.string(file, path: "\(path).schemaFile") else { return nil }
            let resolved = self.resolve(name)
            guard let data = FileManager.default.contents(atPath: resolved), let text = String(data: data, encoding: .utf8) else {
                self.problems.append("\(path).schemaFile: cannot read \(resolved)")
                return nil
            }
            schema = text
        case (.some, .some):
            self.problems.append("\(path): give schema or schemaFile, not both")
            return nil
        case (nil, nil):
            self.problems.append("\(path): needs schema or schemaFile")
            return nil
        }
        var modes: [APIAuthorizationMode] = []
        if let node = member("authorizationModes"), let names = self.strings(node, path: "\(path).authorizationModes") {
            for (index, name) in names.enumerated() {
                guard let mode = APIAuthorizationMode(name: name) else {
                    self.problems.append(
                        "\(path).authorizationModes[\(index)]: unknown mode '\(name)'; expected one of \(APIAuthorizationMode.names.joined(separator: ", "))")
                    continue
                }
                modes.append(mode)
            }
        } else if member("authorizationModes") == nil {
            self.problems.append("\(path): needs authorizationModes")
        }
        var defaultMode: APIAuthorizationMode?
        if let node = member("defaultMode"), let name = self.string(node, path: "\(path).defaultMode") {
            defaultMode = APIAuthorizationMode(name: name)
            if defaultMode == nil {
                self.problems.append("\(path).defaultMode: unknown mode '\(name)'; expected one of \(APIAuthorizationMode.names.joined(separator: ", "))")
            }
        }
        var keysRead: [APIKey] = []
        for (keyPath, entry) in self.entries(member("apiKeys"), path: "\(path).apiKeys") {
            guard let fields = self.object(entry, path: keyPath, keys: ["name", "value", "expires"]),
                let keyName = self.requiredString(fields, "name", path: keyPath), let value = self.requiredString(fields, "value", path: keyPath)
            else { continue }
            var expires: Date?
            if let node = fields.first(where: { $0.key == "expires" })?.value, let text = self.string(node, path: "\(keyPath).expires") {
                expires = ISO8601DateFormatter().date(from: text)
                if expires == nil { self.problems.append("\(keyPath).expires: must be a date like 2027-01-01T00:00:00Z, not '\(text)'") }
            }
            keysRead.append(APIKey(name: keyName, value: value, expires: expires))
        }
        var api = APIDefinition(name: name, schema: schema ?? "", authorizationModes: modes, defaultMode: defaultMode, apiKeys: keysRead)
        if let node = member("stage"), let stage = self.string(node, path: "\(path).stage") { api.stage = stage }
        if let node = member("userPoolProfile"), let value = self.string(node, path: "\(path).userPoolProfile") { api.userPoolProfile = value }
        if let node = member("oidcProfile"), let value = self.string(node, path: "\(path).oidcProfile") { api.oidcProfile = value }
        if let node = member("semantics"), let value = self.string(node, path: "\(path).semantics") {
            if let semantics = RuleSemantics(rawValue: value) {
                api.semantics = semantics
            } else {
                self.problems.append("\(path).semantics: must be v1 or v2, not '\(value)'")
            }
        }
        if let node = member("lambdaAuthorizer") { api.lambdaAuthorizer = self.lambdaAuthorizer(node, path: "\(path).lambdaAuthorizer") }
        return api
    }

    /// `lambdaAuthorizer`: the command, its program resolved against the configuration file's folder
    /// when it is a relative path.
    private mutating func lambdaAuthorizer(_ node: ConfigurationJSON, path: String) -> LocalLambdaAuthorizer? {
        guard let fields = self.object(node, path: path, keys: ["command", "resultTTLSeconds", "timeoutSeconds"]) else { return nil }
        func field(_ key: String) -> ConfigurationJSON? { fields.first { $0.key == key }?.value }
        // A function whose command is missing or unreadable is still read, with no command, so that its
        // other fields are checked too and the API is not also said to have no function.
        var command: [String] = []
        if let commandNode = field("command") {
            if let strings = self.strings(commandNode, path: "\(path).command") { command = strings }
        } else {
            self.problems.append("\(path).command: is required: [\"program\", \"argument\", …]")
        }
        if let program = command.first, program.contains("/") { command[0] = self.resolve(program) }
        var authorizer = LocalLambdaAuthorizer(command: command)
        if let node = field("resultTTLSeconds"), let value = self.int(node, path: "\(path).resultTTLSeconds") { authorizer.resultTTLSeconds = value }
        if let node = field("timeoutSeconds"), let value = self.int(node, path: "\(path).timeoutSeconds") { authorizer.timeoutSeconds = value }
        return authorizer
    }
}

extension LocalConfiguration {
    /// The `apis` member of ``fileRepresentation()``, in the shape the reader takes; API keys included, as
    /// the file must serve the same keys.
    func apisFileField() -> String {
        let quoted = JSONWriter.quoted
        return "\"apis\": " + Self.array(self.apis.map { api in
            let keys = api.apiKeys.map { key in
                var fields = ["\"name\": \(quoted(key.name))", "\"value\": \(quoted(key.value))"]
                if let expires = key.expires { fields.append("\"expires\": \(quoted(AWSDate.extended(Int64(expires.timeIntervalSince1970))))") }
                return "{" + fields.joined(separator: ", ") + "}"
            }
            return [
                "\"name\": \(quoted(api.name))",
                "\"schema\": \(quoted(api.schema))",
                "\"authorizationModes\": \(Self.strings(api.authorizationModes.map(\.rawValue)))",
                "\"defaultMode\": \(quoted(api.defaultMode.rawValue))",
                "\"apiKeys\": [\(keys.joined(separator: ", "))]",
                "\"stage\": \(quoted(api.stage))",
                "\"userPoolProfile\": \(quoted(api.userPoolProfile))",
                "\"oidcProfile\": \(quoted(api.oidcProfile))",
                "\"semantics\": \(quoted(api.semantics.rawValue))",
            ] + (api.lambdaAuthorizer.map { lambda in
                [
                    "\"lambdaAuthorizer\": {\"command\": \(Self.strings(lambda.command)), \"resultTTLSeconds\": \(lambda.resultTTLSeconds), "
                        + "\"timeoutSeconds\": \(lambda.timeoutSeconds)}"
                ]
            } ?? [])
        })
    }
}
