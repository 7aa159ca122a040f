import Foundation
import Testing
@testable import WIFCredentials
import WIFTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A private folder for one store test, removed by `remove()`.
struct StoreFolder {
    let url: URL

    init() throws {
        self.url = TemporaryFolder.url("wif-store-tests")
        try FileManager.default.createDirectory(at: self.url, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> URL { self.url.appendingPathComponent(name) }

    func remove() { try? FileManager.default.removeItem(at: self.url) }

    /// Every regular file under the folder, with its bytes.
    func contents() throws -> [(path: String, bytes: Data)] {
        let enumerator = FileManager.default.enumerator(at: self.url, includingPropertiesForKeys: [.isRegularFileKey])
        var files: [(String, Data)] = []
        while let item = enumerator?.nextObject() as? URL {
            if (try item.resourceValues(forKeys: [.isRegularFileKey])).isRegularFile == true {
                files.append((item.path, try Data(contentsOf: item)))
            }
        }
        return files
    }
}

enum StoreTesting {
    /// scrypt with 1 MiB of memory: keeps the tests quick; the default settings are tested once.
    static let quickScrypt: EncryptedStore.ScryptParameters = {
        do {
            return try EncryptedStore.ScryptParameters(costLog2: 10, blockSize: 8, parallelism: 1)
        } catch {
            preconditionFailure("the quick scrypt settings are valid")
        }
    }()

    static func passphraseStore(_ file: URL, _ passphrase: String = "correct horse battery staple") -> EncryptedStore {
        EncryptedStore(file: file, keySource: .passphrase(passphrase), configuration: .init(scrypt: Self.quickScrypt))
    }

    /// A document holding the kind of secrets a store is for.
    static func sampleDocument() throws -> StoreDocument {
        var document = StoreDocument()
        try document.setValue(SampleTokens(refreshToken: Self.refreshToken, idToken: Self.idToken), forKey: "oauth.work")
        try document.setCredentials(Self.credentials, forKey: "sts.cache.build")
        return document
    }

    static let refreshToken = "refresh-token-7f3a9c-must-stay-secret"
    static let idToken = "eyJhbGciOiJSUzI1NiJ9.id-token-body-must-stay-secret.signature"
    static let credentials = AWSCredentials(
        accessKeyId: "ASIAEXAMPLESTORE0001",
        secretAccessKey: "wJalrXUtnFEMI/K7MDENG/secret-in-the-store",
        sessionToken: "FwoGZXIvYXdzEJr//////////session-token-in-the-store",
        expiration: Date(timeIntervalSince1970: 1_900_000_000),
        accountId: "123456789012")

    /// The strings that must never appear in any file.
    static let secrets = [refreshToken, idToken, credentials.secretAccessKey, credentials.sessionToken ?? ""]

    /// The POSIX permission bits of a file.
    static func mode(_ url: URL) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    /// Asserts that `body` throws a `WIFCredentialsError` with `code` and returns it.
    @discardableResult
    static func expectError(
        _ code: WIFCredentialsError.Code,
        sourceLocation: SourceLocation = #_sourceLocation,
        _ body: () throws -> Void
    ) -> WIFCredentialsError? {
        do {
            try body()
            Issue.record("expected \(code), but nothing was thrown", sourceLocation: sourceLocation)
            return nil
        } catch let error as WIFCredentialsError {
            #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
            return error
        } catch {
            Issue.record("expected \(code), got \(error)", sourceLocation: sourceLocation)
            return nil
        }
    }
}

struct SampleTokens: Codable, Equatable {
    var refreshToken: String
    var idToken: String
}
