import Foundation
import PolicyEngine
import WIFFoundation

extension PolicyCaseFile.Reader {
    typealias Problem = PolicyCaseFile.Problem

    /// One case: its policies, request and expectation. Any problem is reported for this case alone.
    mutating func readCase(_ node: JSONNode, _ path: String) throws(Problem) -> PolicyCaseFile.Case {
        let members = try self.object(node, path, allowed: PolicyCaseFile.caseKeys)
        func member(_ key: String) -> JSONNode? { Self.member(members, key) }
        let name = try self.string(member("name"), "\(path).name", required: false) ?? path
        let documentation = try self.documentation(members, path)

        var identity: [PolicyEngine.Policy] = []
        if let policies = member("policies") {
            guard let list = policies.arrayValue else {
                throw Problem(path: "\(path).policies", message: "expected an array of policies, found \(policies.typeName)")
            }
            for (index, element) in list.enumerated() {
                identity.append(try self.policy(element, "\(path).policies[\(index)]", kind: .identity))
            }
        }
        var session: PolicyEngine.Policy?
        if let node = member("sessionPolicy") { session = try self.policy(node, "\(path).sessionPolicy", kind: .session) }
        var boundary: PolicyEngine.Policy?
        if let node = member("permissionsBoundary") {
            boundary = try self.policy(node, "\(path).permissionsBoundary", kind: .permissionsBoundary)
        }
        var resource: PolicyEngine.Policy?
        if let node = member("resourcePolicy") { resource = try self.policy(node, "\(path).resourcePolicy", kind: .resource) }
        if let trust = member("trustPolicy") {
            guard resource == nil else {
                throw Problem(path: "\(path).trustPolicy", message: "give a resourcePolicy or a trustPolicy, not both")
            }
            resource = try self.policy(trust, "\(path).trustPolicy", kind: .trust)
        }

        guard let requestNode = member("request") else { throw Problem(path: "\(path).request", message: "missing; it is required") }
        let requestPath = "\(path).request"
        let request = try self.object(requestNode, requestPath, allowed: PolicyCaseFile.requestKeys)
        func field(_ key: String) -> JSONNode? { Self.member(request, key) }
        let action = try self.string(field("action"), "\(requestPath).action", required: true) ?? ""
        let resourceArn = try self.string(field("resource"), "\(requestPath).resource", required: true) ?? ""
        guard !action.isEmpty else { throw Problem(path: "\(requestPath).action", message: "must not be empty") }
        guard !resourceArn.isEmpty else { throw Problem(path: "\(requestPath).resource", message: "must not be empty") }

        let principalText = try self.string(field("principal"), "\(requestPath).principal", required: false)
        if principalText == nil, member("trustPolicy") != nil {
            throw Problem(
                path: "\(requestPath).principal",
                message: "required with a trustPolicy: the identity provider, such as graph.facebook.com")
        }
        let principal: RequestPrincipal?
        do throws(CommandFailure) {
            principal = try PolicyInputs.principal(principalText ?? PolicyInputs.defaultPrincipal)
        } catch {
            throw Problem(path: "\(requestPath).principal", message: error.message, status: error.status)
        }

        var context: [String: ContextValue] = [:]
        if let contextNode = field("context") {
            let contextPath = "\(requestPath).context"
            guard case .object(let entries) = contextNode.kind else {
                throw Problem(path: contextPath, message: "expected an object of key to value, found \(contextNode.typeName)")
            }
            for entry in entries {
                do throws(CommandFailure) {
                    context[entry.key] = try PolicyInputs.contextValue(entry.value, path: "\(contextPath).\(entry.key)")
                } catch {
                    // The message already starts with the value's JSON path.
                    throw Problem(path: "", message: error.message, status: error.status)
                }
            }
        }

        var time = PolicySimulator.defaultTime
        if let timeText = try self.string(field("time"), "\(requestPath).time", required: false) {
            guard let parsed = Timestamp(timeText) else {
                throw Problem(path: "\(requestPath).time", message: "'\(timeText)' is not an ISO 8601 time or epoch seconds")
            }
            time = parsed
        }

        var expected: Decision.Outcome?
        if let expectedText = try self.string(member("expected"), "\(path).expected", required: false) {
            guard let outcome = PolicyInputs.outcome(expectedText) else {
                throw Problem(path: "\(path).expected", message: "'\(expectedText)' is not \(PolicyInputs.outcomeNames)")
            }
            expected = outcome
        }

        // No policy at all is a question like any other: nothing allows the request, an implicit deny.
        let simulator = PolicySimulator(
            identityPolicies: identity, resourcePolicy: resource, sessionPolicies: session.map { [$0] } ?? [],
            permissionsBoundary: boundary, time: time)
        return PolicyCaseFile.Case(
            name: name, documentation: documentation, simulator: simulator, principal: principal, action: action,
            resource: resourceArn, context: context, expected: expected)
    }

    /// A policy given inline as a JSON object, or as a path relative to the case file.
    mutating func policy(_ node: JSONNode, _ path: String, kind: PolicyKind) throws(Problem) -> PolicyEngine.Policy {
        if let relative = node.stringValue {
            guard !relative.isEmpty else { throw Problem(path: path, message: "a policy path must not be empty") }
            let resolved = relative.hasPrefix("/") ? relative : self.folder.appendingPathComponent(relative).path
            let key = "\(kind)\u{0}\(resolved)"
            if let cached = self.cache[key] { return cached }
            do throws(CommandFailure) {
                let policy = try PolicyInputs.policy(try PolicyInputs.read(resolved), kind: kind, name: relative)
                self.cache[key] = policy
                return policy
            } catch {
                throw Problem(path: path, message: error.message, status: error.status)
            }
        }
        guard case .object = node.kind else {
            throw Problem(path: path, message: "expected a policy object or a file path, found \(node.typeName)")
        }
        // Hand PolicyEngine the text as written, so its line and column point into the case file.
        let start = JSONParser.location(of: node.range.lowerBound, in: self.bytes)
        do throws(CommandFailure) {
            return try PolicyInputs.policy(
                Array(self.bytes[node.range]), kind: kind, name: path, source: (self.file, start.line, start.column))
        } catch {
            throw Problem(path: path, message: error.message, status: error.status)
        }
    }
}
