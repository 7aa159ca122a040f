import Foundation
import PolicyEngine

/// A batch of simulation cases read from JSON:
///
/// ```json
/// {"cases": [{"name": "alice reads her file",
///             "policies": [{"Version": "2012-10-17", "Statement": …}, "personal-store.json"],
///             "sessionPolicy": …, "permissionsBoundary": …, "resourcePolicy": …, "trustPolicy": …,
///             "request": {"principal": "arn:aws:sts::111122223333:assumed-role/app/alice",
///                         "action": "s3:GetObject", "resource": "arn:aws:s3:::bucket/1001/a.txt",
///                         "context": {"graph.facebook.com:id": "1001", "aws:TagKeys": ["a", "b"]},
///                         "time": "2024-05-01T12:00:00Z"},
///             "expected": "Allow"}]}
/// ```
///
/// A policy is an inline JSON object or a path relative to the case file. Every case is read and every
/// policy compiled before any case runs, so a mistake anywhere stops the batch with its JSON path.
struct PolicyCaseFile {
    struct Case {
        var name: String
        var simulator: PolicySimulator
        var principal: RequestPrincipal?
        var action: String
        var resource: String
        var context: [String: ContextValue]
        var expected: Decision.Outcome?

        var request: AuthorizationRequest {
            self.simulator.request(
                ActionName(self.action), self.resource,
                as: RequestContext(principal: self.principal, time: self.simulator.time, values: self.context))
        }
    }

    var cases: [Case]

    static let caseKeys = [
        "name", "policies", "sessionPolicy", "permissionsBoundary", "resourcePolicy", "trustPolicy", "request", "expected",
    ]
    static let requestKeys = ["principal", "action", "resource", "context", "time"]

    /// Reads and compiles a case file.
    /// - Parameter path: The file; policy paths inside it are relative to its folder.
    /// - Throws: ``CommandFailure`` with status `io` for unreadable files and `usage` for invalid content.
    init(path: String) throws(CommandFailure) {
        let bytes = try PolicyInputs.read(path)
        let root: Any
        do {
            root = try JSONSerialization.jsonObject(with: Data(bytes))
        } catch {
            let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "not valid JSON"
            throw CommandFailure(status: .usage, message: "\(path): not valid JSON: \(detail)")
        }
        let folder = path == "-" ? URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
            : URL(fileURLWithPath: path).deletingLastPathComponent()
        var reader = Reader(file: path, folder: folder)
        self.cases = try reader.read(root)
    }

    /// Walks the parsed JSON, naming the JSON path of anything wrong.
    struct Reader {
        let file: String
        let folder: URL
        /// Policies read from files, by kind and resolved path, so each file is parsed once.
        var cache: [String: PolicyEngine.Policy] = [:]

        func fail(_ path: String, _ message: String) -> CommandFailure {
            CommandFailure(status: .usage, message: "\(self.file): \(path): \(message)")
        }

        func object(_ value: Any, _ path: String, allowed: [String]) throws(CommandFailure) -> [String: Any] {
            guard let object = value as? [String: Any] else {
                throw self.fail(path, "expected an object, found \(PolicyInputs.typeName(value))")
            }
            for key in object.keys.sorted() where !allowed.contains(key) {
                let suggestion = allowed.first { $0.lowercased() == key.lowercased() || $0.lowercased().hasPrefix(key.lowercased()) }
                    .map { " (did you mean '\($0)'?)" } ?? ""
                throw self.fail(
                    path.isEmpty ? key : "\(path).\(key)",
                    "unknown key\(suggestion); expected one of \(allowed.joined(separator: ", "))")
            }
            return object
        }

        func string(_ value: Any?, _ path: String, required: Bool) throws(CommandFailure) -> String? {
            guard let value else {
                if required { throw self.fail(path, "missing; it is required") }
                return nil
            }
            guard let text = value as? String else {
                throw self.fail(path, "expected a string, found \(PolicyInputs.typeName(value))")
            }
            return text
        }

        mutating func read(_ root: Any) throws(CommandFailure) -> [Case] {
            let document = try self.object(root, "", allowed: ["cases"])
            guard let casesValue = document["cases"] else { throw self.fail("cases", "missing; it is required") }
            guard let list = casesValue as? [Any] else {
                throw self.fail("cases", "expected an array, found \(PolicyInputs.typeName(casesValue))")
            }
            guard !list.isEmpty else { throw self.fail("cases", "is empty; add at least one case") }
            var cases: [Case] = []
            var names: Set<String> = []
            for (index, value) in list.enumerated() {
                let entry = try self.readCase(value, "cases[\(index)]")
                if !names.insert(entry.name).inserted {
                    throw self.fail("cases[\(index)].name", "duplicate case name '\(entry.name)'")
                }
                cases.append(entry)
            }
            return cases
        }

        mutating func readCase(_ value: Any, _ path: String) throws(CommandFailure) -> Case {
            let object = try self.object(value, path, allowed: PolicyCaseFile.caseKeys)
            let name = try self.string(object["name"], "\(path).name", required: false) ?? path

            var identity: [PolicyEngine.Policy] = []
            if let policies = object["policies"] {
                guard let list = policies as? [Any] else {
                    throw self.fail("\(path).policies", "expected an array of policies, found \(PolicyInputs.typeName(policies))")
                }
                for (index, element) in list.enumerated() {
                    identity.append(try self.policy(element, "\(path).policies[\(index)]", kind: .identity))
                }
            }
            let session = try object["sessionPolicy"].map { value throws(CommandFailure) in
                try self.policy(value, "\(path).sessionPolicy", kind: .session)
            }
            let boundary = try object["permissionsBoundary"].map { value throws(CommandFailure) in
                try self.policy(value, "\(path).permissionsBoundary", kind: .permissionsBoundary)
            }
            var resource = try object["resourcePolicy"].map { value throws(CommandFailure) in
                try self.policy(value, "\(path).resourcePolicy", kind: .resource)
            }
            if let trust = object["trustPolicy"] {
                guard resource == nil else {
                    throw self.fail("\(path).trustPolicy", "give a resourcePolicy or a trustPolicy, not both")
                }
                resource = try self.policy(trust, "\(path).trustPolicy", kind: .trust)
            }
            guard !identity.isEmpty || resource != nil else {
                throw self.fail(path, "needs at least one policy: policies, resourcePolicy or trustPolicy")
            }

            guard let requestValue = object["request"] else { throw self.fail("\(path).request", "missing; it is required") }
            let requestPath = "\(path).request"
            let request = try self.object(requestValue, requestPath, allowed: PolicyCaseFile.requestKeys)
            let action = try self.string(request["action"], "\(requestPath).action", required: true) ?? ""
            let resourceArn = try self.string(request["resource"], "\(requestPath).resource", required: true) ?? ""
            guard !action.isEmpty else { throw self.fail("\(requestPath).action", "must not be empty") }
            guard !resourceArn.isEmpty else { throw self.fail("\(requestPath).resource", "must not be empty") }

            let principalText = try self.string(request["principal"], "\(requestPath).principal", required: false)
            if principalText == nil, object["trustPolicy"] != nil {
                throw self.fail(
                    "\(requestPath).principal", "required with a trustPolicy: the identity provider, such as graph.facebook.com")
            }
            let principal: RequestPrincipal?
            do throws(CommandFailure) {
                principal = try PolicyInputs.principal(principalText ?? PolicyInputs.defaultPrincipal)
            } catch {
                throw self.fail("\(requestPath).principal", error.message)
            }

            var context: [String: ContextValue] = [:]
            if let contextValue = request["context"] {
                let contextPath = "\(requestPath).context"
                guard let entries = contextValue as? [String: Any] else {
                    throw self.fail(contextPath, "expected an object of key to value, found \(PolicyInputs.typeName(contextValue))")
                }
                for (key, value) in entries {
                    do throws(CommandFailure) {
                        context[key] = try PolicyInputs.contextValue(value, path: "\(contextPath).\(key)")
                    } catch {
                        throw CommandFailure(status: .usage, message: "\(self.file): \(error.message)")
                    }
                }
            }

            var time = PolicySimulator.defaultTime
            if let timeText = try self.string(request["time"], "\(requestPath).time", required: false) {
                guard let parsed = Timestamp(timeText) else {
                    throw self.fail("\(requestPath).time", "'\(timeText)' is not an ISO 8601 time or epoch seconds")
                }
                time = parsed
            }

            var expected: Decision.Outcome?
            if let expectedText = try self.string(object["expected"], "\(path).expected", required: false) {
                guard let outcome = PolicyInputs.outcome(expectedText) else {
                    throw self.fail("\(path).expected", "'\(expectedText)' is not \(PolicyInputs.outcomeNames)")
                }
                expected = outcome
            }

            let simulator = PolicySimulator(
                identityPolicies: identity, resourcePolicy: resource, sessionPolicies: session.map { [$0] } ?? [],
                permissionsBoundary: boundary, time: time)
            return Case(
                name: name, simulator: simulator, principal: principal, action: action, resource: resourceArn,
                context: context, expected: expected)
        }

        /// A policy given inline as a JSON object, or as a path relative to the case file.
        mutating func policy(_ value: Any, _ path: String, kind: PolicyKind) throws(CommandFailure) -> PolicyEngine.Policy {
            if let relative = value as? String {
                guard !relative.isEmpty else { throw self.fail(path, "a policy path must not be empty") }
                let resolved = relative.hasPrefix("/") ? relative : self.folder.appendingPathComponent(relative).path
                let key = "\(kind)\u{0}\(resolved)"
                if let cached = self.cache[key] { return cached }
                let bytes: [UInt8]
                do throws(CommandFailure) {
                    bytes = try PolicyInputs.read(resolved)
                } catch {
                    throw CommandFailure(status: error.status, message: "\(self.file): \(path): \(error.message)")
                }
                let policy = try PolicyInputs.policy(bytes, kind: kind, name: relative)
                self.cache[key] = policy
                return policy
            }
            guard value is [String: Any] else {
                throw self.fail(path, "expected a policy object or a file path, found \(PolicyInputs.typeName(value))")
            }
            let text: Data
            do {
                text = try JSONSerialization.data(withJSONObject: value, options: [.withoutEscapingSlashes])
            } catch {
                throw self.fail(path, "cannot re-encode the policy: \(error.localizedDescription)")
            }
            do throws(CommandFailure) {
                return try PolicyInputs.policy(Array(text), kind: kind, name: path, showsPosition: false)
            } catch {
                throw CommandFailure(status: error.status, message: "\(self.file): \(error.message)")
            }
        }
    }
}
