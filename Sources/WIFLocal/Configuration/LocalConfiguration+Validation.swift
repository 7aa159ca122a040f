import PolicyEngine

extension LocalConfiguration {
    /// Checks that the configuration can run: names are unique and well formed, every role's provider and
    /// bucket exist, partition templates contain `{id}`, durations and bounds are in range, and every
    /// policy parses and validates with PolicyEngine — so a bad policy is refused at start, not at the
    /// first request.
    /// - Throws: ``LocalStackError`` listing every problem, each with its path (`roles[2].trustPolicy:
    ///   Statement[0].Effect: …`).
    public func validate() throws(LocalStackError) {
        let problems = self.problems(labels: ConfigurationLabels(self), checkingPolicies: true)
        guard problems.isEmpty else {
            throw LocalStackError(Self.describe(problems, in: "the configuration"))
        }
    }

    /// One message for a list of problems: the problem itself when there is one, a count and one line per
    /// problem otherwise.
    static func describe(_ problems: [String], in source: String) -> String {
        if problems.count == 1 { return "\(source): \(problems[0])" }
        return "\(source) has \(problems.count) problems:\n" + problems.map { "  " + $0 }.joined(separator: "\n")
    }

    /// Every problem of the configuration, each starting with the path of the element.
    /// - Parameters:
    ///   - labels: How to name each provider, issuer, role and bucket in messages (their index in the
    ///     arrays, or where a configuration file defined them).
    ///   - checkingPolicies: Whether to parse the policies; a configuration file checks them as it reads them.
    func problems(labels: ConfigurationLabels, checkingPolicies: Bool) -> [String] {
        var problems: [String] = []
        self.checkScalars(into: &problems)
        self.checkProviders(labels: labels, into: &problems)
        self.checkBuckets(labels: labels, checkingPolicies: checkingPolicies, into: &problems)
        self.checkRoles(labels: labels, checkingPolicies: checkingPolicies, into: &problems)
        self.checkOAuth(labels: labels, into: &problems)
        self.checkConnections(into: &problems)
        self.checkIdentityPools(labels: labels, into: &problems)
        self.checkAPIs(labels: labels, into: &problems)
        return problems
    }

    private func checkScalars(into problems: inout [String]) {
        if self.host.isEmpty || self.host.contains(where: \.isWhitespace) {
            problems.append("host: must be a host name or address, not '\(self.host)'")
        }
        if !(0...65535).contains(self.port) {
            problems.append("port: must be 0 (any free port) to 65535, not \(self.port)")
        }
        if let reason = Self.issuerProblem(self.issuer) {
            problems.append("issuer: \(reason)")
        }
        if self.accountId.utf8.count != 12 || !self.accountId.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            problems.append("accountId: must be 12 digits, not '\(self.accountId)'")
        }
        if self.region.isEmpty || !self.region.utf8.allSatisfy({ Self.isLowerAlphanumeric($0) || $0 == UInt8(ascii: "-") }) {
            problems.append("region: must be lower-case letters, digits and '-' (us-east-1), not '\(self.region)'")
        }
        if !(0...86_400).contains(self.allowedClockSkew) {
            problems.append("allowedClockSkew: must be 0 to 86400 seconds, not \(self.allowedClockSkew)")
        }
        if !(0...3600).contains(self.tokenLeeway) {
            problems.append("tokenLeeway: must be 0 to 3600 seconds, not \(self.tokenLeeway)")
        }
        if let admin = self.adminCredentials {
            let id = admin.accessKeyId
            if !(16...128).contains(id.utf8.count) || !id.utf8.allSatisfy(Self.isAlphanumeric) {
                problems.append("adminCredentials.accessKeyId: must be 16 to 128 letters and digits")
            } else if id.hasPrefix("ASIA") {
                problems.append("adminCredentials.accessKeyId: must not start with ASIA, the prefix of session keys")
            }
            if admin.secretAccessKey.utf8.count < 8 {
                problems.append("adminCredentials.secretAccessKey: must be at least 8 characters long")
            }
        }
    }

    private func checkProviders(labels: ConfigurationLabels, into problems: inout [String]) {
        var names: [String: String] = [:]
        var issuers: [String: String] = [:]
        for (index, provider) in self.providers.enumerated() {
            let label = labels.provider(index)
            if !Self.isFolderName(provider.name) {
                problems.append("\(label).name: must be 1 to 64 letters, digits, '.', '_' or '-', not '\(provider.name)'")
            } else if let first = names[provider.name] {
                problems.append("\(label).name: '\(provider.name)' is already the name of \(first)")
            } else {
                names[provider.name] = label
            }
            Self.checkClientIds(provider.clientIds, label: label, into: &problems)
            switch provider.kind {
            case .facebook, .amazon:
                if provider.issuer != nil {
                    problems.append("\(label).issuer: a \(provider.kind.rawValue) profile takes opaque access tokens and has no issuer")
                }
            case .google, .cognito, .oidc:
                let issuer = provider.issuer ?? self.issuer
                if issuer == self.issuer, Self.issuerProblem(issuer) != nil {
                    // The stack's own issuer, already reported under `issuer`.
                } else if let reason = Self.issuerProblem(issuer) {
                    problems.append("\(label).issuer: \(reason)")
                } else if let first = issuers[issuer] {
                    problems.append("\(label).issuer: '\(issuer)' is already the issuer of \(first)")
                } else {
                    issuers[issuer] = label
                }
            }
        }
        for (index, external) in self.externalIssuers.enumerated() {
            let label = labels.externalIssuer(index)
            if let reason = Self.issuerProblem(external.issuer) {
                problems.append("\(label).issuer: \(reason)")
            } else if let first = issuers[external.issuer] {
                problems.append("\(label).issuer: '\(external.issuer)' is already the issuer of \(first)")
            } else {
                issuers[external.issuer] = label
            }
            switch (external.jwksURL, external.jwksFile) {
            case (nil, nil):
                problems.append("\(label): needs jwksURL or jwksFile to verify the issuer's tokens")
            case (.some, .some):
                problems.append("\(label): give jwksURL or jwksFile, not both")
            case (.some(let url), nil):
                if !(url.hasPrefix("https://") || url.hasPrefix("http://")) || url.contains(where: \.isWhitespace) {
                    problems.append("\(label).jwksURL: must be an http or https URL, not '\(url)'")
                }
            case (nil, .some(let file)):
                if file.isEmpty { problems.append("\(label).jwksFile: must not be empty") }
            }
            Self.checkClientIds(external.clientIds, label: label, into: &problems)
        }
    }

    private func checkBuckets(labels: ConfigurationLabels, checkingPolicies: Bool, into problems: inout [String]) {
        var names: [String: String] = [:]
        for (index, bucket) in self.buckets.enumerated() {
            let label = labels.bucket(index)
            if let reason = Self.bucketNameProblem(bucket.name) {
                problems.append("\(label).name: \(reason)")
            } else if let first = names[bucket.name] {
                problems.append("\(label).name: '\(bucket.name)' is already the name of \(first)")
            } else {
                names[bucket.name] = label
            }
            if checkingPolicies, let policy = bucket.policy {
                problems += Self.policyProblems(policy, kind: .resource, label: "\(label).policy")
            }
        }
    }

    private func checkRoles(labels: ConfigurationLabels, checkingPolicies: Bool, into problems: inout [String]) {
        var names: [String: String] = [:]
        for (index, role) in self.roles.enumerated() {
            let label = labels.role(index)
            if !Self.isRoleName(role.name) {
                problems.append("\(label).name: must be 1 to 64 letters, digits and '+=,.@_-', not '\(role.name)'")
            } else if let first = names[role.name.lowercased()] {
                // IAM role names are unique without regard to case.
                problems.append("\(label).name: '\(role.name)' is already the name of \(first)")
            } else {
                names[role.name.lowercased()] = label
            }
            if !Self.isRolePath(role.path) {
                problems.append("\(label).path: must start and end with '/' and hold printable ASCII only (/ or /apps/), not '\(role.path)'")
            }
            if !(3600...43_200).contains(role.maxSessionDuration) {
                problems.append("\(label).maxSessionDuration: must be 3600 to 43200 seconds, not \(role.maxSessionDuration)")
            }
            if let provider = role.provider, self.provider(named: provider) == nil {
                problems.append("\(label).provider: no provider is named '\(provider)'")
            }
            if let bucket = role.bucket, !self.buckets.contains(where: { $0.name == bucket }) {
                problems.append("\(label).bucket: no bucket is named '\(bucket)'")
            }
            if let template = role.partitionTemplate {
                if !template.contains("{id}") {
                    problems.append("\(label).partitionTemplate: must contain {id}, where the user id goes, not '\(template)'")
                } else if template.hasPrefix("/") {
                    problems.append("\(label).partitionTemplate: must not start with '/' (object keys have no leading slash)")
                } else if !template.hasSuffix("/") {
                    problems.append("\(label).partitionTemplate: must end with '/' so one user's prefix never starts another's")
                }
            }
            if checkingPolicies {
                problems += Self.policyProblems(role.trustPolicy, kind: .trust, label: "\(label).trustPolicy")
                for (policyIndex, policy) in role.permissionPolicies.enumerated() {
                    problems += Self.policyProblems(policy, kind: .identity, label: "\(label).permissionPolicies[\(policyIndex)]")
                }
            }
        }
    }

    /// The errors of a policy, each as `label: path: message`.
    static func policyProblems(_ text: String, kind: PolicyKind, label: String) -> [String] {
        Policy.validate(text, kind: kind).errors.map { "\(label): \($0.description)" }
    }

    private static func checkClientIds(_ clientIds: [String], label: String, into problems: inout [String]) {
        if clientIds.isEmpty {
            problems.append("\(label).clientIds: must name at least one client id")
        }
        for (index, clientId) in clientIds.enumerated() where clientId.isEmpty || clientId.utf8.count > 255 {
            problems.append("\(label).clientIds[\(index)]: must be 1 to 255 characters long")
        }
    }

    static func issuerProblem(_ issuer: String) -> String? {
        guard issuer.hasPrefix("https://") || issuer.hasPrefix("http://") else {
            return "must be an https URL such as https://wif.localhost, not '\(issuer)'"
        }
        let host = ProviderProfile.keyPrefix(ofIssuer: issuer)
        if host.isEmpty || host.hasPrefix("/") {
            return "must name a host after the scheme, not '\(issuer)'"
        }
        if issuer.contains(where: { $0.isWhitespace || $0 == "?" || $0 == "#" }) {
            return "must have no spaces, query or fragment, not '\(issuer)'"
        }
        return nil
    }

    static func bucketNameProblem(_ name: String) -> String? {
        let bytes = Array(name.utf8)
        guard (3...63).contains(bytes.count) else {
            return "must be 3 to 63 characters long, not \(bytes.count) ('\(name)')"
        }
        guard bytes.allSatisfy({ Self.isLowerAlphanumeric($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") }) else {
            return "must be lower-case letters, digits, '.' and '-', not '\(name)'"
        }
        guard let first = bytes.first, let last = bytes.last, Self.isLowerAlphanumeric(first), Self.isLowerAlphanumeric(last) else {
            return "must start and end with a letter or digit, not '\(name)'"
        }
        if name.contains("..") {
            return "must not contain two adjacent periods, not '\(name)'"
        }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count == 4, parts.allSatisfy({ UInt8($0) != nil }) {
            return "must not look like an IP address, not '\(name)'"
        }
        return nil
    }

    static func isRoleName(_ name: String) -> Bool {
        (1...64).contains(name.utf8.count)
            && name.utf8.allSatisfy { Self.isAlphanumeric($0) || "+=,.@_-".utf8.contains($0) }
    }

    static func isRolePath(_ path: String) -> Bool {
        (1...512).contains(path.utf8.count) && path.hasPrefix("/") && path.hasSuffix("/")
            && path.utf8.allSatisfy { $0 >= 0x21 && $0 <= 0x7E }
    }

    static func isFolderName(_ name: String) -> Bool {
        (1...64).contains(name.utf8.count) && name != "." && name != ".."
            && name.utf8.allSatisfy { Self.isAlphanumeric($0) || "._-".utf8.contains($0) }
    }

    private static func isLowerAlphanumeric(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        Self.isLowerAlphanumeric(byte) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
    }
}

/// How configuration problems name the element they are about: by index (`roles[2]`), or by where a
/// configuration file defined the element.
struct ConfigurationLabels: Sendable {
    var providers: [String]
    var externalIssuers: [String]
    var roles: [String]
    var buckets: [String]
    var oauthClients: [String] = []
    var identityPools: [String] = []
    var apis: [String] = []

    init(_ configuration: LocalConfiguration) {
        self.providers = configuration.providers.indices.map { "providers[\($0)]" }
        self.externalIssuers = configuration.externalIssuers.indices.map { "externalIssuers[\($0)]" }
        self.roles = configuration.roles.indices.map { "roles[\($0)]" }
        self.buckets = configuration.buckets.indices.map { "buckets[\($0)]" }
        self.oauthClients = configuration.oauthClients.indices.map { "oauthClients[\($0)]" }
        self.identityPools = configuration.identityPools.indices.map { "identityPools[\($0)]" }
        self.apis = configuration.apis.indices.map { "apis[\($0)]" }
    }

    init(providers: [String], externalIssuers: [String], roles: [String], buckets: [String]) {
        self.providers = providers
        self.externalIssuers = externalIssuers
        self.roles = roles
        self.buckets = buckets
    }

    func provider(_ index: Int) -> String { Self.label(self.providers, index, "providers") }
    func externalIssuer(_ index: Int) -> String { Self.label(self.externalIssuers, index, "externalIssuers") }
    func role(_ index: Int) -> String { Self.label(self.roles, index, "roles") }
    func bucket(_ index: Int) -> String { Self.label(self.buckets, index, "buckets") }
    func oauthClient(_ index: Int) -> String { Self.label(self.oauthClients, index, "oauthClients") }
    func identityPool(_ index: Int) -> String { Self.label(self.identityPools, index, "identityPools") }
    func api(_ index: Int) -> String { Self.label(self.apis, index, "apis") }

    private static func label(_ labels: [String], _ index: Int, _ array: String) -> String {
        labels.indices.contains(index) ? labels[index] : "\(array)[\(index)]"
    }
}
