/// Finds risky but legal constructs in a parsed policy and reports them as warnings (and the few
/// cross-statement errors, such as duplicate `Sid`s in IAM policies).
struct PolicyLinter {
    var parser: PolicyParser
    let version: PolicyVersion?
    let statements: [Statement]
    let paths: [String]
    /// The providers the role's trust policy trusts, when the policy is checked against one.
    var trustedProviders: Set<String>?

    init(parser: PolicyParser, version: PolicyVersion?, statements: [Statement], paths: [String]) {
        self.parser = parser
        self.version = version
        self.statements = statements
        self.paths = paths
    }

    /// Keys that hold a set of values; plain operators on them are almost always a mistake.
    static let multiValuedKeys: Set<String> = [
        "aws:tagkeys", "aws:calledvia", "aws:principalorgpaths", "aws:principalservicenameslist",
        "aws:sourceorgpaths", "cognito-identity.amazonaws.com:amr",
    ]

    /// Keys that hold one value; set operators on them can make a policy overly permissive.
    static let singleValuedKeys: Set<String> = [
        "aws:sourceip", "aws:username", "aws:userid", "aws:principalarn", "aws:principalaccount",
        "aws:principaltype", "aws:currenttime", "aws:epochtime", "aws:securetransport", "aws:sourcevpc",
        "aws:sourcevpce", "aws:referer", "aws:useragent", "aws:requestedregion", "aws:multifactorauthpresent",
        "aws:federatedprovider", "aws:sourcearn", "aws:sourceaccount", "s3:prefix", "s3:delimiter", "s3:max-keys",
    ]

    static func isMultiValued(_ key: String) -> Bool {
        let lowered = key.lowercased()
        return self.multiValuedKeys.contains(lowered) || lowered.hasSuffix(":amr")
    }

    static func isSingleValued(_ key: String) -> Bool {
        let lowered = key.lowercased()
        if self.singleValuedKeys.contains(lowered) { return true }
        return [":sub", ":id", ":user_id", ":app_id", ":azp"].contains { lowered.hasSuffix($0) }
    }

    private func offset(_ path: String) -> Int {
        self.parser.offsets[path] ?? -1
    }

    mutating func warn(_ path: String, _ message: String, hint: String? = nil) {
        // One warning per element: a condition key with several values that share a problem names it once.
        if self.parser.diagnostics.contains(where: { $0.path == path && $0.message == message }) { return }
        self.parser.warning(path, self.offset(path), message, hint: hint)
    }

    mutating func run() {
        // A Version that is present but invalid is an error already, not a missing Version.
        if self.version == nil, self.parser.offsets["Version"] == nil {
            self.warn(
                "", "no Version element: the policy uses the 2008-10-17 language, where policy variables are literal text",
                hint: "add \"Version\": \"2012-10-17\"")
        }
        self.checkSids()
        for (statement, path) in zip(self.statements, self.paths) {
            self.lint(statement, path: path)
            self.lintWebIdentity(statement, path: path)
        }
        self.lintListingBesidePerUserObjects()
    }

    private mutating func checkSids() {
        var seen: Set<String> = []
        let iamPolicy = self.parser.kind.map { !$0.namesPrincipals } ?? false
        for (statement, path) in zip(self.statements, self.paths) {
            guard let sid = statement.sid else { continue }
            let sidPath = PolicyParser.member(path, "Sid")
            if !sid.isEmpty, !seen.insert(sid).inserted {
                if iamPolicy {
                    self.parser.error(sidPath, self.offset(sidPath), "duplicate Sid \"\(sid)\"; Sids must be unique within a policy")
                } else {
                    self.warn(sidPath, "duplicate Sid \"\(sid)\"; Sids should be unique within a policy")
                }
            }
            if iamPolicy, !sid.unicodeScalars.allSatisfy({ $0.value < 0x80 && ($0.properties.isAlphabetic || ("0"..."9").contains($0)) }) {
                self.warn(sidPath, "IAM accepts only letters and digits in a Sid")
            }
        }
    }

    private mutating func lint(_ statement: Statement, path: String) {
        let isAllow = statement.effect == .allow
        let actionPath = PolicyParser.member(path, {
            if case .notAction = statement.action { return "NotAction" }
            return "Action"
        }())
        let resourcePath = PolicyParser.member(path, {
            if case .notResource = statement.resource { return "NotResource" }
            return "Resource"
        }())

        if isAllow {
            switch statement.principal {
            case .notPrincipal:
                self.warn(
                    PolicyParser.member(path, "NotPrincipal"),
                    "NotPrincipal with Allow grants access to everyone not listed, including anonymous users")
            case .principal(let set) where set.isEveryone || set.aws.contains("*"):
                if !statement.conditions.contains(where: { $0.operator.family != .null }) {
                    self.warn(PolicyParser.member(path, "Principal"), "Principal \"*\" with Allow and no condition grants access to everyone, including anonymous users")
                }
            default:
                break
            }
            if case .notAction = statement.action {
                self.warn(actionPath, "NotAction with Allow grants every action not listed, including actions added later")
            }
            if case .notResource = statement.resource {
                self.warn(resourcePath, "NotResource with Allow grants access to every resource not listed")
            }
            if case .action(let actions) = statement.action, actions.contains("*"),
               case .resource(let resources) = statement.resource, resources.contains("*")
            {
                self.warn(actionPath, "Action \"*\" on Resource \"*\" grants full administrator access")
            } else if case .resource(let resources) = statement.resource,
                      let wide = resources.first(where: { Self.coversAllS3Objects($0) }),
                      let (objectAction, written) = Self.firstObjectAction(statement.action)
            {
                // The action as the statement writes it, and what it allows when that is a wildcard.
                let allowing = written.map { $0.lowercased() == objectAction.lowercased() ? objectAction : "Action \"\($0)\", which allows \(objectAction)," }
                    ?? "NotAction, which allows \(objectAction),"
                self.warn(
                    resourcePath,
                    "Resource \"\(wide)\" with \(allowing) covers every object in every bucket; scope it to a bucket and a per-user prefix",
                    hint: "for example arn:aws:s3:::BUCKET/${aws:userid}/*")
            }
        }

        // Conditions.
        var nullChecked: Set<String> = []
        for condition in statement.conditions where condition.operator.family == .null && condition.values.contains(where: { $0.lowercased() == "false" }) {
            nullChecked.insert(condition.key.lowercased())
        }
        for condition in statement.conditions {
            let operatorPath = PolicyParser.member(PolicyParser.member(path, "Condition"), condition.operator.name)
            let keyPath = PolicyParser.member(operatorPath, condition.key)
            if !condition.key.contains(":") {
                self.warn(keyPath, "condition keys are normally 'service:name' (such as aws:SourceIp)")
            }
            if let qualifier = condition.operator.qualifier {
                if Self.isSingleValued(condition.key) {
                    self.warn(
                        keyPath,
                        "\(condition.key) is single-valued; \(qualifier) is meant for multi-valued keys and can make the policy overly permissive")
                }
                if qualifier == .forAllValues, isAllow, !nullChecked.contains(condition.key.lowercased()) {
                    self.warn(
                        keyPath,
                        "ForAllValues also holds when \(condition.key) is absent or empty, so this Allow applies to requests without it",
                        hint: "add \"Null\": {\"\(condition.key)\": \"false\"} or use ForAnyValue")
                }
            } else if condition.operator.family != .null, Self.isMultiValued(condition.key) {
                self.warn(keyPath, "\(condition.key) is multi-valued; use ForAnyValue: or ForAllValues:")
            }
            if condition.operator.acceptsPolicyVariables, self.version == .v2012_10_17 {
                for value in condition.values {
                    self.warnMultiValuedVariables(in: value, path: keyPath)
                }
            }
        }
        if self.version == .v2012_10_17, let resource = statement.resource {
            for value in resource.patterns {
                self.warnMultiValuedVariables(in: value, path: resourcePath)
            }
        }
    }

    private mutating func warnMultiValuedVariables(in value: String, path: String) {
        guard value.containsVariableMarker else { return }
        let pattern = PatternCompiler.pattern(value, .init(wildcards: false, variables: true)).0
        for variable in pattern.variables where Self.isMultiValued(variable.key.name) {
            self.warn(path, "\(variable.written) names a multi-valued key, which cannot be a policy variable; it resolves only to its default")
        }
    }

    /// Whether a Resource pattern covers objects in every bucket (such as `*` or `arn:aws:s3:::*`).
    static func coversAllS3Objects(_ resource: String) -> Bool {
        guard resource.utf8.contains(UInt8(ascii: "*")) else { return false }
        let pattern = ARNPattern.compile(resource, variables: true).0
        return self.probeObjects.allSatisfy { pattern.matchesResource($0) }
    }

    /// Objects in two unrelated buckets: a Resource that matches both covers every bucket.
    static let probeObjects = ["arn:aws:s3:::probe-bucket-one/some/key", "arn:aws:s3:::other-probe-bucket/x"].map {
        AuthorizationRequest(action: "s3:GetObject", resource: $0, context: emptyContext)
    }

    static let emptyContext = RequestContext(principal: nil)

    static let objectActionKeys = objectActions.map { lowercasedASCII($0) }

    static let objectActions = [
        "s3:GetObject", "s3:PutObject", "s3:DeleteObject", "s3:GetObjectVersion", "s3:DeleteObjectVersion",
        "s3:PutObjectAcl", "s3:GetObjectAcl", "s3:RestoreObject",
    ]

    /// The first S3 object-level action the element covers, if any.
    /// The first S3 object action the element allows, and the pattern that allows it (`nil` for a
    /// `NotAction`, which allows what it does not name).
    static func firstObjectAction(_ element: ActionElement) -> (action: String, written: String?)? {
        let negated: Bool
        if case .notAction = element { negated = true } else { negated = false }
        // Only patterns that could name an S3 action matter.
        let candidates = element.patterns.filter { $0 == "*" || $0.lowercased().hasPrefix("s3") || $0.hasPrefix("*") }
        if candidates.isEmpty { return negated ? self.objectActions.first.map { ($0, nil) } : nil }
        let patterns = candidates.map { ($0, PatternCompiler.pattern($0, .init(wildcards: true, variables: false, foldCase: true)).0) }
        for (action, key) in zip(self.objectActions, self.objectActionKeys) {
            let matching = patterns.first { Glob.match($0.1, key, foldCase: false, context: self.emptyContext) }
            if negated, matching == nil { return (action, nil) }
            if !negated, let matching { return (action, matching.0) }
        }
        return nil
    }
}
