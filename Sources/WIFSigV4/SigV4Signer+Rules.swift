extension SigV4Signer {
    /// How a service expects requests to be canonicalised. Services differ in a few places, and
    /// signing with the wrong rules gives a signature the service rejects.
    ///
    /// Use ``s3`` for Amazon S3 and ``standard`` for every other service (STS included), or
    /// ``for(service:)`` to pick by name. The properties are public so unusual services and test
    /// suites can combine them.
    public struct Rules: Sendable, Hashable {
        /// Removes `.` and `..` segments and repeated slashes from the path before encoding it.
        /// S3 keys may contain all of these, so S3 signs the path as sent.
        public var normalizesPath: Bool
        /// Percent-encodes the already-encoded path once more (`%20` becomes `%2520`), as every
        /// service but S3 expects.
        public var encodesPathTwice: Bool
        /// Adds an `x-amz-content-sha256` header holding the payload hash (or `UNSIGNED-PAYLOAD`)
        /// and signs it, when signing with the `Authorization` header. S3 requires the header.
        public var signsContentSHA256Header: Bool
        /// Includes the session token in the signature. When `false` the token is still sent
        /// (`X-Amz-Security-Token` header or query parameter) but added after signing, as a few
        /// services (AWS IoT WebSocket URLs) require.
        public var signsSessionToken: Bool

        /// Creates a set of rules.
        /// - Parameters:
        ///   - normalizesPath: Remove dot segments and repeated slashes from the path.
        ///   - encodesPathTwice: Percent-encode the encoded path again.
        ///   - signsContentSHA256Header: Add and sign `x-amz-content-sha256`.
        ///   - signsSessionToken: Sign the session token rather than add it afterwards.
        public init(
            normalizesPath: Bool,
            encodesPathTwice: Bool,
            signsContentSHA256Header: Bool,
            signsSessionToken: Bool = true
        ) {
            self.normalizesPath = normalizesPath
            self.encodesPathTwice = encodesPathTwice
            self.signsContentSHA256Header = signsContentSHA256Header
            self.signsSessionToken = signsSessionToken
        }

        /// The rules of every service except S3: normalised path, encoded twice, no
        /// `x-amz-content-sha256` header.
        public static let standard = Rules(normalizesPath: true, encodesPathTwice: true, signsContentSHA256Header: false)

        /// Amazon S3's rules: the path is signed as sent (not normalised, not encoded again) and
        /// `x-amz-content-sha256` is added and signed.
        public static let s3 = Rules(normalizesPath: false, encodesPathTwice: false, signsContentSHA256Header: true)

        /// The rules a service signs with: ``s3`` for `s3`, `s3-object-lambda` and `s3express`,
        /// ``standard`` for everything else.
        /// - Parameter service: The service's signing name, such as `s3` or `sts`.
        /// - Returns: The rules to sign that service's requests with.
        public static func `for`(service: String) -> Rules {
            switch service {
            case "s3", "s3-object-lambda", "s3express": return .s3
            default: return .standard
            }
        }
    }
}
