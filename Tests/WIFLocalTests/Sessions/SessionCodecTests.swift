import Crypto
import Foundation
import Testing

@testable import WIFLocal

/// Session tokens: what is sealed opens to the same session, under the same key only, and the hand-written
/// JSON inside decodes with the session's `Codable` form.
struct SessionCodecTests {
    static let full = LocalSession(
        accessKeyId: "ASIAABCDEFGHIJKLMNOP", secretAccessKey: "secret/with+chars", issuedAt: 1_700_000_000,
        expiresAt: 1_700_003_600, roleArn: "arn:aws:iam::000000000000:role/path/personal-store-oidc", roleId: "AROAEXAMPLE",
        sessionName: "alice@example.com",
        identity: IdentityRecord(
            kind: .oidc, issuer: "https://wif.localhost", subject: "a \"quoted\" \\ sub\u{1}ject — ✓ 𝄞",
            audiences: ["wif-local", "other"], authorizedParty: "wif-local", amr: ["pwd", "mfa"],
            principalTags: ["team": ["blue"], "projects": ["a", "b"], "empty": []]),
        sessionPolicy: #"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:*","Resource":"*"}]}"#,
        policyArns: ["arn:aws:iam::aws:policy/ReadOnly"], sourceIdentity: "alice\n")

    static let minimal = LocalSession(
        accessKeyId: "ASIAZZZZZZZZZZZZZZZZ", secretAccessKey: "minimal-secret-access-key", issuedAt: -5, expiresAt: 0, roleArn: "r", roleId: "i",
        sessionName: "n", identity: IdentityRecord(kind: .facebook, subject: "1001", audiences: []))

    @Test("the hand-written JSON decodes to the same session", arguments: [Self.full, Self.minimal])
    func sealedJSONDecodes(session: LocalSession) throws {
        let decoded = try JSONDecoder().decode(LocalSession.self, from: Data(session.sealedJSON()))
        #expect(decoded == session)
    }

    @Test("a sealed session opens to itself, and not under another key or altered", arguments: [Self.full, Self.minimal])
    func sealAndOpen(session: LocalSession) throws {
        let codec = SessionCodec(key: SymmetricKey(size: .bits256))
        let token = try codec.seal(session)
        #expect(codec.open(token) == session)
        #expect(!token.contains(session.secretAccessKey))
        #expect(SessionCodec(key: SymmetricKey(size: .bits256)).open(token) == nil)
        var bytes = try #require(Data(base64Encoded: token))
        bytes[bytes.count / 2] ^= 0x01
        #expect(codec.open(bytes.base64EncodedString()) == nil)
    }

    @Test("the session cache finds a token only by its exact text, not by a canonically equivalent one")
    func sessionCacheKeysAreExact() throws {
        let codec = SessionCodec(key: SymmetricKey(size: .bits256))
        let cache = SessionTokenCache(codec: codec, capacity: 8)
        // A token holding a "K", which U+212A KELVIN SIGN is canonically equivalent to.
        var token = ""
        for _ in 0..<16 where !token.contains("K") { token = try codec.seal(Self.full) }
        try #require(token.contains("K"))
        #expect(cache.session(for: token) == Self.full)
        let lookalike = token.replacingOccurrences(of: "K", with: "\u{212A}")
        #expect(lookalike == token)  // equal as Swift strings…
        #expect(cache.session(for: lookalike) == nil)  // …yet not the session's token
    }

    @Test("secret keys are 40 characters of base64 without '+', and differ; request ids are version 4 UUIDs")
    func secretsAndRequestIds() {
        let secrets = (0..<64).map { _ in SessionCodec.makeSecretAccessKey() }
        #expect(Set(secrets).count == 64)
        let base64 = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/".utf8)
        #expect(secrets.allSatisfy { $0.utf8.count == 40 && $0.utf8.allSatisfy(base64.contains) })
        let ids = (0..<64).map { _ in RequestID.uuid() }
        #expect(Set(ids).count == 64)
        for id in ids {
            let parsed = UUID(uuidString: id)
            #expect(parsed != nil && id == id.lowercased(), "\(id)")
            let characters = Array(id)
            #expect(characters[14] == "4" && "89ab".contains(characters[19]), "\(id)")
        }
    }

    @Test("an assumed role's ARN names the role's last path element and the session")
    func assumedRoleArns() {
        func arn(_ roleArn: String) -> String {
            var session = Self.minimal
            session.roleArn = roleArn
            return session.assumedRoleArn
        }
        let name = Self.minimal.sessionName
        #expect(arn("arn:aws:iam::123456789012:role/team/app") == "arn:aws:sts::123456789012:assumed-role/app/\(name)")
        #expect(arn("arn:aws-cn:iam::1:role/r") == "arn:aws-cn:sts::1:assumed-role/r/\(name)")
        #expect(arn("arn:aws:iam::1:role/a/") == "arn:aws:sts::1:assumed-role/a/\(name)")
    }

    @Test("form bodies are recognised by their media type in any case, with parameters and spaces")
    func formContentTypes() {
        for type in ["application/x-www-form-urlencoded", "Application/X-WWW-Form-Urlencoded; charset=utf-8", "  application/x-www-form-urlencoded ;x=y"] {
            #expect(STSParameters.isForm(type), "\(type)")
        }
        for type in [nil, "", "application/json", "application/x-www-form-urlencodedx", "application/x-www-form-urlencoded-"] {
            #expect(!STSParameters.isForm(type), "\(type ?? "nil")")
        }
    }

    @Test("role and policy ARNs are told from other ARNs")
    func arnShapes() {
        for arn in ["arn:aws:iam::123456789012:role/app", "arn:aws-cn:iam::123456789012:role/team/app"] {
            #expect(STSService.isRoleARN(arn), "\(arn)")
        }
        for arn in [
            "arn:aws:iam::123456789012:role/", "arn:aws:iam::123456789012:role/app/", "arn:aws:iam::12345678901:role/app",
            "arn:aws:iam:us-east-1:123456789012:role/app", "arn:aws:s3:::bucket/role/app", "arn::iam::123456789012:role/app",
            "arn:aws:iam::123456789012:user/app", "arn:aws:iam::aws:role/app", "ARN:aws:iam::123456789012:role/app", "",
        ] {
            #expect(!STSService.isRoleARN(arn), "\(arn)")
        }
        #expect(STSService.isPolicyARN("arn:aws:iam::aws:policy/ReadOnlyAccess"))
        #expect(STSService.isPolicyARN("arn:aws:iam::123456789012:policy/team/read"))
        #expect(!STSService.isPolicyARN("arn:aws:iam::aws:policy/"))
        #expect(!STSService.isPolicyARN("arn:aws:iam::123456789012:role/read"))
    }

    @Test("access key ids are ASIA and 16 of the 32 base-32 symbols, and differ")
    func accessKeyIds() {
        let ids = (0..<2000).map { _ in SessionCodec.makeAccessKeyId() }
        let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        for id in ids {
            #expect(id.count == 20 && id.hasPrefix("ASIA"))
            #expect(id.dropFirst(4).allSatisfy(alphabet.contains))
        }
        #expect(Set(ids).count == ids.count)
        // Every symbol turns up in every position: no bits are stuck.
        for position in 4..<20 {
            let seen = Set(ids.map { Array($0)[position] })
            #expect(seen == alphabet, "position \(position)")
        }
        #expect(SessionCodec.makeAccessKeyId(prefix: "AKIA").hasPrefix("AKIA"))
    }
}
