import Foundation
import Testing
import WIFCredentials

/// Reading and changing what `wif-tool` keeps in its encrypted store, as a test that holds the key can.
extension StoreFixture {
    /// `$WIF_HOME/secrets.enc`.
    var secretsFile: URL { self.wifHome.appendingPathComponent("secrets.enc") }
    /// `$WIF_HOME/secrets.key`, the key made when no passphrase or key file is given.
    var secretsKeyFile: URL { self.wifHome.appendingPathComponent("secrets.key") }

    /// The store opened with its generated key file, or with `passphrase`.
    func secretStore(passphrase: String? = nil) -> EncryptedStore {
        EncryptedStore(file: self.secretsFile, keySource: passphrase.map { .passphrase($0) } ?? .generatedKeyFile)
    }

    /// The store key of an account's sign-in.
    static func signInKey(_ account: String?) -> String { "wif-tool.signin.\(account ?? "default")" }

    /// The stored sign-in of an account as a JSON object (dates as seconds since 2001), or `nil`.
    func storedSession(account: String? = nil, passphrase: String? = nil) throws -> [String: Any]? {
        guard let json = try self.secretStore(passphrase: passphrase).load().json(forKey: Self.signInKey(account)) else { return nil }
        return try JSONSerialization.jsonObject(with: json) as? [String: Any]
    }

    /// Changes the stored sign-in of an account.
    func editStoredSession(account: String? = nil, _ body: (inout [String: Any]) throws -> Void) throws {
        try self.secretStore().update { document in
            let key = Self.signInKey(account)
            let json = try #require(document.json(forKey: key), "no stored sign-in for \(key)")
            var object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
            try body(&object)
            try document.setJSON(try JSONSerialization.data(withJSONObject: object), forKey: key)
        }
    }

    /// Sets the stored credentials' expiry in the past, so the next command must renew them.
    func expireStoredCredentials(account: String? = nil) throws {
        try self.editStoredSession(account: account) { stored in
            var credentials = try #require(stored["credentials"] as? [String: Any])
            credentials["expiration"] = Self.storedDate(2020)
            stored["credentials"] = credentials
        }
    }

    /// 1 January of `year` as stored: seconds since 1 January 2001.
    static func storedDate(_ year: Int) -> Double {
        var components = DateComponents()
        components.year = year
        components.month = 1
        components.day = 1
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
        return (calendar.date(from: components) ?? Date.distantPast).timeIntervalSinceReferenceDate
    }

    /// Every regular file under `folder` with its bytes.
    static func files(under folder: URL) throws -> [(path: String, bytes: Data)] {
        let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey])
        var files: [(String, Data)] = []
        while let item = enumerator?.nextObject() as? URL {
            if (try item.resourceValues(forKeys: [.isRegularFileKey])).isRegularFile == true {
                files.append((item.path, try Data(contentsOf: item)))
            }
        }
        return files
    }

    /// The POSIX permission bits of a file.
    static func mode(_ url: URL) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }
}
