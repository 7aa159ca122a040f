import Crypto
import Foundation
import WIFFoundation

extension SigV4Signer {
    /// What a signature says about the request body: its SHA-256, or that it is not signed.
    ///
    /// The body itself is never kept: ``bytes(_:)`` hashes it at once.
    public struct Payload: Sendable, Hashable {
        /// The value written as the payload hash: 64 lowercase hex digits or a marker such as
        /// `UNSIGNED-PAYLOAD`.
        public let hashText: String
        /// Whether ``hashText`` is a usable payload hash, checked once when the payload is made.
        let isValid: Bool

        /// The values that stand for a body instead of its hash.
        static let markers: Set<String> = [
            "UNSIGNED-PAYLOAD", "STREAMING-AWS4-HMAC-SHA256-PAYLOAD", "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER",
            "STREAMING-UNSIGNED-PAYLOAD-TRAILER",
        ]

        private init(hashText: String) {
            self.hashText = hashText
            if Self.markers.contains(hashText) {
                self.isValid = true
            } else {
                let utf8 = hashText.utf8
                self.isValid = utf8.count == 64 && utf8.allSatisfy { PercentEncoding.hexValue($0) != nil }
            }
        }

        /// A body to sign; it is hashed now.
        /// - Parameter bytes: The exact bytes that will be sent.
        /// - Returns: A payload carrying the bytes' SHA-256.
        public static func bytes(_ bytes: some DataProtocol) -> Payload {
            Payload(hashText: SigV4Bytes.hexString(SHA256.hash(data: bytes)))
        }

        /// A body whose SHA-256 is already known (for example computed while streaming a file).
        ///
        /// The digest is checked when signing: anything but 64 hex digits makes the signer throw.
        /// - Parameter hexDigest: The SHA-256 of the body as hex, in either case.
        /// - Returns: A payload carrying that hash.
        public static func hash(_ hexDigest: String) -> Payload {
            Payload(hashText: hexDigest.lowercased())
        }

        /// The body is not signed: `UNSIGNED-PAYLOAD`. S3 accepts it over HTTPS, and it is what
        /// presigned S3 URLs use.
        public static let unsigned = Payload(hashText: "UNSIGNED-PAYLOAD")

        /// The body is sent in `aws-chunked` chunks, each signed on its own:
        /// `STREAMING-AWS4-HMAC-SHA256-PAYLOAD`. Use ``SigV4Signer/signStreaming(_:decodedContentLength:chunkSize:date:)``,
        /// which sets the headers this needs and returns the chunks' signer.
        public static let streamingSigned = Payload(hashText: "STREAMING-AWS4-HMAC-SHA256-PAYLOAD")

        /// Signed `aws-chunked` chunks followed by a signed trailer carrying a checksum:
        /// `STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER`. Use
        /// ``SigV4Signer/signStreaming(_:decodedContentLength:chunkSize:trailer:date:)`` with a trailer.
        public static let streamingSignedTrailer = Payload(hashText: "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER")

        /// Unsigned `aws-chunked` chunks followed by a trailer carrying a checksum:
        /// `STREAMING-UNSIGNED-PAYLOAD-TRAILER`; S3 checks the checksum instead of a signature. Use
        /// ``SigV4Signer/signStreamingUnsigned(_:decodedContentLength:chunkSize:trailer:date:)``.
        public static let streamingUnsignedTrailer = Payload(hashText: "STREAMING-UNSIGNED-PAYLOAD-TRAILER")

        /// No body (the SHA-256 of zero bytes).
        public static let empty = Payload(
            hashText: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        )
    }
}
