import Crypto
import Foundation
import Testing
@testable import WIFSigV4

@Suite struct SigV4SigningKeyCacheTests {
    static let secret = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"

    @Test func derivesTheDocumentedKey() {
        // The signing key AWS documents for this secret on 2012-02-15 in us-east-1 for IAM.
        let key = SigV4SigningKey(secretAccessKey: Self.secret, day: "20120215", region: "us-east-1", service: "iam")
        #expect(
            key.key.withUnsafeBytes { SigV4Bytes.hexString(Array($0)) }
                == "f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d")
        #expect(key.description == "SigV4SigningKey(<redacted>)")
    }

    @Test func sameInputsReturnTheCachedKey() {
        let cache = SigV4SigningKeyCache(capacity: 8)
        let first = cache.signingKey(secretAccessKey: Self.secret, day: "20240229", region: "eu-west-3", service: "s3")
        let second = cache.signingKey(secretAccessKey: Self.secret, day: "20240229", region: "eu-west-3", service: "s3")
        #expect(first == second)
        #expect(cache.derivationCount == 1)
        #expect(cache.count == 1)
    }

    @Test func eachInputChangesTheKey() {
        let cache = SigV4SigningKeyCache(capacity: 8)
        let base = cache.signingKey(secretAccessKey: Self.secret, day: "20240229", region: "eu-west-3", service: "s3")
        let otherDay = cache.signingKey(secretAccessKey: Self.secret, day: "20240301", region: "eu-west-3", service: "s3")
        let otherRegion = cache.signingKey(secretAccessKey: Self.secret, day: "20240229", region: "us-east-1", service: "s3")
        let otherService = cache.signingKey(secretAccessKey: Self.secret, day: "20240229", region: "eu-west-3", service: "sts")
        let otherSecret = cache.signingKey(secretAccessKey: "other", day: "20240229", region: "eu-west-3", service: "s3")
        #expect(Set([base, otherDay, otherRegion, otherService, otherSecret].map { $0.key.withUnsafeBytes { Array($0) } }).count == 5)
        #expect(cache.derivationCount == 5)
    }

    @Test func isBoundedAndDropsTheOldest() {
        let cache = SigV4SigningKeyCache(capacity: 2)
        for day in ["20240101", "20240102", "20240103"] {
            _ = cache.signingKey(secretAccessKey: Self.secret, day: day, region: "r", service: "s")
        }
        #expect(cache.count == 2)
        #expect(cache.derivationCount == 3)
        _ = cache.signingKey(secretAccessKey: Self.secret, day: "20240103", region: "r", service: "s")
        #expect(cache.derivationCount == 3)
        _ = cache.signingKey(secretAccessKey: Self.secret, day: "20240101", region: "r", service: "s")
        #expect(cache.derivationCount == 4)
        #expect(cache.count == 2)
    }

    @Test func concurrentLookupsDeriveOnce() async {
        let cache = SigV4SigningKeyCache(capacity: 8)
        let keys = await withTaskGroup(of: SigV4SigningKey.self) { group in
            for _ in 0..<64 {
                group.addTask {
                    cache.signingKey(secretAccessKey: Self.secret, day: "20240229", region: "eu-west-3", service: "s3")
                }
            }
            var keys: [SigV4SigningKey] = []
            for await key in group { keys.append(key) }
            return keys
        }
        #expect(keys.count == 64)
        #expect(keys.allSatisfy { $0 == keys[0] })
        #expect(cache.derivationCount == 1)
    }

    @Test func changingTheSignerChangesTheKey() throws {
        let cache = SigV4SigningKeyCache(capacity: 8)
        let request = SigV4Request(method: "GET", host: "bucket.s3.amazonaws.com", path: "/key")
        let date = Date(timeIntervalSince1970: 1_709_193_600)
        var signer = SigV4Signer(
            credentials: AWSCredentials(accessKeyId: "AKIDEXAMPLE", secretAccessKey: Self.secret),
            region: "eu-west-3", service: "s3", keyCache: cache)
        let first = try signer.signingHeaders(for: request, payload: .empty, date: date)

        signer.credentials = AWSCredentials(accessKeyId: "AKIDEXAMPLE", secretAccessKey: "another-secret")
        let second = try signer.signingHeaders(for: request, payload: .empty, date: date)
        #expect(second != first)
        #expect(cache.derivationCount == 2)

        signer.region = "us-east-1"
        let third = try signer.signingHeaders(for: request, payload: .empty, date: date)
        #expect(third != second)
        #expect(cache.derivationCount == 3)

        signer.region = "eu-west-3"
        signer.credentials = AWSCredentials(accessKeyId: "AKIDEXAMPLE", secretAccessKey: Self.secret)
        #expect(try signer.signingHeaders(for: request, payload: .empty, date: date) == first)
        #expect(cache.derivationCount == 3)

        signer.region = ""
        #expect(throws: SigV4Error.signing("")) {
            try signer.signingHeaders(for: request, payload: .empty, date: date)
        }
    }

    @Test func handRolledHMACMatchesSwiftCrypto() throws {
        let key = SigV4SigningKey(secretAccessKey: Self.secret, day: "20240229", region: "eu-west-3", service: "s3")
        for length in [0, 1, 55, 56, 63, 64, 65, 150, 1_000] {
            let message = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
            let expected = HMAC<SHA256>.authenticationCode(for: message, using: key.key)
            let actual = message.withUnsafeBytes { key.authenticationCode(for: $0) }
            #expect(Array(actual) == Array(expected), "length \(length)")
        }
    }

    @Test func signersShareKeysPerDay() throws {
        let cache = SigV4SigningKeyCache(capacity: 8)
        let credentials = AWSCredentials(accessKeyId: "AKIDEXAMPLE", secretAccessKey: Self.secret)
        let request = SigV4Request(method: "GET", host: "bucket.s3.amazonaws.com", path: "/key")
        let morning = Date(timeIntervalSince1970: 1_709_193_600)  // 2024-02-29T08:00:00Z
        for offset in [0.0, 3_600, 36_000] {
            let signer = SigV4Signer(credentials: credentials, region: "eu-west-3", service: "s3", keyCache: cache)
            _ = try signer.signingHeaders(for: request, payload: .empty, date: morning.addingTimeInterval(offset))
        }
        #expect(cache.derivationCount == 1)
        let signer = SigV4Signer(credentials: credentials, region: "eu-west-3", service: "s3", keyCache: cache)
        _ = try signer.signingHeaders(for: request, payload: .empty, date: morning.addingTimeInterval(86_400))
        #expect(cache.derivationCount == 2)
    }
}
