import WIFFoundation

extension StorageRules {
    /// What reading a storage rules file found: the rules, and every problem with its position.
    public struct ReadResult: Sendable {
        /// The rules that could be read; a path or rule with an error is left out.
        public var rules: StorageRules
        /// Errors first, then warnings.
        public var diagnostics: [RuleDiagnostic]

        /// Whether any diagnostic is an error.
        public var hasErrors: Bool { self.diagnostics.contains { $0.severity == .error } }
    }

    /// Reads a storage rules file, reporting every problem with its JSON path, line and column instead
    /// of stopping at the first. Paths follow Amplify Gen 2's rules: they do not start with `/`, end
    /// in `/*`, have no `//` and no other `*`; `{entity_id}` appears at most once, as the last part
    /// before `/*`; a path lies inside at most one other, and never inside an owner path's folders.
    /// - Parameter json: The file's bytes, UTF-8.
    /// - Returns: The rules and the diagnostics.
    public static func read(json: [UInt8]) -> ReadResult {
        var reader = StorageRulesReader(bytes: json)
        let rules = reader.read()
        return ReadResult(rules: rules, diagnostics: reader.sink.sorted)
    }

    /// Whether a JSON document is a storage rules file (an object with `paths` and no `models`) rather
    /// than a records rules file; `false` for text that is not a JSON object.
    public static func isStorageRules(json: [UInt8]) -> Bool {
        guard let root = try? JSONParser.parse(json), case .object = root.kind else { return false }
        return root.member("paths") != nil && root.member("models") == nil
    }

    /// Reads a storage rules file, refusing one with errors.
    /// - Parameter json: The file's bytes.
    /// - Throws: ``AccessRulesError`` with code `malformedJSON` or `invalidRules` and every diagnostic.
    public init(json: [UInt8]) throws(AccessRulesError) {
        let result = Self.read(json: json)
        let errors = result.diagnostics.filter { $0.severity == .error }
        if let first = errors.first {
            let code: AccessRulesError.Code = first.path.isEmpty && result.rules.paths.isEmpty ? .malformedJSON : .invalidRules
            let location = first.line.map { " at \($0):\(first.column ?? 1)" } ?? ""
            throw AccessRulesError(
                code: code, reason: "\(errors.count) error\(errors.count == 1 ? "" : "s"); the first\(location): \(first.description)",
                diagnostics: result.diagnostics)
        }
        self = result.rules
    }
}

/// Reads the JSON form of storage rules.
struct StorageRulesReader {
    static let topKeys = ["bucket", "paths"]
    static let ruleKeys = ["allow", "entity", "groups", "to"]
    static let subjects = ["guest", "authenticated", "entity", "groups"]
    static let actions = ["read", "get", "list", "write", "delete"]

    let bytes: [UInt8]
    var sink: DiagnosticSink

    init(bytes: [UInt8]) {
        self.bytes = bytes
        self.sink = DiagnosticSink(bytes: bytes)
    }

    mutating func read() -> StorageRules {
        let root: JSONNode
        do {
            root = try JSONParser.parse(self.bytes, options: JSONParser.Options(maximumDepth: 16, rejectsDuplicateKeys: false))
        } catch {
            self.sink.error("", error.message, at: error.offset)
            return StorageRules(bucket: "", paths: [])
        }
        guard case .object(let members) = root.kind else {
            self.sink.error("", "expected an object with bucket and paths, found \(root.typeName)", at: root.offset)
            return StorageRules(bucket: "", paths: [])
        }
        self.sink.unknownKeys(members, allowed: Self.topKeys, path: "")
        var bucket = ""
        if let node = root.member("bucket") {
            if let name = node.stringValue, Self.isBucketName(name) {
                bucket = name
            } else {
                self.sink.error(
                    "bucket", "the bucket must be an S3 bucket name: 3 to 63 lowercase letters, digits, '.' and '-', starting and ending with a letter or digit",
                    at: node.offset)
            }
        } else {
            self.sink.error("", "the rules name no bucket", hint: "add \"bucket\": \"my-bucket\"", at: root.offset)
        }
        guard let pathsNode = root.member("paths") else {
            self.sink.error("", "the rules have no paths", hint: "add \"paths\": {\"public/*\": [{\"allow\": \"guest\", \"to\": [\"read\"]}]}", at: root.offset)
            return StorageRules(bucket: bucket, paths: [])
        }
        guard case .object(let pathMembers) = pathsNode.kind else {
            self.sink.error("paths", "expected an object of paths, found \(pathsNode.typeName)", at: pathsNode.offset)
            return StorageRules(bucket: bucket, paths: [])
        }
        var paths: [StoragePath] = []
        var offsets: [String: Int] = [:]
        for member in pathMembers {
            let label = "paths[\(JSONWriter.quoted(member.key))]"
            if offsets[member.key] != nil {
                self.sink.error(label, "the path \(member.key) is given twice", at: member.keyOffset)
                continue
            }
            offsets[member.key] = member.keyOffset
            guard self.checkPattern(member.key, label: label, at: member.keyOffset) else { continue }
            let grants = self.readGrants(member.value, label: label, pattern: member.key)
            paths.append(StoragePath(pattern: member.key, grants: grants))
        }
        if pathMembers.isEmpty {
            self.sink.error("paths", "the rules have no paths, so they allow nothing", at: pathsNode.offset)
        }
        self.checkNesting(paths, offsets: offsets)
        return StorageRules(bucket: bucket, paths: paths)
    }

    // MARK: Paths

    /// Gen 2's rules for one path; `false` when the path cannot be used.
    mutating func checkPattern(_ pattern: String, label: String, at offset: Int) -> Bool {
        var problems: [String] = []
        if pattern.hasPrefix("/") { problems.append("must not start with '/'") }
        if !pattern.hasSuffix("/*") { problems.append("must end with '/*'") }
        if pattern.contains("//") { problems.append("must not contain '//'") }
        if pattern.dropLast().contains("*") { problems.append("may have '*' only at its end") }
        let token = StoragePath.entityToken
        let tokens = pattern.components(separatedBy: token).count - 1
        if tokens > 1 { problems.append("may hold \(token) only once") }
        if tokens == 1 && !(pattern == token + "/*" || pattern.hasSuffix("/" + token + "/*")) {
            problems.append("may hold \(token) only as the last part before '/*', as in 'private/\(token)/*'")
        }
        if pattern.replacingOccurrences(of: token, with: "").contains(where: { $0 == "{" || $0 == "}" }) {
            problems.append("may hold no '{' or '}' other than \(token)")
        }
        if pattern.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            problems.append("must not contain control characters")
        }
        if pattern.utf8.count > 1024 { problems.append("must be at most 1,024 bytes") }
        guard problems.isEmpty else {
            self.sink.error(label, "the path '\(pattern)' " + problems.joined(separator: "; "), at: offset)
            return false
        }
        return true
    }

    /// A path lies inside at most one other path, and never inside an owner path's folders.
    mutating func checkNesting(_ paths: [StoragePath], offsets: [String: Int]) {
        for inner in paths {
            let label = "paths[\(JSONWriter.quoted(inner.pattern))]"
            let offset = offsets[inner.pattern] ?? 0
            let outers = paths.filter { outer in
                outer.pattern != inner.pattern && inner.beforeEntity.utf8.starts(with: outer.beforeEntity.utf8)
                    && (outer.beforeEntity != inner.beforeEntity || inner.hasEntity)
            }
            for outer in outers where outer.hasEntity {
                self.sink.error(
                    label, "the path '\(inner.pattern)' lies inside the owner folders of '\(outer.pattern)'",
                    hint: "an owner path cannot hold other paths; move one of them", at: offset)
            }
            if outers.filter({ !$0.hasEntity }).count > 1 {
                let names = outers.map { "'\($0.pattern)'" }.joined(separator: " and ")
                self.sink.error(label, "the path '\(inner.pattern)' lies inside both \(names); a path may lie inside one other only", at: offset)
            }
        }
    }

    // MARK: Rules

    mutating func readGrants(_ node: JSONNode, label: String, pattern: String) -> [StorageGrant] {
        guard case .array(let elements) = node.kind else {
            self.sink.error(label, "expected an array of rules, found \(node.typeName)", at: node.offset)
            return []
        }
        var grants: [StorageGrant] = []
        var seen: [String: Int] = [:]
        for (index, element) in elements.enumerated() {
            let path = "\(label)[\(index)]"
            guard let grant = self.readGrant(element, path: path, pattern: pattern) else { continue }
            let key: String
            switch grant.subject {
            case .guest: key = "guest"
            case .authenticated: key = "authenticated"
            case .entity: key = "entity"
            case .groups(let names): key = "groups " + names.sorted().joined(separator: ",")
            }
            if let earlier = seen[key] {
                self.sink.error(
                    path, "\(label) has a second rule for \(StorageRules.describe(grant.subject)) (the first is [\(earlier)])",
                    hint: "give all their actions in one rule", at: element.offset)
                continue
            }
            seen[key] = index
            grants.append(grant)
        }
        if elements.isEmpty {
            self.sink.warning(label, "the path has no rules, so it allows nothing", at: node.offset)
        }
        return grants
    }

    mutating func readGrant(_ node: JSONNode, path: String, pattern: String) -> StorageGrant? {
        guard case .object(let members) = node.kind else {
            self.sink.error(path, "expected a rule object such as {\"allow\": \"guest\", \"to\": [\"read\"]}, found \(node.typeName)", at: node.offset)
            return nil
        }
        self.sink.unknownKeys(members, allowed: Self.ruleKeys, path: path)
        guard let allowNode = node.member("allow") else {
            self.sink.error(path, "the rule has no allow", hint: "allow is one of \(Self.subjects.joined(separator: ", "))", at: node.offset)
            return nil
        }
        guard let allow = allowNode.stringValue, Self.subjects.contains(allow) else {
            let hint = allowNode.stringValue.flatMap { closestMatch($0, in: Self.subjects) }.map { "did you mean \($0)?" }
            self.sink.error("\(path).allow", "allow must be one of \(Self.subjects.joined(separator: ", "))", hint: hint, at: allowNode.offset)
            return nil
        }
        var failed = false
        let subject: StorageGrant.Subject
        switch allow {
        case "guest": subject = .guest
        case "authenticated": subject = .authenticated
        case "entity":
            subject = .entity
            if let entity = node.member("entity"), entity.stringValue != "identity" {
                self.sink.error("\(path).entity", "the only entity is \"identity\" (the identity pool's identity id)", at: entity.offset)
                failed = true
            }
            if !pattern.contains(StoragePath.entityToken) {
                self.sink.error(
                    "\(path).allow", "an entity rule needs a path with \(StoragePath.entityToken), such as 'private/\(StoragePath.entityToken)/*'",
                    at: allowNode.offset)
                failed = true
            }
        default:
            guard let groupsNode = node.member("groups"), case .array(let names) = groupsNode.kind, !names.isEmpty else {
                self.sink.error(path, "a groups rule needs \"groups\": a non-empty list of group names", at: node.offset)
                return nil
            }
            var groups: [String] = []
            for (index, name) in names.enumerated() {
                guard let text = name.stringValue, Self.isGroupName(text) else {
                    self.sink.error(
                        "\(path).groups[\(index)]", "a group name is 1 to 128 letters, digits and _+=,.@- (a group's role is named after it)",
                        at: name.offset)
                    failed = true
                    continue
                }
                groups.append(text)
            }
            subject = .groups(groups)
        }
        if allow != "groups", let groups = node.member("groups") {
            self.sink.error("\(path).groups", "groups goes with \"allow\": \"groups\"", at: groups.offset)
            failed = true
        }
        if allow != "entity", let entity = node.member("entity") {
            self.sink.error("\(path).entity", "entity goes with \"allow\": \"entity\"", at: entity.offset)
            failed = true
        }
        guard let toNode = node.member("to") else {
            self.sink.error(path, "the rule has no \"to\": the actions it allows", hint: "such as \"to\": [\"read\"]", at: node.offset)
            return nil
        }
        guard case .array(let names) = toNode.kind, !names.isEmpty else {
            self.sink.error("\(path).to", "\"to\" is a non-empty list of \(Self.actions.joined(separator: ", "))", at: toNode.offset)
            return nil
        }
        var actions: Set<StorageAction> = []
        for (index, name) in names.enumerated() {
            switch name.stringValue {
            case "read": actions.formUnion([.get, .list])
            case let text? where StorageAction(rawValue: text) != nil: actions.insert(StorageAction(rawValue: text) ?? .get)
            default:
                let hint = name.stringValue.flatMap { closestMatch($0, in: Self.actions) }.map { "did you mean \($0)?" }
                self.sink.error("\(path).to[\(index)]", "an action is one of \(Self.actions.joined(separator: ", "))", hint: hint, at: name.offset)
                failed = true
            }
        }
        return failed ? nil : StorageGrant(subject, actions)
    }

    static func isGroupName(_ name: String) -> Bool {
        guard (1...128).contains(name.utf8.count), name != ".", name != ".." else { return false }
        return name.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "_+=,.@-".unicodeScalars.contains(scalar))
        }
    }

    static func isBucketName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (3...63).contains(bytes.count) else { return false }
        let isAlphanumeric = { (byte: UInt8) in (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
        guard let first = bytes.first, let last = bytes.last, isAlphanumeric(first), isAlphanumeric(last) else { return false }
        return bytes.allSatisfy { isAlphanumeric($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") }
    }
}
