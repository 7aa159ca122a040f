import WIFCredentials
import WIFFoundation

extension S3Client {
    /// How an ``S3Client`` reaches S3, checks bodies, retries and splits transfers.
    public struct Configuration: Sendable, Hashable {
        /// The region to sign for and whose endpoint to call (`https://s3.<region>.amazonaws.com`).
        ///
        /// `nil` reads `AWS_REGION`, then `AWS_DEFAULT_REGION` from the environment given to the
        /// client, and falls back to `us-east-1`.
        public var region: String?
        /// An explicit endpoint URL, such as `http://127.0.0.1:9000` for a local S3 server. It wins over
        /// `AWS_ENDPOINT_URL_S3` and `AWS_ENDPOINT_URL`, which win over the regional endpoint. A path
        /// after the host is kept in front of every request's path.
        public var endpoint: String?
        /// Path-style or virtual-hosted-style requests.
        public var addressingStyle: AddressingStyle
        /// The checksum sent with uploads for S3 to verify, and stored with the object.
        public var checksumAlgorithm: ChecksumAlgorithm
        /// Whether upload bodies are signed with their SHA-256. When `false`, bodies sent over HTTPS
        /// are marked `UNSIGNED-PAYLOAD` (TLS protects them; the checksum still lets S3 verify them);
        /// over plain HTTP they are always signed.
        public var signsPayload: Bool
        /// How failed requests are retried.
        public var retry: Retry
        /// How long a request may wait for S3's answer to begin.
        public var timeout: Duration
        /// How large transfers are split and run in parallel.
        public var transfer: Transfer

        /// Creates a configuration.
        /// - Parameters:
        ///   - region: The region, or `nil` to read it from the environment.
        ///   - endpoint: An endpoint URL that overrides the environment and the regional default.
        ///   - addressingStyle: Path-style or virtual-hosted requests; ``AddressingStyle/auto`` by default.
        ///   - checksumAlgorithm: The upload checksum; SHA-256 by default.
        ///   - signsPayload: Whether upload bodies are signed over HTTPS too.
        ///   - retry: How failed requests are retried.
        ///   - timeout: How long a request may wait for the answer to begin.
        ///   - transfer: Multipart and parallel download settings.
        public init(
            region: String? = nil,
            endpoint: String? = nil,
            addressingStyle: AddressingStyle = .auto,
            checksumAlgorithm: ChecksumAlgorithm = .sha256,
            signsPayload: Bool = true,
            retry: Retry = Retry(),
            timeout: Duration = .seconds(120),
            transfer: Transfer = Transfer()
        ) {
            self.region = region
            self.endpoint = endpoint
            self.addressingStyle = addressingStyle
            self.checksumAlgorithm = checksumAlgorithm
            self.signsPayload = signsPayload
            self.retry = retry
            self.timeout = timeout
            self.transfer = transfer
        }
    }

    /// Where the bucket name goes in a request.
    public struct AddressingStyle: Sendable, Hashable, CustomStringConvertible {
        enum Base: String, Sendable, Hashable {
            case auto
            case path
            case virtualHosted
        }

        let base: Base

        /// Virtual-hosted style on AWS endpoints for buckets whose names are valid host labels without
        /// dots; path style for custom endpoints, IP addresses, `localhost` and dotted bucket names
        /// (whose host names would not match the TLS certificate).
        public static let auto = AddressingStyle(base: .auto)
        /// `https://s3.<region>.amazonaws.com/<bucket>/<key>`: the bucket is the first path segment.
        public static let path = AddressingStyle(base: .path)
        /// `https://<bucket>.s3.<region>.amazonaws.com/<key>`: the bucket is part of the host name.
        public static let virtualHosted = AddressingStyle(base: .virtualHosted)

        /// `auto`, `path` or `virtualHosted`.
        public var description: String { self.base.rawValue }
    }

    /// A checksum S3 verifies on upload and keeps with the object.
    public struct ChecksumAlgorithm: Sendable, Hashable, CustomStringConvertible {
        enum Base: String, Sendable, Hashable {
            case sha256 = "SHA256"
            case crc32 = "CRC32"
            case none = "NONE"
        }

        let base: Base

        /// `x-amz-checksum-sha256`: the same SHA-256 that signs the body, so it costs nothing extra.
        public static let sha256 = ChecksumAlgorithm(base: .sha256)
        /// `x-amz-checksum-crc32`: cheaper than SHA-256 when bodies are not signed.
        public static let crc32 = ChecksumAlgorithm(base: .crc32)
        /// No checksum header; a signed body is still verified through its signed SHA-256.
        public static let none = ChecksumAlgorithm(base: .none)

        /// `SHA256`, `CRC32` or `NONE`, as S3's `x-amz-checksum-algorithm` names them.
        public var description: String { self.base.rawValue }
    }

    /// Jittered exponential backoff for failures that may pass: 5xx answers, throttling (`429`,
    /// `SlowDown`), timeouts and broken connections, with ``S3RetryDefaults``.
    public typealias Retry = RetryBackoff<S3RetryDefaults>

    /// How large objects move: multipart uploads and parallel ranged downloads.
    public struct Transfer: Sendable, Hashable {
        /// S3's smallest part (except the last one of an upload): 5 MiB.
        public static let minimumPartSize = 5 * 1024 * 1024
        /// The smallest download range accepted: 1 MiB.
        public static let minimumDownloadPartSize = 1024 * 1024
        /// S3's largest part: 5 GiB.
        public static let maximumPartSize = 5 * 1024 * 1024 * 1024
        /// S3's most parts in one upload.
        public static let maximumPartCount = 10_000

        /// Files of at least this many bytes are uploaded in parts, and objects larger than this (and
        /// than one ``downloadPartSize``) are downloaded as parallel ranges.
        public var multipartThreshold: Int
        /// The size of each part of an upload; raised for files so large that they would need more than
        /// 10,000 parts.
        ///
        /// By default the same as ``downloadPartSize``, so that the ranges of a later download fall on
        /// the object's parts. A 1 GiB object uploaded in 32 MiB parts came down in 32 MiB ranges about
        /// 8% faster from SeaweedFS, and 4% faster from the local stack, than one uploaded in 16 MiB parts
        /// (medians of 10 alternating downloads); uploads took about as long either way.
        public var partSize: Int
        /// How many parts of one upload move at the same time.
        public var concurrency: Int
        /// The size of each range of a download split into ranges (objects larger than
        /// ``multipartThreshold`` and than one range).
        ///
        /// Downloading one 1 GiB object from SeaweedFS again and again, 32 MiB ranges 6 at a time were
        /// about a fifth faster than 16 MiB ranges 8 at a time, and as fast from the local stack.
        public var downloadPartSize: Int
        /// How many ranges of one download move at the same time.
        public var downloadConcurrency: Int
        /// Whether downloads check the object's ETag (an MD5 for single-part, unencrypted objects) and
        /// any checksum S3 returns. Length is always checked.
        public var verifiesDownloads: Bool
        /// Whether a downloaded file is flushed to disk (`fsync`) before it is renamed into place.
        public var syncsDownloads: Bool

        /// Creates transfer settings.
        /// - Parameters:
        ///   - multipartThreshold: The size from which transfers are split; at least 1.
        ///   - partSize: Bytes per part, 5 MiB to 5 GiB.
        ///   - concurrency: Parts moving at once, 1 to 64.
        ///   - downloadPartSize: Bytes per range of a download, 1 MiB to 5 GiB.
        ///   - downloadConcurrency: Ranges moving at once, 1 to 64.
        ///   - verifiesDownloads: Whether downloads check ETags and checksums.
        ///   - syncsDownloads: Whether downloads are flushed to disk before the rename.
        public init(
            multipartThreshold: Int = 32 * 1024 * 1024,
            partSize: Int = 32 * 1024 * 1024,
            concurrency: Int = 6,
            downloadPartSize: Int = 32 * 1024 * 1024,
            downloadConcurrency: Int = 6,
            verifiesDownloads: Bool = true,
            syncsDownloads: Bool = false
        ) {
            self.multipartThreshold = multipartThreshold
            self.partSize = partSize
            self.concurrency = concurrency
            self.downloadPartSize = downloadPartSize
            self.downloadConcurrency = downloadConcurrency
            self.verifiesDownloads = verifiesDownloads
            self.syncsDownloads = syncsDownloads
        }

        func validate() throws(S3Error) {
            if self.multipartThreshold < 1 {
                throw .invalidConfiguration("multipartThreshold is \(self.multipartThreshold); it must be at least 1")
            }
            if self.partSize < Self.minimumPartSize || self.partSize > Self.maximumPartSize {
                throw .invalidConfiguration(
                    "partSize is \(self.partSize) bytes; S3 parts are \(Self.minimumPartSize) bytes (5 MiB) to 5 GiB")
            }
            if self.concurrency < 1 || self.concurrency > 64 {
                throw .invalidConfiguration("transfer concurrency is \(self.concurrency); it must be 1 to 64")
            }
            if self.downloadPartSize < Self.minimumDownloadPartSize || self.downloadPartSize > Self.maximumPartSize {
                throw .invalidConfiguration(
                    "downloadPartSize is \(self.downloadPartSize) bytes; it must be \(Self.minimumDownloadPartSize) bytes (1 MiB) to 5 GiB")
            }
            if self.downloadConcurrency < 1 || self.downloadConcurrency > 64 {
                throw .invalidConfiguration("downloadConcurrency is \(self.downloadConcurrency); it must be 1 to 64")
            }
        }

        /// The part size for an object of `size` bytes: the configured size, raised so that at most
        /// 10,000 parts are needed.
        func partSize(forObjectOfSize size: Int64) -> Int {
            let needed = (size + Int64(Self.maximumPartCount) - 1) / Int64(Self.maximumPartCount)
            return Int(max(Int64(self.partSize), needed))
        }
    }
}

/// ``S3Client``'s retry defaults: five attempts, 100 ms growing to at most 10 s. A retry with fresh
/// credentials after `ExpiredToken` does not count as an attempt.
public enum S3RetryDefaults: RetryDefaults {
    public static var maxAttempts: Int { 5 }
    public static var baseDelay: Duration { .milliseconds(100) }
    public static var maxDelay: Duration { .seconds(10) }
}
