import AccessRules
import Foundation
import WIFFoundation

/// The records of one API's models, one JSON file each under `DATA/apis/<api>/<Model>/<id>.json`,
/// written to a temporary file and renamed, so a record is never seen half written.
struct RecordStore: Sendable {
    let directory: String
    let data: DataDirectory

    init(data: DataDirectory, api: String) {
        self.data = data
        self.directory = data.root + "/apis/" + api
    }

    /// Whether a record id can name a file: 1 to 128 letters, digits, `-`, `_` or `.`, not starting with `.`.
    static func isValidId(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 128 && id.first != "."
            && id.utf8.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
                    || byte == UInt8(ascii: ".")
            }
    }

    private func path(model: String, id: String) -> String {
        "\(self.directory)/\(model)/\(id).json"
    }

    /// The stored record, or `nil`.
    func read(model: String, id: String) -> APIRecord? {
        guard let bytes = FileManager.default.contents(atPath: self.path(model: model, id: id)) else { return nil }
        return APIRecord(json: Array(bytes))
    }

    /// Every record of a model, by id.
    func list(model: String) -> [APIRecord] {
        let folder = "\(self.directory)/\(model)"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { $0.hasSuffix(".json") }.sorted().compactMap { name in
            FileManager.default.contents(atPath: "\(folder)/\(name)").flatMap { APIRecord(json: Array($0)) }
        }
    }

    /// Stores a record under its id.
    func write(_ record: APIRecord, model: String, id: String) throws(LocalStackError) {
        let folder = "\(self.directory)/\(model)"
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw LocalStackError("cannot create \(folder): \(error)")
        }
        try self.data.writeAtomically(Data(record.json.utf8), to: self.path(model: model, id: id))
    }

    /// Removes a record; whether it existed.
    func remove(model: String, id: String) -> Bool {
        (try? FileManager.default.removeItem(atPath: self.path(model: model, id: id))) != nil
    }
}

/// A record as JSON: its members in order, each value kept exactly as written.
struct APIRecord: Sendable {
    /// The members, each with its value's JSON text.
    var members: [(key: String, json: String)]
    /// What the rules read of it.
    var fields: Record

    /// Reads a JSON object; `nil` when the bytes are not one.
    init?(json bytes: [UInt8]) {
        guard let node = try? JSONParser.parse(bytes, options: JSONParser.Options(rejectsDuplicateKeys: true)),
            case .object(let members) = node.kind
        else { return nil }
        self.members = members.map { member in
            (member.key, String(decoding: bytes[member.value.range], as: UTF8.self))
        }
        var fields: Record = [:]
        for member in members {
            switch member.value.kind {
            case .string(let text): fields[member.key] = .string(text)
            case .null: fields[member.key] = .null
            case .array(let elements) where elements.allSatisfy({ $0.stringValue != nil }):
                fields[member.key] = .strings(elements.compactMap(\.stringValue))
            default: fields[member.key] = .other(String(decoding: bytes[member.value.range], as: UTF8.self))
            }
        }
        self.fields = fields
    }

    /// Sets a string member, replacing one of the same name.
    mutating func set(_ key: String, string value: String) {
        self.set(key, json: JSONWriter.quoted(value), field: .string(value))
    }

    /// Sets a member to a JSON value of another record.
    mutating func set(_ key: String, json: String, field: RecordValue) {
        if let index = self.members.firstIndex(where: { $0.key == key }) {
            self.members[index].json = json
        } else {
            self.members.append((key, json))
        }
        self.fields[key] = field
    }

    /// Removes members, for fields a read hides.
    mutating func remove(_ keys: Set<String>) {
        self.members.removeAll { keys.contains($0.key) }
        for key in keys { self.fields[key] = nil }
    }

    /// The record as a JSON object.
    var json: String {
        "{" + self.members.map { "\(JSONWriter.quoted($0.key)):\($0.json)" }.joined(separator: ",") + "}"
    }
}
