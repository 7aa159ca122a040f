import AccessRules
import Foundation
import WIFFoundation

/// A batch of rule simulation cases read from JSON:
///
/// ```json
/// {"description": "…", "cases": [{"name": "bob reads alice's todo", "model": "Todo", "operation": "get",
///   "caller": {"authMode": "userPools", "claims": {"sub": "b", "cognito:username": "bob"}},
///   "record": {"owner": "a::alice"}, "semantics": "v1", "expected": "Allow"}]}
/// ```
///
/// `caller` null is a caller with no credentials; for create `record` is the record to create, for update
/// the stored record, with `update` the fields being changed. It uses the policy case files' reader, so
/// keys, documentation and problems are named the same way; a wrong case becomes an invalid entry and the
/// others still run.
struct RulesCaseFile {
    struct Case: SimulationCase {
        var name: String
        var documentation: PolicyCaseFile.Documentation
        var model: String
        var operation: ModelOperation
        var caller: Caller?
        var record: Record?
        var update: Record?
        var semantics: RuleSemantics?
        var expected: RuleDecision.Outcome?
    }

    typealias Entry = CaseFileEntry<Case>

    static let caseKeys = ["name", "model", "operation", "caller", "record", "update", "semantics", "expected"]
        + PolicyCaseFile.Documentation.keys
    static let callerKeys = ["authMode", "claims", "role", "groups"]

    var documentation: PolicyCaseFile.Documentation
    var entries: [Entry]

    /// Reads a case file.
    /// - Throws: ``CommandFailure`` with status `io` when it cannot be read, `usage` when it is not JSON or
    ///   its top level is wrong.
    init(path: String) throws(CommandFailure) {
        let (bytes, root) = try PolicyInputs.readJSON(path)
        var reader = PolicyCaseFile.Reader(file: path, folder: URL(fileURLWithPath: "."), bytes: bytes)
        do throws(PolicyCaseFile.Problem) {
            (self.documentation, self.entries) = try reader.read(root) { reader, node, path throws(PolicyCaseFile.Problem) in
                try Self.readCase(node, path, reader: reader)
            }
        } catch {
            throw CommandFailure(status: error.status, message: "\(path): \(error.text)")
        }
    }

    private static func readCase(_ node: JSONNode, _ path: String, reader: PolicyCaseFile.Reader) throws(PolicyCaseFile.Problem) -> Case {
        let members = try reader.object(node, path, allowed: caseKeys)
        func member(_ key: String) -> JSONNode? { PolicyCaseFile.Reader.member(members, key) }
        func string(_ key: String, required: Bool) throws(PolicyCaseFile.Problem) -> String? {
            try reader.string(member(key), "\(path).\(key)", required: required)
        }
        let name = try string("name", required: true) ?? path
        let model = try string("model", required: true) ?? ""
        let operationName = try string("operation", required: true) ?? ""
        guard let operation = RulesInputs.operation(operationName) else {
            let hint = closestMatch(operationName, in: RulesInputs.operationNames).map { " (did you mean '\($0)'?)" } ?? ""
            throw PolicyCaseFile.Problem(path: "\(path).operation", message: "unknown operation '\(operationName)'\(hint)")
        }
        var semantics: RuleSemantics?
        if let text = try string("semantics", required: false) {
            guard let value = RuleSemantics(rawValue: text) else {
                throw PolicyCaseFile.Problem(path: "\(path).semantics", message: "must be v1 or v2, not '\(text)'")
            }
            semantics = value
        }
        var expected: RuleDecision.Outcome?
        if let text = try string("expected", required: false) {
            guard let value = RuleDecision.Outcome(rawValue: text) else {
                throw PolicyCaseFile.Problem(path: "\(path).expected", message: "must be Allow or Deny, not '\(text)'")
            }
            expected = value
        }
        guard let callerNode = member("caller") else {
            throw PolicyCaseFile.Problem(path: "\(path).caller", message: "missing; it is required (null for a caller with no credentials)")
        }
        var caller: Caller?
        if case .null = callerNode.kind {
            caller = nil
        } else {
            let callerPath = "\(path).caller"
            let callerMembers = try reader.object(callerNode, callerPath, allowed: callerKeys)
            let authMode = try reader.string(PolicyCaseFile.Reader.member(callerMembers, "authMode"), "\(callerPath).authMode", required: true)
            let role = try reader.string(PolicyCaseFile.Reader.member(callerMembers, "role"), "\(callerPath).role", required: false)
            let claims = try PolicyCaseFile.Reader.member(callerMembers, "claims").map { node throws(PolicyCaseFile.Problem) in
                try RulesInputs.claims(node, path: "\(callerPath).claims")
            } ?? [:]
            var groups: [String] = []
            if let node = PolicyCaseFile.Reader.member(callerMembers, "groups") {
                guard let elements = node.arrayValue, elements.allSatisfy({ $0.stringValue != nil }) else {
                    throw PolicyCaseFile.Problem(path: "\(callerPath).groups", message: "expected a list of group names")
                }
                groups = elements.compactMap(\.stringValue)
            }
            caller = try RulesInputs.caller(authMode: authMode, claims: claims, role: role, groups: groups, path: callerPath)
        }
        let record = try member("record").map { node throws(PolicyCaseFile.Problem) in try RulesInputs.record(node, path: "\(path).record") }
        let update = try member("update").map { node throws(PolicyCaseFile.Problem) in try RulesInputs.record(node, path: "\(path).update") }
        if update != nil, operation != .update {
            throw PolicyCaseFile.Problem(path: "\(path).update", message: "is only for the update operation")
        }
        return Case(
            name: name, documentation: try reader.documentation(members, path), model: model, operation: operation, caller: caller,
            record: record, update: update, semantics: semantics, expected: expected)
    }
}
