import WIFFoundation

extension ConfigurationFileReader {
    /// An `identityPools[]` entry; a pool with the id of a default pool replaces it.
    ///
    /// ```json
    /// {"id": "us-east-1:…", "name": "app", "allowUnauthenticatedIdentities": true, "allowClassicFlow": false,
    ///  "providers": ["google", {"profile": "cognito-idp", "clientIds": ["…"]}],
    ///  "roles": {"authenticated": "arn:…", "unauthenticated": "arn:…"},
    ///  "roleMappings": {"cognito-idp": {"type": "Rules", "ambiguousRoleResolution": "AuthenticatedRole",
    ///    "rules": [{"claim": "cognito:groups", "matchType": "Equals", "value": "admin", "roleArn": "arn:…"}]}}}
    /// ```
    mutating func identityPool(_ node: ConfigurationJSON, path: String) -> IdentityPoolDefinition? {
        let keys = ["id", "name", "allowUnauthenticatedIdentities", "allowClassicFlow", "providers", "roles", "roleMappings"]
        guard let members = self.object(node, path: path, keys: keys),
            let id = self.requiredString(members, "id", path: path)
        else { return nil }
        func member(_ key: String) -> ConfigurationJSON? { members.first { $0.key == key }?.value }
        var pool = IdentityPoolDefinition(id: id, name: id, providers: [], roles: .init())
        if let node = member("name"), let name = self.string(node, path: "\(path).name") { pool.name = name }
        if let node = member("allowUnauthenticatedIdentities"), let flag = self.bool(node, path: "\(path).allowUnauthenticatedIdentities") {
            pool.allowUnauthenticatedIdentities = flag
        }
        if let node = member("allowClassicFlow"), let flag = self.bool(node, path: "\(path).allowClassicFlow") {
            pool.allowClassicFlow = flag
        }
        for (entryPath, entry) in self.entries(member("providers"), path: "\(path).providers") {
            if case .string(let profile) = entry.value {
                pool.providers.append(.init(profile: profile))
                continue
            }
            guard let fields = self.object(entry, path: entryPath, keys: ["profile", "clientIds"]),
                let profile = self.requiredString(fields, "profile", path: entryPath)
            else { continue }
            let clientIds = fields.first { $0.key == "clientIds" }.flatMap { self.strings($0.value, path: "\(entryPath).clientIds") }
            pool.providers.append(.init(profile: profile, clientIds: clientIds))
        }
        if let node = member("roles"), let fields = self.object(node, path: "\(path).roles", keys: ["authenticated", "unauthenticated"]) {
            for field in fields {
                let value = self.optionalString(field.value, path: "\(path).roles.\(field.key)")
                if field.key == "authenticated" { pool.roles.authenticated = value } else { pool.roles.unauthenticated = value }
            }
        }
        if let node = member("roleMappings") {
            guard case .object(let mappings) = node.value else {
                self.problems.append("\(path).roleMappings: must be an object of provider names, not \(node.typeName)")
                return pool
            }
            for (provider, value) in mappings {
                if let mapping = self.roleMapping(value, path: "\(path).roleMappings.\(provider)") { pool.roleMappings[provider] = mapping }
            }
        }
        return pool
    }

    private mutating func roleMapping(_ node: ConfigurationJSON, path: String) -> IdentityPoolDefinition.RoleMapping? {
        typealias Mapping = IdentityPoolDefinition.RoleMapping
        guard let fields = self.object(node, path: path, keys: ["type", "ambiguousRoleResolution", "rules"]) else { return nil }
        func field(_ key: String) -> ConfigurationJSON? { fields.first { $0.key == key }?.value }
        guard let kind = self.choice(field("type"), path: "\(path).type", Mapping.Kind.self),
            let resolution = self.choice(field("ambiguousRoleResolution"), path: "\(path).ambiguousRoleResolution", Mapping.AmbiguousRoleResolution.self)
        else { return nil }
        var rules: [IdentityPoolDefinition.Rule] = []
        for (rulePath, entry) in self.entries(field("rules"), path: "\(path).rules") {
            guard let ruleFields = self.object(entry, path: rulePath, keys: ["claim", "matchType", "value", "roleArn"]),
                let claim = self.requiredString(ruleFields, "claim", path: rulePath),
                let value = self.requiredString(ruleFields, "value", path: rulePath),
                let roleArn = self.requiredString(ruleFields, "roleArn", path: rulePath),
                let matchType = self.choice(
                    ruleFields.first { $0.key == "matchType" }?.value, path: "\(rulePath).matchType", IdentityPoolDefinition.Rule.MatchType.self)
            else { continue }
            rules.append(.init(claim: claim, matchType: matchType, value: value, roleArn: roleArn))
        }
        return Mapping(kind: kind, ambiguousRoleResolution: resolution, rules: rules)
    }

    /// A required string that must name one of an enumeration's cases.
    private mutating func choice<Choice: RawRepresentable & CaseIterable>(
        _ node: ConfigurationJSON?, path: String, _: Choice.Type
    ) -> Choice? where Choice.RawValue == String {
        let names = Choice.allCases.map(\.rawValue).joined(separator: ", ")
        guard let node else {
            self.problems.append("\(path): is required; one of \(names)")
            return nil
        }
        guard let text = self.string(node, path: path) else { return nil }
        guard let value = Choice(rawValue: text) else {
            self.problems.append("\(path): must be one of \(names), not '\(text)'")
            return nil
        }
        return value
    }
}

extension LocalConfiguration {
    /// The `identityPools` member of ``fileRepresentation()``, in the shape the reader takes.
    func identityPoolsFileField() -> String {
        let quoted = JSONWriter.quoted
        return "\"identityPools\": " + Self.array(self.identityPools.map { pool in
            var members = [
                "\"id\": \(quoted(pool.id))",
                "\"name\": \(quoted(pool.name))",
                "\"allowUnauthenticatedIdentities\": \(pool.allowUnauthenticatedIdentities)",
                "\"allowClassicFlow\": \(pool.allowClassicFlow)",
            ]
            let providers = pool.providers.map { provider in
                provider.clientIds.map { "{\"profile\": \(quoted(provider.profile)), \"clientIds\": \(Self.strings($0))}" } ?? quoted(provider.profile)
            }
            members.append("\"providers\": [\(providers.joined(separator: ", "))]")
            var roles: [String] = []
            if let arn = pool.roles.authenticated { roles.append("\"authenticated\": \(quoted(arn))") }
            if let arn = pool.roles.unauthenticated { roles.append("\"unauthenticated\": \(quoted(arn))") }
            members.append("\"roles\": {\(roles.joined(separator: ", "))}")
            let mappings = pool.roleMappings.sorted { $0.key < $1.key }.map { provider, mapping in
                let rules = mapping.rules.map { rule in
                    "{\"claim\": \(quoted(rule.claim)), \"matchType\": \(quoted(rule.matchType.rawValue)), "
                        + "\"value\": \(quoted(rule.value)), \"roleArn\": \(quoted(rule.roleArn))}"
                }
                return "\(quoted(provider)): {\"type\": \(quoted(mapping.kind.rawValue)), "
                    + "\"ambiguousRoleResolution\": \(quoted(mapping.ambiguousRoleResolution.rawValue)), \"rules\": [\(rules.joined(separator: ", "))]}"
            }
            members.append("\"roleMappings\": {\(mappings.joined(separator: ", "))}")
            return members
        })
    }
}
