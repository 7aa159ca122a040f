import Foundation
import PolicyEngine
import WIFFoundation

/// A batch of simulation cases read from JSON:
///
/// ```json
/// {"description": "what the batch checks", "source": "where its cases come from",
///  "cases": [{"name": "alice reads her file", "category": "per-user folders", "note": "…",
///             "policies": [{"Version": "2012-10-17", "Statement": …}, "personal-store.json"],
///             "sessionPolicy": …, "permissionsBoundary": …, "resourcePolicy": …, "trustPolicy": …,
///             "request": {"principal": "arn:aws:sts::111122223333:assumed-role/app/alice",
///                         "action": "s3:GetObject", "resource": "arn:aws:s3:::bucket/1001/a.txt",
///                         "context": {"graph.facebook.com:id": "1001", "aws:TagKeys": ["a", "b"]},
///                         "time": "2024-05-01T12:00:00Z"},
///             "expected": "Allow"}]}
/// ```
///
/// A policy is an inline JSON object, taken exactly as written, or a path relative to the case file. A case
/// with no policy at all is a valid question (its answer is an implicit deny). A file that is not JSON, or
/// whose top level is wrong, fails as a whole; a case that is wrong (an invalid policy or principal, an
/// unknown key) becomes an ``Entry/invalid(_:)`` entry, so the other cases still run.
struct PolicyCaseFile {
    /// The optional keys that document a batch or a case; they do not change a decision.
    struct Documentation {
        static let keys = ["description", "note", "source", "category"]

        var description: String?
        var note: String?
        var source: String?
        var category: String?

        /// Adds the fields that are present to an output line, in the order of ``keys``.
        func add(to object: inout PolicyJSONObject) {
            let values = [self.description, self.note, self.source, self.category]
            for (key, value) in zip(Self.keys, values) {
                if let value { object.add(key, value) }
            }
        }
    }

    /// A case ready to run.
    struct Case: SimulationCase {
        var name: String
        var documentation: Documentation
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

    /// A case that cannot run, with the first problem found in it.
    struct InvalidCase {
        /// The case's `name`, or its JSON path when it has no usable name.
        var name: String
        var documentation: Documentation
        var problem: Problem
    }

    typealias Entry = CaseFileEntry<Case>

    /// Something wrong in the file, at a JSON path.
    struct Problem: Error {
        var path: String
        var message: String
        var status: ExitStatus = .usage

        /// `PATH: message`.
        var text: String { self.path.isEmpty ? self.message : "\(self.path): \(self.message)" }
    }

    var documentation: Documentation
    var entries: [Entry]

    static let caseKeys = [
        "name", "policies", "sessionPolicy", "permissionsBoundary", "resourcePolicy", "trustPolicy", "request", "expected",
    ] + Documentation.keys
    static let requestKeys = ["principal", "action", "resource", "context", "time"]

    /// Reads a case file and compiles every case that is valid.
    /// - Parameter path: The file; policy paths inside it are relative to its folder.
    /// - Throws: ``CommandFailure`` with status `io` when the file cannot be read, and `usage` when it is not
    ///   JSON (with its line and column) or its top level is wrong (with the JSON path).
    init(path: String) throws(CommandFailure) {
        let (bytes, root) = try PolicyInputs.readJSON(path)
        let folder = path == "-" ? URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
            : URL(fileURLWithPath: path).deletingLastPathComponent()
        var reader = Reader(file: path, folder: folder, bytes: bytes)
        do throws(Problem) {
            (self.documentation, self.entries) = try reader.read(root)
        } catch {
            throw CommandFailure(status: error.status, message: "\(path): \(error.text)")
        }
    }

    /// Walks the parsed JSON, naming the JSON path of anything wrong.
    struct Reader {
        let file: String
        let folder: URL
        /// The whole file, so an inline policy is handed on exactly as written and its problems point into it.
        let bytes: [UInt8]
        /// Policies read from files, by kind and resolved path, so each file is parsed once.
        var cache: [String: PolicyEngine.Policy] = [:]

        /// The top level: the documentation and the cases; a problem here fails the whole file.
        mutating func read(_ root: JSONNode) throws(Problem) -> (Documentation, [Entry]) {
            try self.read(root) { reader, node, path throws(Problem) in try reader.readCase(node, path) }
        }

        /// The top level of any case file: its documentation, then each of its cases read by `readCase`. A
        /// problem at the top level fails the whole file; a case that cannot be read, or repeats an earlier
        /// case's name, becomes an invalid entry with its first problem, so the other cases still run.
        mutating func read<Case: SimulationCase>(
            _ root: JSONNode, readCase: (inout Reader, JSONNode, String) throws(Problem) -> Case
        ) throws(Problem) -> (Documentation, [CaseFileEntry<Case>]) {
            let document = try self.object(root, "", allowed: ["cases"] + Documentation.keys)
            let documentation = try self.documentation(document, "")
            guard let casesNode = Self.member(document, "cases") else { throw Problem(path: "cases", message: "missing; it is required") }
            guard let list = casesNode.arrayValue else {
                throw Problem(path: "cases", message: "expected an array, found \(casesNode.typeName)")
            }
            guard !list.isEmpty else { throw Problem(path: "cases", message: "is empty; add at least one case") }
            var entries: [CaseFileEntry<Case>] = []
            var names: Set<String> = []
            for (index, node) in list.enumerated() {
                let path = "cases[\(index)]"
                do throws(Problem) {
                    let entry = try readCase(&self, node, path)
                    guard names.insert(entry.name).inserted else {
                        throw Problem(path: "\(path).name", message: "duplicate case name '\(entry.name)'")
                    }
                    entries.append(.ready(entry))
                } catch {
                    let name = Self.member(node, "name")?.stringValue ?? path
                    names.insert(name)
                    let documentation = (try? self.documentation(Self.members(node), path)) ?? Documentation()
                    entries.append(.invalid(InvalidCase(name: name, documentation: documentation, problem: error)))
                }
            }
            return (documentation, entries)
        }

        /// The members of an object, checking that every key is allowed and appears once.
        func object(_ node: JSONNode, _ path: String, allowed: [String]) throws(Problem) -> [JSONMember] {
            guard case .object(let members) = node.kind else {
                throw Problem(path: path, message: "expected an object, found \(node.typeName)")
            }
            var seen: Set<String> = []
            for member in members {
                let memberPath = path.isEmpty ? member.key : "\(path).\(member.key)"
                guard allowed.contains(member.key) else {
                    let suggestion = closestMatch(member.key, in: allowed).map { " (did you mean '\($0)'?)" } ?? ""
                    throw Problem(path: memberPath, message: "unknown key\(suggestion); expected one of \(allowed.joined(separator: ", "))")
                }
                guard seen.insert(member.key).inserted else {
                    throw Problem(path: memberPath, message: "is given twice; give each key once")
                }
            }
            return members
        }

        static func members(_ node: JSONNode) -> [JSONMember] {
            if case .object(let members) = node.kind { return members }
            return []
        }

        static func member(_ members: [JSONMember], _ key: String) -> JSONNode? {
            members.first { $0.key == key }?.value
        }

        static func member(_ node: JSONNode, _ key: String) -> JSONNode? {
            node.member(key)
        }

        func string(_ node: JSONNode?, _ path: String, required: Bool) throws(Problem) -> String? {
            guard let node else {
                if required { throw Problem(path: path, message: "missing; it is required") }
                return nil
            }
            guard let text = node.stringValue else {
                throw Problem(path: path, message: "expected a string, found \(node.typeName)")
            }
            return text
        }

        /// `description`, `note`, `source` and `category`, each a string when present.
        func documentation(_ members: [JSONMember], _ path: String) throws(Problem) -> Documentation {
            func text(_ key: String) throws(Problem) -> String? {
                try self.string(Self.member(members, key), path.isEmpty ? key : "\(path).\(key)", required: false)
            }
            return Documentation(
                description: try text("description"), note: try text("note"), source: try text("source"),
                category: try text("category"))
        }
    }
}
