public import AccessRules
public import Foundation
import WIFFoundation

/// One API as an Amplify configuration file describes it: where it is and how it is called.
public struct APIEndpoint: Sendable, Hashable {
    /// GraphQL (AppSync) or REST (API Gateway).
    public enum Kind: String, Sendable, Hashable {
        case graphQL = "GraphQL"
        case rest = "REST"
    }

    /// The API's name in the configuration (`data` for a Gen 2 data API).
    public var name: String
    /// The kind.
    public var kind: Kind
    /// The API's URL; request paths are relative to it.
    public var url: URL
    /// The region.
    public var region: String
    /// The mode used when a call names none.
    public var defaultMode: APIAuthorizationMode
    /// Every mode the API accepts, the default first.
    public var modes: [APIAuthorizationMode]
    /// The API key, for `API_KEY`.
    public var apiKey: String?
    /// The SigV4 signing name: `appsync` for GraphQL, `execute-api` for REST.
    public var signingService: String

    /// Creates an endpoint.
    public init(
        name: String, kind: Kind, url: URL, region: String, defaultMode: APIAuthorizationMode, modes: [APIAuthorizationMode] = [],
        apiKey: String? = nil, signingService: String? = nil
    ) {
        self.name = name
        self.kind = kind
        self.url = url
        self.region = region
        self.defaultMode = defaultMode
        self.modes = [defaultMode] + modes.filter { $0 != defaultMode }
        self.apiKey = apiKey
        self.signingService = signingService ?? (kind == .graphQL ? "appsync" : "execute-api")
    }
}

/// Why a configuration file could not be read: the JSON path and line and column of the problem.
public struct APIConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The JSON path (`api.plugins.awsAPIPlugin.todo.endpoint`), empty for the whole document.
    public var path: String
    /// The line, 1-based, when known.
    public var line: Int?
    /// The column, 1-based, when known.
    public var column: Int?
    /// What was wrong.
    public var message: String

    /// `path (line L, column C): message`.
    public var description: String {
        var place = self.path.isEmpty ? "the configuration" : self.path
        if let line, let column { place += " (line \(line), column \(column))" }
        return "\(place): \(self.message)"
    }
}

/// Reads the APIs of Amplify's configuration files: Gen 1 `amplifyconfiguration.json`
/// (`api.plugins.awsAPIPlugin.<name>`: `endpointType`, `endpoint`, `region`, `authorizationType`,
/// `apiKey`) and Gen 2 `amplify_outputs.json` (`data`: `url`, `aws_region`,
/// `default_authorization_type`, `authorization_types`, `api_key`; and the REST APIs of
/// `custom.API.<name>`: `endpoint`, `region`).
public enum AmplifyAPIConfiguration {
    /// Reads every API of a file of either generation, told apart by their keys.
    /// - Parameter bytes: The file.
    /// - Returns: The APIs, by name.
    /// - Throws: ``APIConfigurationError`` naming the JSON path of the first problem.
    public static func read(_ bytes: [UInt8]) throws(APIConfigurationError) -> [APIEndpoint] {
        let reader = Reader(bytes: bytes)
        let root = try reader.root()
        guard case .object = root.kind else { throw reader.error(root, "", "must be a JSON object, not \(root.typeName)") }
        if root.member("api") != nil { return try reader.gen1(root) }
        if root.member("data") != nil || root.member("custom") != nil || root.member("version") != nil { return try reader.gen2(root) }
        throw reader.error(root, "", "has neither api (amplifyconfiguration.json) nor data or custom (amplify_outputs.json)")
    }

    /// Reads one API by name.
    /// - Parameters:
    ///   - name: The API's name; for a Gen 2 file, `data` or the name of the local API it describes.
    ///   - bytes: The file.
    /// - Throws: ``APIConfigurationError`` when the file is invalid or has no such API.
    public static func endpoint(named name: String, in bytes: [UInt8]) throws(APIConfigurationError) -> APIEndpoint {
        let endpoints = try Self.read(bytes)
        if let found = endpoints.first(where: { $0.name == name }) { return found }
        if endpoints.count == 1, endpoints[0].name == "data" { return endpoints[0] }
        let known = endpoints.isEmpty ? "none (no api.plugins.awsAPIPlugin, data or custom.API)" : endpoints.map(\.name).joined(separator: ", ")
        throw APIConfigurationError(path: "", line: nil, column: nil, message: "has no API named '\(name)'; it has \(known)")
    }

    struct Reader {
        let bytes: [UInt8]

        /// The document, or the syntax error with its line and column.
        func root() throws(APIConfigurationError) -> JSONNode {
            do {
                return try JSONParser.parse(self.bytes)
            } catch {
                let location = JSONParser.location(of: error.offset, in: self.bytes)
                throw APIConfigurationError(path: "", line: location.line, column: location.column, message: "not valid JSON: \(error.message)")
            }
        }

        func error(_ node: JSONNode, _ path: String, _ message: String) -> APIConfigurationError {
            guard node.offset >= 0 else { return APIConfigurationError(path: path, line: nil, column: nil, message: message) }
            let location = JSONParser.location(of: node.offset, in: self.bytes)
            return APIConfigurationError(path: path, line: location.line, column: location.column, message: message)
        }

        func object(_ node: JSONNode, _ path: String) throws(APIConfigurationError) -> [JSONMember] {
            guard case .object(let members) = node.kind else { throw self.error(node, path, "must be an object, not \(node.typeName)") }
            return members
        }

        func string(_ parent: JSONNode, _ key: String, _ path: String, required: Bool = true) throws(APIConfigurationError) -> String? {
            guard let node = parent.member(key) else {
                if required { throw self.error(parent, path, "needs \(key)") }
                return nil
            }
            guard let value = node.stringValue else { throw self.error(node, "\(path).\(key)", "must be a string, not \(node.typeName)") }
            return value
        }

        func url(_ parent: JSONNode, _ key: String, _ path: String) throws(APIConfigurationError) -> URL {
            let text = try self.string(parent, key, path) ?? ""
            guard let url = URL(string: text), let scheme = url.scheme, scheme == "https" || scheme == "http", url.host != nil else {
                throw self.error(parent.member(key) ?? parent, "\(path).\(key)", "'\(text.prefix(200))' is not an http or https URL")
            }
            return url
        }

        func mode(_ node: JSONNode, _ path: String) throws(APIConfigurationError) -> APIAuthorizationMode {
            guard let name = node.stringValue else { throw self.error(node, path, "must be a string, not \(node.typeName)") }
            guard let mode = APIAuthorizationMode(rawValue: name) else {
                throw self.error(node, path, "unknown authorization type '\(name.prefix(64))'; expected one of \(APIAuthorizationMode.names.joined(separator: ", "))")
            }
            return mode
        }

        func gen1(_ root: JSONNode) throws(APIConfigurationError) -> [APIEndpoint] {
            guard let api = root.member("api") else { return [] }
            _ = try self.object(api, "api")
            guard let plugins = api.member("plugins") else { throw self.error(api, "api", "needs plugins") }
            guard let plugin = plugins.member("awsAPIPlugin") else { throw self.error(plugins, "api.plugins", "needs awsAPIPlugin") }
            var endpoints: [APIEndpoint] = []
            for member in try self.object(plugin, "api.plugins.awsAPIPlugin") {
                let path = "api.plugins.awsAPIPlugin.\(member.key)"
                let node = member.value
                _ = try self.object(node, path)
                let typeName = try self.string(node, "endpointType", path) ?? ""
                guard let kind = APIEndpoint.Kind(rawValue: typeName) else {
                    throw self.error(node.member("endpointType") ?? node, "\(path).endpointType", "must be GraphQL or REST, not '\(typeName.prefix(64))'")
                }
                let url = try self.url(node, "endpoint", path)
                let region = try self.string(node, "region", path) ?? ""
                guard let modeNode = node.member("authorizationType") else { throw self.error(node, path, "needs authorizationType") }
                let mode = try self.mode(modeNode, "\(path).authorizationType")
                let apiKey = try self.string(node, "apiKey", path, required: false)
                if mode == .apiKey, apiKey == nil { throw self.error(node, path, "authorizationType API_KEY needs apiKey") }
                endpoints.append(APIEndpoint(name: member.key, kind: kind, url: url, region: region, defaultMode: mode, apiKey: apiKey))
            }
            return endpoints
        }

        func gen2(_ root: JSONNode) throws(APIConfigurationError) -> [APIEndpoint] {
            var endpoints: [APIEndpoint] = []
            if let data = root.member("data") {
                _ = try self.object(data, "data")
                let url = try self.url(data, "url", "data")
                let region = try self.string(data, "aws_region", "data") ?? ""
                guard let defaultNode = data.member("default_authorization_type") else {
                    throw self.error(data, "data", "needs default_authorization_type")
                }
                let defaultMode = try self.mode(defaultNode, "data.default_authorization_type")
                var modes: [APIAuthorizationMode] = []
                if let list = data.member("authorization_types") {
                    guard let elements = list.arrayValue else {
                        throw self.error(list, "data.authorization_types", "must be an array, not \(list.typeName)")
                    }
                    for (index, element) in elements.enumerated() {
                        modes.append(try self.mode(element, "data.authorization_types[\(index)]"))
                    }
                }
                let apiKey = try self.string(data, "api_key", "data", required: false)
                if defaultMode == .apiKey || modes.contains(.apiKey), apiKey == nil {
                    throw self.error(data, "data", "API_KEY needs api_key")
                }
                let kind: APIEndpoint.Kind = url.path.hasSuffix("/graphql") ? .graphQL : .rest
                endpoints.append(
                    APIEndpoint(name: "data", kind: kind, url: url, region: region, defaultMode: defaultMode, modes: modes, apiKey: apiKey))
            }
            if let apis = root.member("custom")?.member("API") {
                for member in try self.object(apis, "custom.API") {
                    let path = "custom.API.\(member.key)"
                    _ = try self.object(member.value, path)
                    let url = try self.url(member.value, "endpoint", path)
                    let region = try self.string(member.value, "region", path) ?? ""
                    endpoints.append(APIEndpoint(name: member.key, kind: .rest, url: url, region: region, defaultMode: .iam))
                }
            }
            return endpoints
        }
    }
}

extension AmplifyAPIConfiguration {
    /// The type-level `@auth` rules of the data API's models, from `data.model_introspection` of an
    /// `amplify_outputs.json`, for choosing modes in multi-auth; `nil` when the file has none.
    /// - Parameter bytes: The file.
    /// - Throws: ``APIConfigurationError`` when the file or its rules are invalid.
    public static func rules(in bytes: [UInt8]) throws(APIConfigurationError) -> RuleSet? {
        let reader = Reader(bytes: bytes)
        let root = try reader.root()
        guard let introspection = root.member("data")?.member("model_introspection") else { return nil }
        guard let models = introspection.member("models") else {
            throw reader.error(introspection, "data.model_introspection", "needs models")
        }
        var entries: [String] = []
        for model in try reader.object(models, "data.model_introspection.models") {
            let path = "data.model_introspection.models.\(model.key)"
            var rules = "[]"
            for (index, attribute) in (model.value.member("attributes")?.arrayValue ?? []).enumerated()
            where attribute.member("type")?.stringValue == "auth" {
                guard let list = attribute.member("properties")?.member("rules"), list.arrayValue != nil else {
                    throw reader.error(attribute, "\(path).attributes[\(index)]", "an auth attribute needs properties.rules, an array")
                }
                rules = String(decoding: bytes[list.range], as: UTF8.self)
            }
            entries.append("\(JSONWriter.quoted(model.key)):{\"rules\":\(rules)}")
        }
        let json = "{\"models\":{\(entries.joined(separator: ","))}}"
        do {
            return try RuleSet(json: Array(json.utf8))
        } catch {
            throw APIConfigurationError(path: "data.model_introspection", line: nil, column: nil, message: "its auth rules are invalid: \(error)")
        }
    }
}

extension APIEndpoint: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Where and how the API is called; the API key is left out.
    public var description: String {
        let modes = self.modes.map(\.rawValue).joined(separator: ", ")
        let key = self.apiKey == nil ? "" : ", apiKey: <redacted>"
        return "APIEndpoint(\(self.name), \(self.kind.rawValue) \(self.url.absoluteString), region: \(self.region), modes: [\(modes)]\(key))"
    }

    public var debugDescription: String { self.description }

    /// No children: `dump` and `Mirror(reflecting:)` would otherwise list the stored secrets that
    /// ``description`` leaves out.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
