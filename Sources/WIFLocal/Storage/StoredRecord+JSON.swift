import WIFFoundation

/// The record's JSON, written and read with the package's own JSON writer and reader.
///
/// Every stored object and part carries a record, written on each `PutObject` and `UploadPart` and read on
/// each `GetObject` and `HeadObject`; Foundation's `JSONEncoder` and `JSONDecoder` cost more than the rest
/// of a small object's handling. The members and their JSON types are those of the records' `Codable`
/// forms, which wrote the files of earlier versions, so both read each other's files.
extension StoredRecord {
    /// The record as JSON (UTF-8); members whose value is `nil` are left out.
    func json() -> [UInt8] {
        var writer = JSONWriter(pretty: false)
        writer.beginObject()
        writer.member("format", self.format)
        writer.member("key", self.key)
        writer.member("size", Int(self.size))
        writer.member("etag", self.etag)
        writer.member("lastModified", Int(self.lastModified))
        if let attributes = self.attributes {
            writer.key("attributes")
            attributes.write(into: &writer)
        }
        writer.member("sha256", ifPresent: self.sha256)
        writer.member("md5", ifPresent: self.md5)
        if let partCount = self.partCount {
            writer.member("partCount", partCount)
        }
        writer.member("uploadId", ifPresent: self.uploadId)
        if let checksum = self.checksum {
            writer.key("checksum")
            writer.beginObject()
            writer.member("algorithm", checksum.algorithm.name)
            writer.member("value", checksum.value)
            writer.member("type", checksum.type.rawValue)
            writer.endObject()
        }
        if let encryption = self.encryption {
            writer.key("encryption")
            encryption.write(into: &writer)
        }
        if let bodyParts = self.bodyParts {
            writer.key("bodyParts")
            writer.beginArray()
            for part in bodyParts {
                writer.beginObject()
                writer.member("number", part.number)
                writer.member("length", Int(part.length))
                writer.endObject()
            }
            writer.endArray()
        }
        if let partLengths = self.partLengths {
            writer.key("partLengths")
            writer.beginArray()
            for length in partLengths { writer.int(Int(length)) }
            writer.endArray()
        }
        writer.endObject()
        return writer.utf8
    }

    /// Reads a record's JSON.
    /// - Returns: `nil` when the bytes are not JSON, or a member is missing or of the wrong type.
    init?(json bytes: [UInt8]) {
        guard let node = try? JSONParser.parse(bytes), let record = RecordReader(node) else { return nil }
        guard let format = record.int("format"), let key = record.string("key"), let size = record.int64("size"),
            let etag = record.string("etag"), let lastModified = record.int64("lastModified"),
            let attributes = record.optional("attributes", ObjectAttributes.init(record:)),
            let sha256 = record.optional("sha256", \.stringValue), let md5 = record.optional("md5", \.stringValue),
            let partCount = record.optional("partCount", \.intValue),
            let uploadId = record.optional("uploadId", \.stringValue),
            let checksum = record.optional("checksum", StoredChecksum.init(record:)),
            let encryption = record.optional("encryption", StoredEncryption.init(record:)),
            let bodyParts = record.optional("bodyParts", { $0.array(StoredBodyPart.init(record:)) }),
            let partLengths = record.optional("partLengths", { $0.array(\.int64Value) })
        else { return nil }
        self.init(
            format: format, key: key, size: size, etag: etag, lastModified: lastModified, attributes: attributes,
            sha256: sha256, md5: md5, partCount: partCount, uploadId: uploadId, checksum: checksum,
            encryption: encryption, bodyParts: bodyParts, partLengths: partLengths
        )
    }
}

extension ObjectAttributes {
    fileprivate func write(into writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("contentType", ifPresent: self.contentType)
        writer.member("contentEncoding", ifPresent: self.contentEncoding)
        writer.member("contentDisposition", ifPresent: self.contentDisposition)
        writer.member("contentLanguage", ifPresent: self.contentLanguage)
        writer.member("cacheControl", ifPresent: self.cacheControl)
        writer.member("expires", ifPresent: self.expires)
        writer.key("userMetadata")
        writer.beginObject()
        for (name, value) in self.userMetadata.sorted(by: { $0.key < $1.key }) {
            writer.key(name)
            writer.string(value)
        }
        writer.endObject()
        writer.endObject()
    }

    fileprivate init?(record node: JSONNode) {
        guard let record = RecordReader(node), let metadata = record.members("userMetadata"),
            let contentType = record.optional("contentType", \.stringValue),
            let contentEncoding = record.optional("contentEncoding", \.stringValue),
            let contentDisposition = record.optional("contentDisposition", \.stringValue),
            let contentLanguage = record.optional("contentLanguage", \.stringValue),
            let cacheControl = record.optional("cacheControl", \.stringValue),
            let expires = record.optional("expires", \.stringValue)
        else { return nil }
        var userMetadata: [String: String] = [:]
        for (name, value) in metadata {
            guard let value = value.stringValue else { return nil }
            userMetadata[name] = value
        }
        self.init(
            contentType: contentType, contentEncoding: contentEncoding, contentDisposition: contentDisposition,
            contentLanguage: contentLanguage, cacheControl: cacheControl, expires: expires, userMetadata: userMetadata
        )
    }
}

extension StoredChecksum {
    fileprivate init?(record node: JSONNode) {
        guard let record = RecordReader(node), let name = record.string("algorithm"),
            let algorithm = S3Checksum.Algorithm(name: name), let value = record.string("value"),
            let type = record.string("type").flatMap(Kind.init(rawValue:))
        else { return nil }
        self.init(algorithm: algorithm, value: value, type: type)
    }
}

extension StoredEncryption {
    fileprivate func write(into writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("mode", self.mode.rawValue)
        writer.member("keyMD5", ifPresent: self.keyMD5)
        writer.key("segments")
        writer.beginArray()
        for segment in self.segments {
            writer.beginObject()
            writer.member("length", Int(segment.length))
            writer.member("iv", segment.iv)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
    }

    fileprivate init?(record node: JSONNode) {
        guard let record = RecordReader(node), let mode = record.string("mode").flatMap(Mode.init(rawValue:)),
            let keyMD5 = record.optional("keyMD5", \.stringValue),
            let segments = record.node("segments")?.array({ node -> Segment? in
                guard let segment = RecordReader(node), let length = segment.int64("length"), let iv = segment.string("iv")
                else { return nil }
                return Segment(length: length, iv: iv)
            })
        else { return nil }
        self.init(mode: mode, keyMD5: keyMD5, segments: segments)
    }
}

extension StoredBodyPart {
    fileprivate init?(record node: JSONNode) {
        guard let record = RecordReader(node), let number = record.int("number"), let length = record.int64("length")
        else { return nil }
        self.init(number: number, length: length)
    }
}

/// The members of one object of a record, read as its `Codable` form reads them: a required member must be
/// present and of its type; an optional one may be missing or `null`.
private struct RecordReader {
    private let members: [String: JSONNode]

    init?(_ node: JSONNode) {
        guard let members = node.objectMembers else { return nil }
        self.members = members
    }

    func node(_ key: String) -> JSONNode? { self.members[key] }
    func string(_ key: String) -> String? { self.members[key]?.stringValue }
    func int(_ key: String) -> Int? { self.members[key]?.intValue }
    func int64(_ key: String) -> Int64? { self.members[key]?.int64Value }
    func members(_ key: String) -> [String: JSONNode]? { self.members[key]?.objectMembers }

    /// `.some(nil)` when the member is missing or `null`, `.some(value)` when it reads, and `nil` when it
    /// is present but does not read.
    func optional<Value>(_ key: String, _ read: (JSONNode) -> Value?) -> Value?? {
        guard let node = self.members[key] else { return .some(nil) }
        if case .null = node.kind { return .some(nil) }
        guard let value = read(node) else { return nil }
        return .some(value)
    }
}

extension JSONNode {
    /// Every element read by `read`; `nil` when this is not an array or an element does not read.
    fileprivate func array<Element>(_ read: (JSONNode) -> Element?) -> [Element]? {
        guard let elements = self.arrayValue else { return nil }
        var values: [Element] = []
        values.reserveCapacity(elements.count)
        for element in elements {
            guard let value = read(element) else { return nil }
            values.append(value)
        }
        return values
    }
}
