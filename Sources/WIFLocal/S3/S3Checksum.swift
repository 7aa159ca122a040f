import WIFCredentials

/// A checksum a request carries (`x-amz-checksum-*` as a header or an `aws-chunked` trailer) and the value
/// it expects; the digests themselves are computed by ``SigV4Checksum``, the same code the client sends them with.
struct S3Checksum: Sendable, Hashable {
    /// The algorithm.
    typealias Algorithm = SigV4Checksum
    /// A running computation of one algorithm.
    typealias Hasher = SigV4Checksum.Hasher

    /// The algorithm.
    var algorithm: Algorithm
    /// The expected value as sent (base64).
    var expected: String

    /// The checksum of a whole buffer, for tests and small bodies.
    static func compute(_ algorithm: Algorithm, of bytes: [UInt8]) -> String {
        algorithm.compute(bytes)
    }

    /// Whether a value is well-formed for its algorithm: base64 of exactly the digest's length.
    static func isWellFormed(_ value: String, for algorithm: Algorithm) -> Bool {
        algorithm.isWellFormed(value)
    }
}
