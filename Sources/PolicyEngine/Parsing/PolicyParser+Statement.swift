import WIFFoundation

extension PolicyParser {
    static let statementElements = [
        "Sid", "Effect", "Principal", "NotPrincipal", "Action", "NotAction", "Resource", "NotResource", "Condition",
    ]

    mutating func parseStatement(_ node: JSONNode, path: String, index: Int) -> (Statement, CompiledStatement)? {
        guard case .object(let members) = node.kind else { return nil }
        let errorsBefore = self.errorCount
        self.offsets[path] = node.offset
        self.checkDuplicates(members, path: path)
        var nodes: [String: (JSONNode, Int)] = [:]
        for member in members {
            let memberPath = Self.member(path, member.key)
            self.offsets[memberPath] = member.keyOffset
            if Self.statementElements.contains(member.key) {
                if nodes[member.key] == nil { nodes[member.key] = (member.value, member.keyOffset) }
            } else {
                let hint = closestMatch(member.key, in: Self.statementElements).map { "did you mean '\($0)'?" }
                self.error(memberPath, member.keyOffset, "unknown statement element", hint: hint)
            }
        }

        var sid: String?
        if let (sidNode, _) = nodes["Sid"] {
            if let text = sidNode.stringValue { sid = text } else {
                self.error(Self.member(path, "Sid"), sidNode.offset, "Sid must be a string, not \(sidNode.typeName)")
            }
        }

        var effect: Effect?
        if let (effectNode, _) = nodes["Effect"] {
            if let text = effectNode.stringValue, let value = Effect(rawValue: text) {
                effect = value
            } else {
                let hint = effectNode.stringValue.flatMap { closestMatch($0, in: ["Allow", "Deny"]) }.map { "did you mean '\($0)'?" }
                self.error(Self.member(path, "Effect"), effectNode.offset, "Effect must be \"Allow\" or \"Deny\"", hint: hint)
            }
        } else {
            self.error(path, node.offset, "missing Effect")
        }

        // Principal / NotPrincipal
        var principalElement: PrincipalElement?
        var compiledPrincipal: CompiledPrincipal?
        let principalEntry = nodes["Principal"]
        let notPrincipalEntry = nodes["NotPrincipal"]
        if principalEntry != nil, let (_, offset) = notPrincipalEntry {
            self.error(Self.member(path, "NotPrincipal"), offset, "a statement cannot have both Principal and NotPrincipal")
        } else if let (principalNode, offset) = principalEntry ?? notPrincipalEntry {
            let negated = principalEntry == nil
            let name = negated ? "NotPrincipal" : "Principal"
            let elementPath = Self.member(path, name)
            if let kind = self.kind, !kind.namesPrincipals {
                self.error(elementPath, offset, "\(name) is not allowed in \(kind.pluralName); it belongs in resource and trust policies")
            } else if negated, self.kind == .trust {
                self.error(elementPath, offset, "NotPrincipal cannot be used in a role trust policy")
            }
            if let set = self.parsePrincipal(principalNode, path: elementPath, name: name) {
                principalElement = negated ? .notPrincipal(set) : .principal(set)
                compiledPrincipal = CompiledPrincipal(set, negated: negated)
            }
        } else if let kind = self.kind, kind.namesPrincipals {
            self.error(path, node.offset, "missing Principal or NotPrincipal (required in \(kind.pluralName))")
        }

        // Action / NotAction
        var actionElement: ActionElement?
        var actionPatterns: [Pattern] = []
        let actionEntry = nodes["Action"]
        let notActionEntry = nodes["NotAction"]
        if actionEntry != nil, let (_, offset) = notActionEntry {
            self.error(Self.member(path, "NotAction"), offset, "a statement cannot have both Action and NotAction")
        } else if let (actionNode, _) = actionEntry ?? notActionEntry {
            let negated = actionEntry == nil
            let name = negated ? "NotAction" : "Action"
            if let (values, patterns) = self.parseActions(actionNode, path: Self.member(path, name), name: name) {
                actionElement = negated ? .notAction(values) : .action(values)
                actionPatterns = patterns
            }
        } else {
            self.error(path, node.offset, "missing Action or NotAction")
        }

        // Resource / NotResource
        var resourceElement: ResourceElement?
        var resourcePatterns: [ARNPattern]?
        let resourceEntry = nodes["Resource"]
        let notResourceEntry = nodes["NotResource"]
        if resourceEntry != nil, let (_, offset) = notResourceEntry {
            self.error(Self.member(path, "NotResource"), offset, "a statement cannot have both Resource and NotResource")
        } else if let (resourceNode, _) = resourceEntry ?? notResourceEntry {
            let negated = resourceEntry == nil
            let name = negated ? "NotResource" : "Resource"
            if let (values, patterns) = self.parseResources(resourceNode, path: Self.member(path, name), name: name) {
                resourceElement = negated ? .notResource(values) : .resource(values)
                resourcePatterns = patterns
            }
        } else {
            // Only role trust policies may omit Resource; without a kind, a Principal suggests one.
            let mayOmit = self.kind == .trust || (self.kind == nil && principalEntry != nil)
            if !mayOmit {
                self.error(path, node.offset, "missing Resource or NotResource")
            }
        }

        // Condition
        var conditions: [Condition] = []
        var compiledConditions: [CompiledCondition] = []
        if let (conditionNode, _) = nodes["Condition"] {
            (conditions, compiledConditions) = self.parseConditionBlock(conditionNode, path: Self.member(path, "Condition"))
        }

        guard self.errorCount == errorsBefore, let effect, let actionElement else { return nil }
        let statement = Statement(
            sid: sid, effect: effect, principal: principalElement, action: actionElement, resource: resourceElement,
            conditions: conditions)
        let compiled = CompiledStatement(
            index: index, sid: sid, effect: effect, actionPatterns: actionPatterns,
            actionNegated: { if case .notAction = actionElement { return true }; return false }(),
            resourcePatterns: resourcePatterns,
            resourceNegated: { if case .notResource = resourceElement { return true }; return false }(),
            principal: compiledPrincipal, conditions: compiledConditions)
        return (statement, compiled)
    }

    // MARK: Action

    mutating func parseActions(_ node: JSONNode, path: String, name: String) -> ([String], [Pattern])? {
        guard let entries = self.stringList(node, path: path, what: name) else { return nil }
        var values: [String] = []
        var patterns: [Pattern] = []
        var failed = false
        var warnedVariable = false
        for (value, entryPath, offset) in entries {
            if value.isEmpty {
                self.error(entryPath, offset, "an action must not be empty")
                failed = true
                continue
            }
            if value != "*" {
                let parts = Self.withoutVariables(value).split(separator: ":", omittingEmptySubsequences: false)
                guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                    self.error(entryPath, offset, "an action must be 'service:action' (such as s3:GetObject) or '*'")
                    failed = true
                    continue
                }
                if parts[0].contains(where: { $0 == "*" || $0 == "?" }) {
                    self.warning(entryPath, offset, "a wildcard in the service prefix matches actions of several services")
                } else if parts[0].lowercased() == "s3" {
                    self.checkS3Action(value, path: entryPath, offset: offset)
                }
            }
            if value.containsVariableMarker, !warnedVariable {
                warnedVariable = true
                self.warning(entryPath, offset, "policy variables are not substituted in \(name); '${' is literal text here")
            }
            values.append(value)
            patterns.append(PatternCompiler.pattern(value, .init(wildcards: true, variables: false, foldCase: true)).0)
        }
        return failed ? nil : (values, patterns)
    }

    /// Warns about an `s3:` action, or a pattern, that names no action S3 defines: IAM accepts it, and it
    /// then matches no request (`s3:GetObjects` allows nothing).
    mutating func checkS3Action(_ value: String, path: String, offset: Int) {
        let name = value.utf8.dropFirst(3)
        if name.contains(where: { $0 == UInt8(ascii: "*") || $0 == UInt8(ascii: "?") }) {
            let pattern = PatternCompiler.pattern(value, .init(wildcards: true, variables: false, foldCase: true)).0
            let context = PolicyLinter.emptyContext
            guard !S3ActionNames.qualified.contains(where: { Glob.match(pattern, $0, foldCase: true, context: context) }) else { return }
            self.warning(path, offset, "'\(value)' matches no action that Amazon S3 defines, so it matches no request")
            return
        }
        let text = String(decoding: name, as: UTF8.self)
        guard !S3ActionNames.exact.contains(text) else { return }
        let lowered = text.lowercased()
        guard !S3ActionNames.lowercased.contains(lowered) else { return }
        let hint: String?
        if let actions = S3ActionNames.operations[lowered] {
            let names = actions.map { "s3:\($0)" }.joined(separator: " and ")
            hint = "\(text) is the API operation; it needs \(names)"
        } else {
            hint = closestMatch(text, in: S3ActionNames.all).map { "did you mean 's3:\($0)'?" }
        }
        self.warning(path, offset, "'\(value)' is not an action that Amazon S3 defines, so it matches no request", hint: hint)
    }

    /// The text with the inside of each `${…}` removed, so colons in variable names do not count.
    static func withoutVariables(_ text: String) -> String {
        guard text.containsVariableMarker else { return text }
        var output = ""
        var depth = false
        var previous: Character = " "
        for character in text {
            if depth {
                if character == "}" { depth = false }
            } else if previous == "$", character == "{" {
                depth = true
            } else {
                output.append(character)
            }
            previous = character
        }
        return output
    }

    // MARK: Resource

    mutating func parseResources(_ node: JSONNode, path: String, name: String) -> ([String], [ARNPattern])? {
        guard let entries = self.stringList(node, path: path, what: name) else { return nil }
        var values: [String] = []
        var patterns: [ARNPattern] = []
        var failed = false
        for (value, entryPath, offset) in entries {
            if value.isEmpty {
                self.error(entryPath, offset, "a resource must not be empty")
                failed = true
                continue
            }
            guard value == "*" || value.hasPrefix("arn:") else {
                self.error(entryPath, offset, "a resource must be an ARN (arn:partition:service:region:account:resource) or '*'")
                failed = true
                continue
            }
            if value.containsVariableMarker {
                if !self.variablesEnabled {
                    self.warning(
                        entryPath, offset,
                        "policy variables are substituted only under Version 2012-10-17; here '${' is literal text",
                        hint: "add \"Version\": \"2012-10-17\"")
                } else if name == "NotResource" {
                    self.warning(
                        entryPath, offset,
                        "a variable without a value makes its NotResource pattern match nothing, so the statement then covers every resource")
                }
            }
            let (arnPattern, issues) = ARNPattern.compile(value, variables: self.variablesEnabled)
            for issue in issues { self.warning(entryPath, offset, issue) }
            if value != "*", arnPattern.segments.count < 6, !(arnPattern.segmentEndsWithStar.last ?? false) {
                self.warning(entryPath, offset, "has fewer than six colon-separated parts, so it matches no ARN")
            }
            if arnPattern.segments.count >= 3, arnPattern.segmentHasWildcardOrVariable(2) {
                self.warning(entryPath, offset, "AWS does not allow wildcards or variables in the service part of a resource ARN")
            }
            values.append(value)
            patterns.append(arnPattern)
        }
        return failed ? nil : (values, patterns)
    }

    // MARK: Principal

    mutating func parsePrincipal(_ node: JSONNode, path: String, name: String) -> PrincipalSet? {
        switch node.kind {
        case .string(let value):
            guard value == "*" else {
                self.error(path, node.offset, "\(name) must be \"*\" or an object such as {\"AWS\": \"arn:aws:iam::111122223333:root\"}")
                return nil
            }
            return .everyone
        case .object(let members):
            self.checkDuplicates(members, path: path)
            guard !members.isEmpty else {
                self.error(path, node.offset, "\(name) must name at least one principal")
                return nil
            }
            var set = PrincipalSet()
            var failed = false
            for member in members {
                let memberPath = Self.member(path, member.key)
                guard ["AWS", "Federated", "Service", "CanonicalUser"].contains(member.key) else {
                    let hint = closestMatch(member.key, in: ["AWS", "Federated", "Service", "CanonicalUser"]).map { "did you mean '\($0)'?" }
                    self.error(memberPath, member.keyOffset, "unknown principal type", hint: hint)
                    failed = true
                    continue
                }
                guard let entries = self.stringList(member.value, path: memberPath, what: "\(name).\(member.key)") else {
                    failed = true
                    continue
                }
                for (value, entryPath, offset) in entries {
                    if !self.validatePrincipalValue(value, type: member.key, path: entryPath, offset: offset) { failed = true }
                }
                let values = entries.map(\.0)
                switch member.key {
                case "AWS": set.aws += values
                case "Federated": set.federated += values
                case "Service": set.service += values
                default: set.canonicalUser += values
                }
            }
            return failed ? nil : set
        default:
            self.error(path, node.offset, "\(name) must be \"*\" or an object, not \(node.typeName)")
            return nil
        }
    }

    mutating func validatePrincipalValue(_ value: String, type: String, path: String, offset: Int) -> Bool {
        if value.isEmpty {
            self.error(path, offset, "a principal must not be empty")
            return false
        }
        if type == "AWS", value == "*" { return true }
        if value.containsVariableMarker {
            self.warning(path, offset, "policy variables are not substituted in Principal; '${' is literal text here")
        }
        if value.contains("*") || value.contains("?") {
            self.error(path, offset, "wildcards are not allowed in a principal (only \"*\" on its own, for everyone)")
            return false
        }
        guard type == "AWS" else { return true }
        if isAccountId(value) { return true }
        guard let parts = ARNParts(value), parts.service == "iam" || parts.service == "sts" else {
            self.error(path, offset, "an AWS principal must be a 12-digit account id or an IAM or STS ARN")
            return false
        }
        if parts.service == "sts" {
            let pieces = parts.resource.split(separator: "/", omittingEmptySubsequences: false)
            let validSession = pieces.count == 3 && pieces[0] == "assumed-role" && !pieces[1].isEmpty && !pieces[2].isEmpty
            let validFederated = pieces.count == 2 && pieces[0] == "federated-user" && !pieces[1].isEmpty
            if !validSession && !validFederated {
                self.error(path, offset, "an STS principal must be arn:aws:sts::ACCOUNT:assumed-role/ROLE/SESSION or …:federated-user/NAME")
                return false
            }
        }
        return true
    }
}
