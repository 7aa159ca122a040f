import Foundation
import JWTKit
import Testing

@testable import WIFLocal

@Suite("Issuer signing key")
struct IssuerSigningKeyTests {
    @Test("The key and certificate are created once, private to the owner, and reused after a restart")
    func persistedOnce() async throws {
        try await withIdentityFixture(freshKey: true) { fixture in
            let first = try IssuerSigningKey.load(from: fixture.state.data, now: fixture.clock.now, subject: "wif.localhost")
            let keyPath = fixture.directory + "/keys/" + IssuerSigningKey.keyFileName
            let certificatePath = fixture.directory + "/keys/" + IssuerSigningKey.certificateFileName
            let attributes = try FileManager.default.attributesOfItem(atPath: keyPath)
            #expect((attributes[.posixPermissions] as? Int) == 0o600)
            let keyBefore = try Data(contentsOf: URL(fileURLWithPath: keyPath))
            let certificateBefore = try Data(contentsOf: URL(fileURLWithPath: certificatePath))
            #expect(String(decoding: keyBefore, as: UTF8.self).hasPrefix("-----BEGIN PRIVATE KEY-----"))
            #expect(String(decoding: certificateBefore, as: UTF8.self).hasPrefix("-----BEGIN CERTIFICATE-----"))

            // A restart: a new state over the same directory, later.
            fixture.clock.advance(by: 86_400)
            let reopened = try IdentityFixture(directory: fixture.directory, clock: fixture.clock)
            let second = try IssuerSigningKey.load(from: reopened.state.data, now: fixture.clock.now, subject: "wif.localhost")
            #expect(second.keyId == first.keyId)
            #expect(second.modulus == first.modulus)
            #expect(second.certificateDER == first.certificateDER)
            #expect(try Data(contentsOf: URL(fileURLWithPath: keyPath)) == keyBefore)
            #expect(try Data(contentsOf: URL(fileURLWithPath: certificatePath)) == certificateBefore)
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: fixture.directory + "/keys").filter { $0.hasSuffix(".tmp") }
            #expect(leftovers.isEmpty)
        }
    }

    @Test("Another data directory gets another key and key id")
    func newDirectoryNewKey() async throws {
        try await withIdentityFixture(freshKey: true) { first in
            try await withIdentityFixture(freshKey: true) { second in
                let firstKeyId = try first.stackKeyId()
                let secondKeyId = try second.stackKeyId()
                #expect(firstKeyId != secondKeyId)
            }
        }
    }

    @Test("A lost certificate is re-created for the same key")
    func certificateRecreated() async throws {
        try await withIdentityFixture(freshKey: true) { fixture in
            let first = try IssuerSigningKey.load(from: fixture.state.data, now: fixture.clock.now, subject: "wif.localhost")
            try FileManager.default.removeItem(atPath: fixture.directory + "/keys/" + IssuerSigningKey.certificateFileName)
            let second = try IssuerSigningKey.load(from: fixture.state.data, now: fixture.clock.now, subject: "wif.localhost")
            #expect(second.keyId == first.keyId)
            #expect(second.certificateDER != first.certificateDER)
        }
    }

    @Test("A certificate of another key is refused with a message naming both files")
    func mismatchedCertificate() async throws {
        try await withIdentityFixture(freshKey: true) { first in
            try await withIdentityFixture(freshKey: true) { second in
                _ = try first.stackKeyId()
                _ = try second.stackKeyId()
                let name = IssuerSigningKey.certificateFileName
                try FileManager.default.removeItem(atPath: first.directory + "/keys/" + name)
                try FileManager.default.copyItem(atPath: second.directory + "/keys/" + name, toPath: first.directory + "/keys/" + name)
                let error = #expect(throws: LocalStackError.self) {
                    try IssuerSigningKey.load(from: first.state.data, now: first.clock.now, subject: "wif.localhost")
                }
                #expect(error?.message.contains("is not for the key") == true)
            }
        }
    }

    @Test("A key file that is not an RSA key is refused, not replaced")
    func corruptKey() async throws {
        try await withIdentityFixture(freshKey: true) { fixture in
            let path = fixture.directory + "/keys/" + IssuerSigningKey.keyFileName
            try Data("not a key".utf8).write(to: URL(fileURLWithPath: path))
            let error = #expect(throws: LocalStackError.self) {
                try IssuerSigningKey.load(from: fixture.state.data, now: fixture.clock.now, subject: "wif.localhost")
            }
            #expect(error?.message.contains("remove it to create a new one") == true)
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "not a key")
        }
    }

    @Test("The key id is the RFC 7638 thumbprint")
    func thumbprintVector() {
        // The example key and thumbprint of RFC 7638, section 3.1.
        let modulus =
            "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMs"
            + "tn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbI"
            + "SD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw"
        #expect(IssuerSigningKey.thumbprint(modulus: modulus, exponent: "AQAB") == "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")
    }

    @Test("The modulus and exponent are those of the key in the file")
    func primitivesMatchFile() async throws {
        try await withIdentityFixture(freshKey: true) { fixture in
            let key = try IssuerSigningKey.load(from: fixture.state.data, now: fixture.clock.now, subject: "wif.localhost")
            let fromFile = try Insecure.RSA.PrivateKey(pem: fixture.stackPrivateKeyPEM()).publicKey.getKeyPrimitives()
            #expect(IdentityJWT.decodeBase64URL(key.modulus) == fromFile.modulus)
            #expect(IdentityJWT.decodeBase64URL(key.exponent) == fromFile.publicExponent)
            #expect(key.exponent == "AQAB")
            #expect(fromFile.modulus.count == 256)
        }
    }
}
