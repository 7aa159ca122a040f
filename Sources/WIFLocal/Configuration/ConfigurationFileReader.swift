import Foundation
import PolicyEngine
import WIFFoundation

/// Reads the JSON of a configuration file into a configuration, merging it over the defaults, and collects
/// every problem with its JSON path.
struct ConfigurationFileReader {
    let bytes: [UInt8]
    let baseDirectory: String
    /// Every problem found so far, each starting with its JSON path.
    var problems: [String] = []

    init(bytes: [UInt8], baseDirectory: String) {
        self.bytes = bytes
        self.baseDirectory = baseDirectory
    }

    private static let topLevelKeys = [
        "defaults", "host", "port", "issuer", "accountId", "region", "allowedClockSkew", "tokenLeeway",
        "adminCredentials", "providers", "externalIssuers", "buckets", "roles", "oauth", "oauthClients",
        "connections", "identityPools", "apis",
    ]

    /// The configuration and how to name its elements in messages, or `nil` when the file's shape is wrong.
    mutating func read(_ root: ConfigurationJSON, dataDirectory: String) -> (LocalConfiguration, ConfigurationLabels)? {
        guard let members = self.object(root, path: "", keys: Self.topLevelKeys) else { return nil }
        func member(_ key: String) -> ConfigurationJSON? { members.first { $0.key == key }?.value }

        let useDefaults = member("defaults").flatMap { self.bool($0, path: "defaults") } ?? true
        var configuration = LocalConfiguration(dataDirectory: dataDirectory, providers: [], roles: [], buckets: [])
        if let node = member("host"), let value = self.string(node, path: "host") { configuration.host = value }
        if let node = member("port"), let value = self.int(node, path: "port") { configuration.port = value }
        if let node = member("issuer"), let value = self.string(node, path: "issuer") { configuration.issuer = value }
        if let node = member("accountId"), let value = self.string(node, path: "accountId") { configuration.accountId = value }
        if let node = member("region"), let value = self.string(node, path: "region") { configuration.region = value }
        if let node = member("allowedClockSkew"), let value = self.int(node, path: "allowedClockSkew") {
            configuration.allowedClockSkew = value
        }
        if let node = member("tokenLeeway"), let value = self.int(node, path: "tokenLeeway") { configuration.tokenLeeway = value }
        if let node = member("adminCredentials") { configuration.adminCredentials = self.adminCredentials(node) }
        self.readConnections(member("connections"), into: &configuration)

        let defaults = LocalConfiguration.default(dataDirectory: dataDirectory)
        var labels = ConfigurationLabels(providers: [], externalIssuers: [], roles: [], buckets: [])

        // Providers first: the default roles are built from them.
        var providers: [ProviderProfile] = useDefaults
            ? ProviderProfile.Kind.allCases.map { ProviderProfile.development($0, issuer: configuration.issuer) }
                + [ProviderProfile.cognitoUserPool()] : []
        labels.providers = providers.map { "the default provider '\($0.name)'" }
        // The personal-store roles are for the profiles of each kind; the user pool profile signs in through
        // the identity pool.
        let defaultProviderCount = useDefaults ? ProviderProfile.Kind.allCases.count : 0
        for (path, entry) in self.entries(member("providers"), path: "providers") {
            self.mergeProvider(entry, path: path, into: &providers, labels: &labels.providers)
        }
        configuration.providers = providers

        var buckets = useDefaults ? defaults.buckets : []
        labels.buckets = buckets.map { "the default bucket '\($0.name)'" }
        for (path, entry) in self.entries(member("buckets"), path: "buckets") {
            self.mergeBucket(entry, path: path, into: &buckets, labels: &labels.buckets)
        }
        configuration.buckets = buckets

        var roles = providers.prefix(defaultProviderCount).map {
            RoleDefinition.personalStore(
                for: $0, bucket: LocalConfiguration.defaultBucket, accountId: configuration.accountId, issuer: configuration.issuer)
        }
        if useDefaults {
            roles += RoleDefinition.identityPoolRoles(
                poolId: IdentityPoolDefinition.defaultPoolId, bucket: LocalConfiguration.defaultBucket,
                invokeResources: [LocalConfiguration.todoReadResource])
        }
        labels.roles = roles.map { "the default role '\($0.name)'" }
        for (path, entry) in self.entries(member("roles"), path: "roles") {
            self.mergeRole(entry, path: path, into: &roles, labels: &labels.roles)
        }
        configuration.roles = roles

        for (path, entry) in self.entries(member("externalIssuers"), path: "externalIssuers") {
            if let external = self.externalIssuer(entry, path: path) {
                configuration.externalIssuers.append(external)
                labels.externalIssuers.append(path)
            }
        }
        var pools = useDefaults ? [IdentityPoolDefinition.development(accountId: configuration.accountId, providers: providers)] : []
        labels.identityPools = pools.map { "the default identity pool '\($0.id)'" }
        for (path, entry) in self.entries(member("identityPools"), path: "identityPools") {
            guard let pool = self.identityPool(entry, path: path) else { continue }
            if let existing = pools.firstIndex(where: { $0.id == pool.id }) {
                pools[existing] = pool
                labels.identityPools[existing] = path
            } else {
                pools.append(pool)
                labels.identityPools.append(path)
            }
        }
        configuration.identityPools = pools
        var apis: [APIDefinition] = useDefaults ? [.todo()] : []
        labels.apis = apis.map { "the default API '\($0.name)'" }
        for (path, entry) in self.entries(member("apis"), path: "apis") {
            guard let api = self.api(entry, path: path) else { continue }
            if let existing = apis.firstIndex(where: { $0.name == api.name }) {
                apis[existing] = api
                labels.apis[existing] = path
            } else {
                apis.append(api)
                labels.apis.append(path)
            }
        }
        configuration.apis = apis
        self.readOAuth(member("oauth"), clients: member("oauthClients"), useDefaults: useDefaults, into: &configuration, labels: &labels)
        return (configuration, labels)
    }

    // MARK: Entries

    private mutating func mergeProvider(_ node: ConfigurationJSON, path: String, into providers: inout [ProviderProfile], labels: inout [String]) {
        guard let members = self.object(node, path: path, keys: ["name", "kind", "clientIds", "issuer"]),
            let name = self.requiredString(members, "name", path: path)
        else { return }
        func member(_ key: String) -> ConfigurationJSON? { members.first { $0.key == key }?.value }
        let existing = providers.firstIndex { $0.name == name }
        if let existing, labels[existing].hasPrefix("providers[") {
            self.problems.append("\(path).name: '\(name)' is already the name of \(labels[existing])")
            return
        }
        var kind: ProviderProfile.Kind? = existing.map { providers[$0].kind }
        if let node = member("kind"), let text = self.string(node, path: "\(path).kind") {
            kind = ProviderProfile.Kind(rawValue: text)
            if kind == nil {
                let kinds = ProviderProfile.Kind.allCases.map(\.rawValue).joined(separator: ", ")
                self.problems.append("\(path).kind: must be one of \(kinds), not '\(text)'")
                return
            }
        }
        guard let kind else {
            self.problems.append("\(path): a new provider needs a kind (facebook, amazon, google, cognito or oidc)")
            return
        }
        var clientIds = existing.map { providers[$0].clientIds }
        if let node = member("clientIds") {
            // A malformed list has been reported; the provider is left out.
            guard let values = self.strings(node, path: "\(path).clientIds") else { return }
            clientIds = values
        }
        guard let clientIds else {
            self.problems.append("\(path): a new provider needs clientIds, the audiences its tokens are for")
            return
        }
        var issuer: String?
        if let existing, providers[existing].kind == kind {
            issuer = providers[existing].issuer
        } else {
            issuer = kind == .oidc ? nil : ProviderProfile.standardIssuer(for: kind, developmentIssuer: "")
        }
        if let node = member("issuer") { issuer = self.optionalString(node, path: "\(path).issuer") }
        let profile = ProviderProfile(name: name, kind: kind, clientIds: clientIds, issuer: issuer)
        if let existing {
            providers[existing] = profile
            labels[existing] = path
        } else {
            providers.append(profile)
            labels.append(path)
        }
    }

    private mutating func mergeBucket(_ node: ConfigurationJSON, path: String, into buckets: inout [BucketDefinition], labels: inout [String]) {
        guard let members = self.object(node, path: path, keys: ["name", "policy"]),
            let name = self.requiredString(members, "name", path: path)
        else { return }
        let existing = buckets.firstIndex { $0.name == name }
        if let existing, labels[existing].hasPrefix("buckets[") {
            self.problems.append("\(path).name: '\(name)' is already the name of \(labels[existing])")
            return
        }
        var bucket = existing.map { buckets[$0] } ?? BucketDefinition(name: name)
        if let node = members.first(where: { $0.key == "policy" })?.value {
            bucket.policy = self.policy(node, path: "\(path).policy", kind: .resource, nullable: true)
        }
        if let existing {
            buckets[existing] = bucket
            labels[existing] = path
        } else {
            buckets.append(bucket)
            labels.append(path)
        }
    }

    private static let roleKeys = [
        "name", "path", "trustPolicy", "permissionPolicies", "maxSessionDuration", "provider", "bucket", "partitionTemplate",
    ]

    private mutating func mergeRole(_ node: ConfigurationJSON, path: String, into roles: inout [RoleDefinition], labels: inout [String]) {
        guard let members = self.object(node, path: path, keys: Self.roleKeys),
            let name = self.requiredString(members, "name", path: path)
        else { return }
        func member(_ key: String) -> ConfigurationJSON? { members.first { $0.key == key }?.value }
        let existing = roles.firstIndex { $0.name.lowercased() == name.lowercased() }
        if let existing, labels[existing].hasPrefix("roles[") {
            self.problems.append("\(path).name: '\(name)' is already the name of \(labels[existing])")
            return
        }
        var trustPolicy = existing.map { roles[$0].trustPolicy }
        if let node = member("trustPolicy") { trustPolicy = self.policy(node, path: "\(path).trustPolicy", kind: .trust, nullable: false) }
        guard let trustPolicy else {
            if member("trustPolicy") == nil {
                self.problems.append("\(path): a new role needs a trustPolicy that says who may assume it")
            }
            return
        }
        var role = existing.map { roles[$0] } ?? RoleDefinition(name: name, trustPolicy: trustPolicy, permissionPolicies: [])
        role.name = name
        role.trustPolicy = trustPolicy
        if let node = member("path"), let value = self.string(node, path: "\(path).path") { role.path = value }
        if let node = member("permissionPolicies") {
            guard case .array(let elements) = node.value else {
                self.problems.append("\(path).permissionPolicies: must be an array of policies, not \(node.typeName)")
                return
            }
            role.permissionPolicies = elements.enumerated().compactMap { index, element in
                self.policy(element, path: "\(path).permissionPolicies[\(index)]", kind: .identity, nullable: false)
            }
        }
        if let node = member("maxSessionDuration"), let value = self.int(node, path: "\(path).maxSessionDuration") {
            role.maxSessionDuration = value
        }
        if let node = member("provider") { role.provider = self.optionalString(node, path: "\(path).provider") }
        if let node = member("bucket") { role.bucket = self.optionalString(node, path: "\(path).bucket") }
        if let node = member("partitionTemplate") { role.partitionTemplate = self.optionalString(node, path: "\(path).partitionTemplate") }
        if let existing {
            roles[existing] = role
            labels[existing] = path
        } else {
            roles.append(role)
            labels.append(path)
        }
    }

    private mutating func externalIssuer(_ node: ConfigurationJSON, path: String) -> ExternalIssuer? {
        guard let members = self.object(node, path: path, keys: ["issuer", "jwksURL", "jwksFile", "clientIds"]),
            let issuer = self.requiredString(members, "issuer", path: path)
        else { return nil }
        func member(_ key: String) -> ConfigurationJSON? { members.first { $0.key == key }?.value }
        let jwksURL = member("jwksURL").flatMap { self.optionalString($0, path: "\(path).jwksURL") }
        let jwksFile = member("jwksFile").flatMap { self.optionalString($0, path: "\(path).jwksFile") }.map(self.resolve)
        guard let clientIdsNode = member("clientIds") else {
            self.problems.append("\(path): needs clientIds, the audiences accepted from the issuer")
            return nil
        }
        guard let clientIds = self.strings(clientIdsNode, path: "\(path).clientIds") else { return nil }
        return ExternalIssuer(issuer: issuer, jwksURL: jwksURL, jwksFile: jwksFile, clientIds: clientIds)
    }

    private mutating func adminCredentials(_ node: ConfigurationJSON) -> AdminCredentials? {
        if case .null = node.value { return nil }
        guard let members = self.object(node, path: "adminCredentials", keys: ["accessKeyId", "secretAccessKey"]),
            let id = self.requiredString(members, "accessKeyId", path: "adminCredentials"),
            let secret = self.requiredString(members, "secretAccessKey", path: "adminCredentials")
        else { return nil }
        return AdminCredentials(accessKeyId: id, secretAccessKey: secret)
    }

    // MARK: Policies

    /// A policy given inline (an object, taken exactly as written) or as a file name relative to the
    /// configuration file; validated as `kind`.
    private mutating func policy(_ node: ConfigurationJSON, path: String, kind: PolicyKind, nullable: Bool) -> String? {
        let text: String
        let origin: String?
        switch node.value {
        case .null where nullable:
            return nil
        case .object:
            text = String(decoding: self.bytes[node.range], as: UTF8.self)
            origin = nil
        case .string(let name):
            let file = self.resolve(name)
            guard let data = FileManager.default.contents(atPath: file) else {
                let reason = FileManager.default.fileExists(atPath: file) ? "it cannot be read" : "no such file"
                self.problems.append("\(path): cannot read the policy file \(name) (\(file)): \(reason)")
                return nil
            }
            text = String(decoding: data, as: UTF8.self)
            origin = name
        default:
            self.problems.append("\(path): must be a policy object or the name of a policy file, not \(node.typeName)")
            return nil
        }
        let errors = Policy.validate(text, kind: kind).errors
        guard errors.isEmpty else {
            for error in errors {
                self.problems.append("\(path): \(error.description)\(self.where(error, origin: origin, policyStart: node.range.lowerBound))")
            }
            return nil
        }
        return text
    }

    /// Where a policy diagnostic points: the line in the configuration file for an inline policy, the file
    /// and line for a policy file.
    private func `where`(_ diagnostic: PolicyDiagnostic, origin: String?, policyStart: Int) -> String {
        guard let line = diagnostic.line else { return origin.map { " (in \($0))" } ?? "" }
        if let origin { return " (in \(origin), line \(line))" }
        let start = ConfigurationJSON.location(of: policyStart, in: self.bytes)
        return " (line \(start.line + line - 1))"
    }

    func resolve(_ name: String) -> String {
        guard !name.hasPrefix("/") else { return name }
        // Absolute and without `.` segments: `./authorizer` beside a file named `stack.json` is
        // `/work/authorizer`, never `././authorizer`.
        return URL(fileURLWithPath: name, relativeTo: URL(fileURLWithPath: self.baseDirectory, isDirectory: true)).standardizedFileURL.path
    }

    // MARK: Values

    mutating func entries(_ node: ConfigurationJSON?, path: String) -> [(String, ConfigurationJSON)] {
        guard let node else { return [] }
        guard case .array(let elements) = node.value else {
            self.problems.append("\(path): must be an array, not \(node.typeName)")
            return []
        }
        return elements.enumerated().map { ("\(path)[\($0.offset)]", $0.element) }
    }

    mutating func object(_ node: ConfigurationJSON, path: String, keys: [String]) -> [(key: String, value: ConfigurationJSON)]? {
        guard case .object(let members) = node.value else {
            self.problems.append("\(path.isEmpty ? "the configuration" : path): must be an object, not \(node.typeName)")
            return nil
        }
        for member in members where !keys.contains(member.key) {
            let location = path.isEmpty ? member.key : "\(path).\(member.key)"
            self.problems.append("\(location): unknown key; expected one of \(keys.joined(separator: ", "))")
        }
        return members
    }

    mutating func requiredString(_ members: [(key: String, value: ConfigurationJSON)], _ key: String, path: String) -> String? {
        guard let node = members.first(where: { $0.key == key })?.value else {
            self.problems.append("\(path): needs \(key)")
            return nil
        }
        return self.string(node, path: "\(path).\(key)")
    }

    mutating func string(_ node: ConfigurationJSON, path: String) -> String? {
        guard case .string(let value) = node.value else {
            self.problems.append("\(path): must be a string, not \(node.typeName)")
            return nil
        }
        return value
    }

    mutating func optionalString(_ node: ConfigurationJSON, path: String) -> String? {
        if case .null = node.value { return nil }
        return self.string(node, path: path)
    }

    mutating func strings(_ node: ConfigurationJSON, path: String) -> [String]? {
        guard case .array(let elements) = node.value else {
            self.problems.append("\(path): must be an array of strings, not \(node.typeName)")
            return nil
        }
        var values: [String] = []
        for (index, element) in elements.enumerated() {
            guard let value = self.string(element, path: "\(path)[\(index)]") else { return nil }
            values.append(value)
        }
        return values
    }

    mutating func int(_ node: ConfigurationJSON, path: String) -> Int? {
        guard case .number(let text) = node.value else {
            self.problems.append("\(path): must be a whole number, not \(node.typeName)")
            return nil
        }
        guard let value = Int(text) else {
            self.problems.append("\(path): must be a whole number, not \(text)")
            return nil
        }
        return value
    }

    mutating func bool(_ node: ConfigurationJSON, path: String) -> Bool? {
        guard case .bool(let value) = node.value else {
            self.problems.append("\(path): must be true or false, not \(node.typeName)")
            return nil
        }
        return value
    }
}
