import Foundation
import WIFFoundation

/// What an ``EncryptedStore`` holds: named `Codable` values, so several users of one store (an OAuth
/// account manager, a command-line tool's sign-ins, a credential cache) share the file without knowing
/// each other's types.
///
/// Each value is kept as its own JSON encoding (dates as seconds since 2001, which round-trip exactly),
/// so a value whose type this program does not know is kept as it is when the document is saved
/// again. `description` lists the keys only, never a value.
///
/// ```swift
/// try store.update { document in
///     try document.setValue(tokens, forKey: "oauth.accounts")
///     document.setCredentials(credentials, forKey: "sts.cache.build")
/// }
/// ```
public struct StoreDocument: Sendable, Hashable, CustomStringConvertible {
    /// The JSON of each value, by key.
    var items: [String: Data]

    /// The longest key accepted.
    public static let maximumKeyLength = 256

    /// An empty document.
    public init() {
        self.items = [:]
    }

    /// The keys, sorted.
    public var keys: [String] { self.items.keys.sorted() }

    /// Whether the document holds nothing.
    public var isEmpty: Bool { self.items.isEmpty }

    /// Whether a value is stored under `key`.
    public func contains(_ key: String) -> Bool { self.items[key] != nil }

    /// The value stored under `key`, decoded as `type`.
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - key: The value's key.
    /// - Returns: The value, or `nil` when nothing is stored under `key`.
    /// - Throws: ``WIFCredentialsError`` `storeDamaged` when the stored value does not decode as `type`.
    public func value<T: Decodable>(_ type: T.Type, forKey key: String) throws(WIFCredentialsError) -> T? {
        guard let data = self.items[key] else { return nil }
        do {
            return try Self.decoder.decode(T.self, from: data)
        } catch {
            throw .storeDamaged("the stored value '\(key)' does not decode as \(T.self): \(Self.describe(decodingError: error))")
        }
    }

    /// Stores `value` under `key`, replacing what was there.
    /// - Parameters:
    ///   - value: The value.
    ///   - key: Its key: 1 to 256 characters.
    /// - Throws: ``WIFCredentialsError`` `invalidParameter` for an empty or over-long key or a value
    ///   that cannot be encoded.
    public mutating func setValue<T: Encodable>(_ value: T, forKey key: String) throws(WIFCredentialsError) {
        try Self.check(key: key)
        do {
            self.items[key] = try Self.encoder.encode(value)
        } catch {
            throw .invalidParameter("the value for '\(key)' cannot be encoded as JSON: \(type(of: error))")
        }
    }

    /// Removes the value stored under `key`.
    /// - Parameter key: The value's key.
    /// - Returns: Whether there was one.
    @discardableResult
    public mutating func removeValue(forKey key: String) -> Bool {
        self.items.removeValue(forKey: key) != nil
    }

    /// Removes every value whose key starts with `prefix`.
    /// - Parameter prefix: The start of the keys to remove.
    /// - Returns: How many values were removed.
    @discardableResult
    public mutating func removeValues(withPrefix prefix: String) -> Int {
        let keys = self.items.keys.filter { $0.hasPrefix(prefix) }
        for key in keys { self.items.removeValue(forKey: key) }
        return keys.count
    }

    /// The raw JSON stored under `key`, for tools that edit values without their type.
    /// - Parameter key: The value's key.
    /// - Returns: The JSON, or `nil` when nothing is stored under `key`.
    public func json(forKey key: String) -> Data? { self.items[key] }

    /// Stores raw JSON under `key`.
    /// - Parameters:
    ///   - json: A JSON text (object, array, string, number, `true`, `false` or `null`).
    ///   - key: Its key: 1 to 256 characters.
    /// - Throws: ``WIFCredentialsError`` `invalidParameter` for a bad key or text that is not JSON.
    public mutating func setJSON(_ json: Data, forKey key: String) throws(WIFCredentialsError) {
        try Self.check(key: key)
        // As deep as anything a caller might keep; the default depth is for documents people write.
        guard (try? JSONParser.parse(Array(json), options: JSONParser.Options(maximumDepth: 512))) != nil else {
            throw .invalidParameter("the value for '\(key)' is not JSON text")
        }
        self.items[key] = json
    }

    /// Cached AWS credentials stored under `key`.
    /// - Parameter key: The cache entry's key.
    /// - Returns: The credentials, or `nil` when nothing is stored under `key`.
    /// - Throws: ``WIFCredentialsError`` `storeDamaged` when the value there is not credentials.
    public func credentials(forKey key: String) throws(WIFCredentialsError) -> AWSCredentials? {
        try self.value(CredentialsRecord.self, forKey: key)?.credentials
    }

    /// Stores AWS credentials (secret key and session token included) under `key`, or removes the
    /// entry when `credentials` is `nil`.
    /// - Parameters:
    ///   - credentials: The credentials to keep.
    ///   - key: The cache entry's key: 1 to 256 characters.
    /// - Throws: ``WIFCredentialsError`` `invalidParameter` for a bad key.
    public mutating func setCredentials(_ credentials: AWSCredentials?, forKey key: String) throws(WIFCredentialsError) {
        guard let credentials else {
            self.removeValue(forKey: key)
            return
        }
        try self.setValue(CredentialsRecord(credentials), forKey: key)
    }

    public var description: String {
        "StoreDocument(keys: [\(self.keys.joined(separator: ", "))])"
    }

    /// The stored form of `AWSCredentials`, which is not itself `Codable` so that it is never encoded
    /// by accident.
    struct CredentialsRecord: Codable {
        var accessKeyId: String
        var secretAccessKey: String
        var sessionToken: String?
        var expiration: Date?
        var accountId: String?

        init(_ credentials: AWSCredentials) {
            self.accessKeyId = credentials.accessKeyId
            self.secretAccessKey = credentials.secretAccessKey
            self.sessionToken = credentials.sessionToken
            self.expiration = credentials.expiration
            self.accountId = credentials.accountId
        }

        var credentials: AWSCredentials {
            AWSCredentials(
                accessKeyId: self.accessKeyId, secretAccessKey: self.secretAccessKey, sessionToken: self.sessionToken,
                expiration: self.expiration, accountId: self.accountId)
        }
    }

    static func check(key: String) throws(WIFCredentialsError) {
        guard !key.isEmpty, key.count <= Self.maximumKeyLength else {
            throw .invalidParameter("a store key must be 1 to \(Self.maximumKeyLength) characters, not \(key.count)")
        }
    }

    static func describe(decodingError error: any Error) -> String {
        switch error as? DecodingError {
        case .keyNotFound(let key, _): "no '\(key.stringValue)'"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            context.codingPath.isEmpty ? context.debugDescription : "at \(context.codingPath.map(\.stringValue).joined(separator: "."))"
        default: "\(type(of: error))"
        }
    }

    // MARK: The document's own encoding

    /// The plaintext inside the store: `{"formatVersion": 1, "items": {key: base64 of the value's JSON}}`.
    struct Encoded: Codable {
        var formatVersion: Int
        var items: [String: Data]
    }

    static let formatVersion = 1

    func encoded() throws(WIFCredentialsError) -> [UInt8] {
        do {
            return Array(try Self.encoder.encode(Encoded(formatVersion: Self.formatVersion, items: self.items)))
        } catch {
            throw .invalidParameter("the store document cannot be encoded: \(type(of: error))")
        }
    }

    init(decoding plaintext: [UInt8], path: String) throws(WIFCredentialsError) {
        let encoded: Encoded
        do {
            encoded = try Self.decoder.decode(Encoded.self, from: Data(plaintext))
        } catch {
            throw .storeDamaged("the store \(path) opened but its contents are not a store document: \(Self.describe(decodingError: error))")
        }
        guard encoded.formatVersion <= Self.formatVersion else {
            throw .storeNewerVersion(
                "the store \(path) holds a document of version \(encoded.formatVersion), newer than version \(Self.formatVersion) that this version reads; use a newer release to open it"
            )
        }
        self.items = encoded.items
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    static let decoder = JSONDecoder()
}
