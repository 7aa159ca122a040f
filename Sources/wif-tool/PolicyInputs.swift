import Foundation
import PolicyEngine
import WIFFoundation

/// Reading policy files, principals, context keys and decisions for the `policy` commands.
enum PolicyInputs {
    /// The principal used when a simulation names none: a role session in the documentation account.
    static let defaultPrincipal = "arn:aws:sts::111122223333:assumed-role/simulated-role/simulated-session"

    /// The identity providers a trust policy names by host in `Principal.Federated`.
    static let builtInProviders: Set<String> = [
        "graph.facebook.com", "accounts.google.com", "www.amazon.com", "cognito-identity.amazonaws.com",
    ]

    // MARK: Files

    /// The most bytes read from one input file (a policy, a case file, a request body): a limit that
    /// stops a mistaken `/dev/zero` or an endless pipe, far above any real document.
    static let maximumInputSize = 64 << 20

    /// Reads a file, or standard input for `-`, failing with an I/O error that names the file.
    static func read(_ path: String) throws(CommandFailure) -> [UInt8] {
        do throws(FileContents.Failure) {
            if path == "-" { return try FileContents.readStandardInput(limit: Self.maximumInputSize) }
            return try FileContents.read(path, limit: Self.maximumInputSize)
        } catch {
            // The policy commands' own words for the two common cases.
            let reason = switch error.kind {
            case .missing: "no such file"
            case .folder: "it is a directory"
            default: error.reason
            }
            throw CommandFailure(status: .io, message: "cannot read \(path == "-" ? "standard input" : "'\(path)'"): \(reason)")
        }
    }

    /// Reads a JSON file (or standard input for `-`): its bytes, which messages point into, and its tree.
    /// - Throws: ``CommandFailure`` with status `io` when it cannot be read, and `usage`, with the line and
    ///   column, when it is not JSON.
    static func readJSON(_ path: String) throws(CommandFailure) -> (bytes: [UInt8], root: JSONNode) {
        let bytes = try Self.read(path)
        do {
            return (bytes, try JSONParser.parse(bytes))
        } catch {
            let location = JSONParser.location(of: error.offset, in: bytes)
            throw CommandFailure(status: .usage, message: "\(path):\(location.line):\(location.column): not valid JSON: \(error.message)")
        }
    }

    /// Parses a policy for a role in the evaluation, failing with a usage error that shows the first problem.
    /// - Parameters:
    ///   - bytes: The policy JSON.
    ///   - kind: The role the policy plays.
    ///   - name: The file name or JSON path shown in explanations, and in messages unless `source` is given.
    ///   - source: The file the bytes were taken from, when they are a part of it (an inline policy in a case
    ///     file), and the line and column where they start there, so messages point into that file.
    static func policy(
        _ bytes: [UInt8], kind: PolicyKind, name: String, source: (file: String, line: Int, column: Int)? = nil
    ) throws(CommandFailure) -> PolicyEngine.Policy {
        do {
            return try PolicyEngine.Policy.parse(bytes: bytes, kind: kind, name: name)
        } catch {
            let errors = error.errors
            guard let first = errors.first else {
                throw CommandFailure(status: .usage, message: "invalid \(self.describe(kind)) \(source?.file ?? name): \(error.reason)")
            }
            var location = source?.file ?? name
            if let line = first.line {
                let start = source.map { (line: $0.line, column: $0.column) } ?? (line: 1, column: 1)
                location += ":\(start.line + line - 1)"
                if let column = first.column { location += ":\(line == 1 ? start.column + column - 1 : column)" }
            }
            var message = "invalid \(self.describe(kind)) \(location): \(first.description)"
            if errors.count > 1 {
                message += " (and \(errors.count - 1) more error\(errors.count == 2 ? "" : "s"); 'wif-tool policy validate' lists them all)"
            }
            throw CommandFailure(status: .usage, message: message)
        }
    }

    /// Reads and parses a policy file.
    /// The providers a `--trust-policy` file trusts, for checking the role's permissions policies.
    static func trustedProviders(file path: String) throws(CommandFailure) -> Set<String> {
        let bytes = try self.read(path)
        do throws(PolicyEngineError) {
            return try PolicyEngine.Policy.parse(bytes: bytes, kind: .trust, name: path).trustedProviders
        } catch {
            let first = error.diagnostics.first.map { ": \($0.formatted(sourceName: path))" } ?? ""
            throw CommandFailure(status: .usage, message: "--trust-policy \(path) is not a valid trust policy\(first)")
        }
    }

    static func policy(file path: String, kind: PolicyKind) throws(CommandFailure) -> PolicyEngine.Policy {
        try self.policy(try self.read(path), kind: kind, name: path)
    }

    /// `identity policy`, `trust policy`, `permissions boundary`, …
    static func describe(_ kind: PolicyKind?) -> String {
        guard let kind else { return "policy" }
        switch kind {
        case .identity: return "identity policy"
        case .resource: return "resource policy"
        case .trust: return "trust policy"
        case .session: return "session policy"
        case .permissionsBoundary: return "permissions boundary"
        default: return "\(kind) policy"
        }
    }

    /// Guesses the role of a policy from its JSON: statements naming a `Principal` make a trust policy when
    /// every action is an `sts:AssumeRole…` action, a resource policy otherwise; anything else is an identity
    /// policy. `nil` when the text is not a JSON object with statements.
    static func inferKind(_ bytes: [UInt8]) -> PolicyKind? {
        guard let document = try? JSONParser.parse(bytes) else { return nil }
        let statements: [JSONNode]
        switch document.member("Statement")?.kind {
        case .array(let list)?: statements = list.filter { $0.objectMembers != nil }
        case .object?: statements = document.member("Statement").map { [$0] } ?? []
        default: return nil
        }
        guard statements.contains(where: { $0.member("Principal") != nil || $0.member("NotPrincipal") != nil }) else {
            return .identity
        }
        let actions = statements.flatMap { statement -> [String] in
            if let one = statement.member("Action")?.stringValue { return [one] }
            return statement.member("Action")?.arrayValue?.compactMap(\.stringValue) ?? []
        }
        let assumesRole = !actions.isEmpty && actions.allSatisfy { action in
            let lowered = action.lowercased()
            return lowered.hasPrefix("sts:assumerole") || lowered == "sts:tagsession" || lowered == "sts:setsourceidentity"
        }
        return assumesRole ? .trust : .resource
    }

    // MARK: Principals

    /// Parses the caller: `anonymous`; a 12-digit account or `arn:…:iam::ACCOUNT:root`; an IAM user, role
    /// session or federated user ARN; an identity provider (`graph.facebook.com`, an `oidc-provider` ARN)
    /// calling `AssumeRoleWithWebIdentity`; or a service principal such as `s3.amazonaws.com`.
    /// - Returns: The principal, or `nil` for `anonymous`.
    static func principal(_ text: String) throws(CommandFailure) -> RequestPrincipal? {
        if text.lowercased() == "anonymous" { return nil }
        if self.builtInProviders.contains(text) { return .webIdentity(provider: text) }
        do {
            if text.utf8.count == 12, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
                return try .root(accountId: text)
            }
            let parts = text.split(separator: ":", maxSplits: 5, omittingEmptySubsequences: false)
            if parts.count == 6, parts[0] == "arn" {
                let service = parts[2]
                let resource = parts[5]
                switch service {
                case "iam" where resource == "root":
                    return try .root(accountId: String(parts[4]), partition: String(parts[1]))
                case "iam" where resource.hasPrefix("user/"):
                    return try .iamUser(arn: text)
                case "iam" where resource.hasPrefix("oidc-provider/") || resource.hasPrefix("saml-provider/"):
                    return .webIdentity(provider: text)
                case "iam" where resource.hasPrefix("role/"):
                    let role = resource.dropFirst(5).split(separator: "/").last.map(String.init) ?? "ROLE"
                    throw CommandFailure(
                        status: .usage,
                        message: "a role does not make requests, its sessions do: use arn:\(parts[1]):sts::\(parts[4]):assumed-role/\(role)/SESSION")
                case "sts" where resource.hasPrefix("assumed-role/"):
                    return try .assumedRole(sessionArn: text)
                case "sts" where resource.hasPrefix("federated-user/"):
                    return try .federatedUser(arn: text)
                default:
                    break
                }
            } else if !text.contains(":"), text.hasSuffix(".amazonaws.com") {
                return .service(text)
            }
        } catch let error as PolicyEngineError {
            throw CommandFailure(status: .usage, message: "principal '\(text)': \(error.reason)")
        } catch let error as CommandFailure {
            throw error
        } catch {
            throw CommandFailure(status: .usage, message: "principal '\(text)': \(error)")
        }
        throw CommandFailure(
            status: .usage,
            message: """
                principal '\(text)' is not recognised; use an ARN (assumed-role session, IAM user, federated user, \
                root), a 12-digit account, an identity provider such as graph.facebook.com, a service such as \
                s3.amazonaws.com, or 'anonymous'
                """)
    }

    // MARK: Context

    /// Builds context keys from `key=value` arguments; a key given more than once (ignoring case) becomes a
    /// multi-valued key holding every value in order.
    static func context(arguments: [String]) throws(CommandFailure) -> [String: ContextValue] {
        var order: [String] = []
        var values: [String: (name: String, values: [String])] = [:]
        for argument in arguments {
            guard let equals = argument.firstIndex(of: "="), equals != argument.startIndex else {
                throw CommandFailure(status: .usage, message: "--context must look like KEY=VALUE, not '\(argument)'")
            }
            let key = String(argument[..<equals])
            let value = String(argument[argument.index(after: equals)...])
            let folded = key.lowercased()
            if values[folded] == nil {
                order.append(folded)
                values[folded] = (key, [])
            }
            values[folded]?.values.append(value)
        }
        var context: [String: ContextValue] = [:]
        for folded in order {
            guard let entry = values[folded] else { continue }
            context[entry.name] = entry.values.count == 1 ? ContextValue(entry.values[0]) : ContextValue(multiple: entry.values)
        }
        return context
    }

    /// Reads one context value from parsed JSON: a string (single-valued), an array of strings (a set, which
    /// may be empty), or a boolean or number (kept as written).
    /// - Parameters:
    ///   - node: The JSON value.
    ///   - path: Its JSON path, for messages.
    static func contextValue(_ node: JSONNode, path: String) throws(CommandFailure) -> ContextValue {
        if let elements = node.arrayValue {
            var strings: [String] = []
            for (index, element) in elements.enumerated() {
                guard let scalar = self.scalarText(element) else {
                    throw CommandFailure(status: .usage, message: "\(path)[\(index)]: a context value must be a string, not \(element.typeName)")
                }
                strings.append(scalar)
            }
            return ContextValue(multiple: strings)
        }
        if let scalar = self.scalarText(node) { return ContextValue(scalar) }
        throw CommandFailure(
            status: .usage, message: "\(path): a context value must be a string or an array of strings, not \(node.typeName)")
    }

    /// Parses `--context-json`: an object of key to string or array of strings.
    static func context(json text: String) throws(CommandFailure) -> [String: ContextValue] {
        guard let root = try? JSONParser.parse(Array(text.utf8)), case .object(let members) = root.kind else {
            throw CommandFailure(
                status: .usage, message: "--context-json must be a JSON object such as {\"aws:TagKeys\": [\"a\", \"b\"]}")
        }
        var context: [String: ContextValue] = [:]
        for member in members {
            context[member.key] = try self.contextValue(member.value, path: "--context-json.\(member.key)")
        }
        return context
    }

    /// The text of a string, number or boolean; `nil` for anything else.
    static func scalarText(_ node: JSONNode) -> String? {
        switch node.kind {
        case .string(let text), .number(let text): return text
        case .bool(let flag): return flag ? "true" : "false"
        case .object, .array, .null: return nil
        }
    }

    // MARK: Decisions

    /// `Allow`, `ExplicitDeny` or `ImplicitDeny`.
    static func name(_ outcome: Decision.Outcome) -> String {
        switch outcome {
        case .allow: return "Allow"
        case .explicitDeny: return "ExplicitDeny"
        case .implicitDeny: return "ImplicitDeny"
        }
    }

    /// Parses a decision name, ignoring case, dashes, underscores and spaces.
    static func outcome(_ text: String) -> Decision.Outcome? {
        let folded = text.lowercased().filter { $0 != "-" && $0 != "_" && $0 != " " }
        return Decision.Outcome.allCases.first { $0.rawValue.lowercased() == folded }
    }

    /// The accepted decision names, for messages.
    static let outcomeNames = "Allow, ExplicitDeny or ImplicitDeny"
}

/// Builds one JSON object with keys in the order they are added.
struct PolicyJSONObject {
    private var members: [String] = []

    mutating func add(_ key: String, _ value: String) {
        self.members.append("\(Self.quote(key)):\(Self.quote(value))")
    }

    mutating func add(_ key: String, _ value: Bool) {
        self.members.append("\(Self.quote(key)):\(value)")
    }

    mutating func add(_ key: String, _ value: Int) {
        self.members.append("\(Self.quote(key)):\(value)")
    }

    /// Adds a value that is already JSON text.
    mutating func add(_ key: String, json: String) {
        self.members.append("\(Self.quote(key)):\(json)")
    }

    var text: String { "{" + self.members.joined(separator: ",") + "}" }

    /// A JSON string literal.
    static func quote(_ text: String) -> String { JSONWriter.quoted(text) }

    /// A JSON array of already-encoded values.
    static func array(_ elements: [String]) -> String { "[" + elements.joined(separator: ",") + "]" }
}

extension StatementReference {
    /// The reference as a JSON object.
    var policyJSON: String {
        var object = PolicyJSONObject()
        object.add("policyName", self.policyName)
        object.add("policyKind", self.policyKind.description)
        object.add("index", self.index)
        if let sid { object.add("sid", sid) }
        return object.text
    }
}
