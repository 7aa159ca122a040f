import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import WIFCredentials
import WIFAPIServer
import WIFFoundation

/// What `x-amz-content-sha256` (the signed payload hash) says.
enum S3PayloadHash {
    /// Whether the value is 64 hexadecimal digits: the body's SHA-256, to be checked.
    static func isHexSHA256(_ value: String) -> Bool {
        value.utf8.count == 64 && value.utf8.allSatisfy { S3PercentDecoding.hexValue($0) != nil }
    }

    /// The markers S3 accepts instead of a hash.
    static let markers: Set<String> = [
        "UNSIGNED-PAYLOAD", "STREAMING-UNSIGNED-PAYLOAD-TRAILER", "STREAMING-AWS4-HMAC-SHA256-PAYLOAD",
        "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER",
    ]

    /// Checks a payload hash: a hex SHA-256 or one of the markers; the ECDSA streaming variants are refused.
    static func validate(_ value: String) throws(AWSErrorResponse) {
        if Self.isHexSHA256(value) || Self.markers.contains(value) { return }
        if value.hasPrefix("STREAMING-AWS4-ECDSA-P256-SHA256") {
            throw S3Errors.notImplemented("SigV4a streaming payloads (\(value))")
        }
        throw S3Errors.invalidContentSHA256(value)
    }
}

extension S3Service {
    /// The request body with `aws-chunked` framing removed and checksums verified as it streams.
    /// - Parameter verifyingHeaderChecksum: Whether the stream checks an `x-amz-checksum-*` header itself;
    ///   `false` where the store computes that checksum anyway and checks it (``payloadChecks(_:)``).
    func bodyStream(_ call: Call, verifyingHeaderChecksum: Bool = true) throws(AWSErrorResponse) -> S3BodyStream<RequestBody> {
        let payloadHash = call.authenticated.payloadHash
        try S3PayloadHash.validate(payloadHash)
        let encoding = S3BodyEncoding.from(payloadHash: payloadHash)
        var checksum: S3Checksum?
        for field in call.headers {
            guard let algorithm = S3Checksum.Algorithm(headerName: field.name.canonicalName) else { continue }
            guard checksum == nil else {
                throw S3Errors.invalidRequest("Expecting a single x-amz-checksum- header. Multiple checksum Types are not allowed.")
            }
            guard S3Checksum.isWellFormed(field.value, for: algorithm) else {
                throw S3Errors.invalidDigest(algorithm.headerName, value: field.value)
            }
            checksum = S3Checksum(algorithm: algorithm, expected: field.value)
        }
        var trailerAlgorithm: S3Checksum.Algorithm?
        if let trailer = call.headers[S3Headers.trailer] {
            guard case .chunked = encoding else {
                throw S3Errors.invalidRequest("The x-amz-trailer header requires an aws-chunked body (STREAMING-… x-amz-content-sha256).")
            }
            guard let algorithm = S3Checksum.Algorithm(headerName: trailer.trimming(.whitespaces)) else {
                throw S3Errors.invalidArgument("The value specified in the x-amz-trailer header is not supported", name: "x-amz-trailer", value: trailer)
            }
            trailerAlgorithm = algorithm
        }
        var decodedLength: Int64?
        var signing: ChunkSigning?
        if case .chunked(let signed, _) = encoding {
            guard let text = call.headers[S3Headers.decodedContentLength], let length = Int64(text), length >= 0 else {
                throw AWSErrorResponse(
                    "MissingContentLength", "You must provide the x-amz-decoded-content-length header with an aws-chunked body.",
                    status: .lengthRequired)
            }
            decodedLength = length
            if signed { signing = try self.chunkSigning(call) }
        }
        return S3BodyStream(
            base: call.request.body, encoding: encoding, checksum: verifyingHeaderChecksum ? checksum : nil,
            trailerAlgorithm: trailerAlgorithm,
            decodedLength: decodedLength, signing: signing)
    }

    /// What verifies the chunk signatures of a signed `aws-chunked` body: the seed signature, scope and
    /// signing key the authenticator verified the request with.
    func chunkSigning(_ call: Call) throws(AWSErrorResponse) -> ChunkSigning {
        guard let streaming = call.authenticated.streaming, !call.authenticated.presigned else {
            throw S3Errors.invalidRequest("A STREAMING-AWS4-HMAC-SHA256-PAYLOAD body must be signed in the Authorization header.")
        }
        return ChunkSigning(
            key: streaming.signingKey, amzDate: streaming.amzDate, scope: streaming.scope, seedSignature: streaming.seedSignature)
    }

    /// The checks the store makes on a streamed body: the signed SHA-256, `Content-MD5` and the length.
    func payloadChecks(_ call: Call) throws(AWSErrorResponse) -> PayloadChecks {
        let payloadHash = call.authenticated.payloadHash
        var length: Int64?
        if case .chunked = S3BodyEncoding.from(payloadHash: payloadHash) {
            length = call.headers[S3Headers.decodedContentLength].flatMap { Int64($0) }
        } else if let text = call.headers.value(of: .contentLength) {
            guard let value = Int64(text), value >= 0 else {
                throw S3Errors.invalidArgument("The Content-Length is not a valid number.", name: "Content-Length", value: text)
            }
            length = value
        } else {
            throw S3Errors.missingContentLength()
        }
        let sentField = call.headers.first { S3Checksum.Algorithm(headerName: $0.name.canonicalName) != nil }
        let sentChecksum = sentField.flatMap { S3Checksum.Algorithm(headerName: $0.name.canonicalName) }
        let trailerChecksum = call.headers[S3Headers.trailer].flatMap {
            S3Checksum.Algorithm(headerName: $0.trimming(.whitespaces))
        }
        return PayloadChecks(
            expectedSHA256: S3PayloadHash.isHexSHA256(payloadHash) ? payloadHash.lowercased() : nil,
            contentMD5: call.headers[S3Headers.contentMD5],
            expectedLength: length,
            checksumAlgorithm: sentChecksum ?? trailerChecksum,
            expectedChecksum: sentField?.value)
    }

    /// The headers stored with an object: content headers and `x-amz-meta-*` (names lowercased, without
    /// the prefix; values with RFC 2047 encoded-words decoded, ``S3MetadataValue``). `aws-chunked` is
    /// removed from `Content-Encoding`, as S3 does.
    /// - Throws: `InvalidArgument` naming a metadata header whose value held bytes that are not UTF-8,
    ///   rather than storing something other than what was sent.
    static func attributes(from headers: HTTPFields) throws(AWSErrorResponse) -> ObjectAttributes {
        var attributes = ObjectAttributes()
        attributes.contentType = headers.value(of: .contentType)
        if let encoding = headers.value(of: .contentEncoding) {
            // Kept as sent (`deflate, gzip` stays so), but for the `aws-chunked` framing of the upload itself.
            let codings = encoding.split(separator: ",").map { $0.trimming(.whitespaces) }
            if codings.contains(where: { $0.lowercased() == "aws-chunked" }) {
                let kept = codings.filter { !$0.isEmpty && $0.lowercased() != "aws-chunked" }
                attributes.contentEncoding = kept.isEmpty ? nil : kept.joined(separator: ",")
            } else {
                attributes.contentEncoding = encoding
            }
        }
        attributes.contentDisposition = headers.value(of: .contentDisposition)
        attributes.contentLanguage = headers.value(of: .contentLanguage)
        attributes.cacheControl = headers.value(of: .cacheControl)
        attributes.expires = headers.value(of: .expires)
        for field in headers {
            let name = field.name.canonicalName
            guard name.hasPrefix("x-amz-meta-") else { continue }
            let key = String(name.dropFirst("x-amz-meta-".count))
            guard let value = S3MetadataValue.stored(field.value) else {
                throw S3Errors.invalidArgument(
                    "The value of \(name) holds bytes that are not UTF-8; send text outside US-ASCII as an RFC 2047 encoded-word (=?UTF-8?B?...?=).",
                    name: name, value: nil)
            }
            if let existing = attributes.userMetadata[key] {
                attributes.userMetadata[key] = existing + "," + value
            } else {
                attributes.userMetadata[key] = value
            }
        }
        return attributes
    }
}

/// A running SHA-256 over buffers.
struct SHA256Accumulator {
    private var hash = SHA256()

    mutating func update(_ buffer: ByteBuffer) {
        buffer.withUnsafeReadableBytes { self.hash.update(bufferPointer: $0) }
    }

    func hex() -> String {
        SigV4Bytes.hexString(self.hash.finalize())
    }
}

/// A running MD5 over buffers (for `Content-MD5`).
struct MD5Accumulator {
    private var hash = Insecure.MD5()

    mutating func update(_ buffer: ByteBuffer) {
        buffer.withUnsafeReadableBytes { self.hash.update(bufferPointer: $0) }
    }

    func digest() -> [UInt8] {
        Array(self.hash.finalize())
    }
}
