import Crypto
import Synchronization

/// A SigV4 signing key: `HMAC(HMAC(HMAC(HMAC("AWS4" + secret, date), region), service), "aws4_request")`,
/// kept with SHA-256 states that have already absorbed the HMAC pads, so each signature costs
/// only the hashing of its string to sign.
///
/// Holds secret material: it has no useful description.
package struct SigV4SigningKey: Sendable, Equatable, CustomStringConvertible {
    /// The derived key.
    package let key: SymmetricKey
    /// SHA-256 after the inner pad (key XOR 0x36) — RFC 2104's first hash, ready for a message.
    private let inner: SHA256
    /// SHA-256 after the outer pad (key XOR 0x5c), ready for the inner digest.
    private let outer: SHA256

    /// Derives the key for a secret, date, region and service.
    /// - Parameters:
    ///   - secretAccessKey: The secret access key.
    ///   - day: The date as `yyyyMMdd`.
    ///   - region: The region, such as `us-east-1`.
    ///   - service: The service's signing name, such as `s3`.
    package init(secretAccessKey: String, day: some StringProtocol, region: String, service: String) {
        var secret = Array("AWS4".utf8)
        SigV4Bytes.append(secretAccessKey, to: &secret)
        let dateKey = HMAC<SHA256>.authenticationCode(for: Array(day.utf8), using: SymmetricKey(data: secret))
        let regionKey = HMAC<SHA256>.authenticationCode(for: Array(region.utf8), using: SymmetricKey(data: dateKey))
        let serviceKey = HMAC<SHA256>.authenticationCode(for: Array(service.utf8), using: SymmetricKey(data: regionKey))
        let signingKey = HMAC<SHA256>.authenticationCode(
            for: Array(SigV4Canonical.terminator.utf8), using: SymmetricKey(data: serviceKey))
        self.key = SymmetricKey(data: signingKey)
        // The key is 32 bytes, shorter than SHA-256's 64-byte block, so it is zero-padded.
        var innerPad = [UInt8](repeating: 0x36, count: SHA256.blockByteCount)
        var outerPad = [UInt8](repeating: 0x5C, count: SHA256.blockByteCount)
        signingKey.withUnsafeBytes { keyBytes in
            for index in 0..<keyBytes.count {
                innerPad[index] ^= keyBytes[index]
                outerPad[index] ^= keyBytes[index]
            }
        }
        var inner = SHA256()
        innerPad.withUnsafeBytes { inner.update(bufferPointer: $0) }
        var outer = SHA256()
        outerPad.withUnsafeBytes { outer.update(bufferPointer: $0) }
        self.inner = inner
        self.outer = outer
    }

    /// HMAC-SHA256 of a message under this key, the same value as
    /// `HMAC<SHA256>.authenticationCode(for:using: key)`.
    package func authenticationCode(for message: UnsafeRawBufferPointer) -> SHA256.Digest {
        var inner = self.inner
        inner.update(bufferPointer: message)
        let innerDigest = inner.finalize()
        var outer = self.outer
        innerDigest.withUnsafeBytes { outer.update(bufferPointer: $0) }
        return outer.finalize()
    }

    package static func == (lhs: Self, rhs: Self) -> Bool { lhs.key == rhs.key }

    package var description: String { "SigV4SigningKey(<redacted>)" }
}

/// Signing keys derived once per secret, date, region and service, shared by every signer.
///
/// A key stays valid for a whole UTC day, and deriving one costs four HMACs, more than the rest of
/// a signature; so signers look keys up here. The cache is bounded: when full, the oldest entry is
/// dropped. Safe to use from any thread.
package final class SigV4SigningKeyCache: Sendable {
    private struct Entry: Hashable {
        var secretAccessKey: String
        var day: String
        var region: String
        var service: String
    }

    private struct State {
        var keys: [Entry: SigV4SigningKey] = [:]
        /// Insertion order, oldest first, for eviction.
        var order: [Entry] = []
        var derivations = 0
    }

    /// The cache signers use unless given another.
    package static let shared = SigV4SigningKeyCache(capacity: 256)

    /// The most keys kept at once.
    package let capacity: Int
    private let state: Mutex<State>

    /// Creates an empty cache.
    /// - Parameter capacity: The most keys kept at once (at least 1).
    package init(capacity: Int) {
        self.capacity = max(1, capacity)
        self.state = Mutex(State())
    }

    /// Returns the signing key for a secret, date, region and service, deriving it on first use.
    /// - Parameters:
    ///   - secretAccessKey: The secret access key.
    ///   - day: The date as `yyyyMMdd`.
    ///   - region: The region.
    ///   - service: The service's signing name.
    /// - Returns: The signing key.
    package func signingKey(secretAccessKey: String, day: some StringProtocol, region: String, service: String)
        -> SigV4SigningKey
    {
        let entry = Entry(secretAccessKey: secretAccessKey, day: String(day), region: region, service: service)
        return self.state.withLock { state in
            if let key = state.keys[entry] { return key }
            let key = SigV4SigningKey(secretAccessKey: secretAccessKey, day: day, region: region, service: service)
            if state.order.count >= self.capacity {
                let oldest = state.order.removeFirst()
                state.keys[oldest] = nil
            }
            state.keys[entry] = key
            state.order.append(entry)
            state.derivations += 1
            return key
        }
    }

    /// The key one signer used last, so that signing again on the same day needs no lookup in
    /// the shared cache. Each signer value owns one, replaced when its credentials, region or
    /// service change.
    final class LastKey: Sendable {
        private let state = Mutex<(day: String, key: SigV4SigningKey)?>(nil)

        func key(for day: String) -> SigV4SigningKey? {
            self.state.withLock { state in
                guard let state, state.day == day else { return nil }
                return state.key
            }
        }

        func remember(_ key: SigV4SigningKey, for day: String) {
            self.state.withLock { $0 = (day, key) }
        }
    }

    /// How many keys are cached.
    package var count: Int { self.state.withLock { $0.keys.count } }

    /// How many keys have been derived since the cache was created.
    package var derivationCount: Int { self.state.withLock { $0.derivations } }
}
