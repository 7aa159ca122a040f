import Crypto
import Foundation

extension SigV4Signer {
    /// Signs a request whose body is sent in signed `aws-chunked` chunks, for uploads that are signed
    /// without reading the whole body first: `STREAMING-AWS4-HMAC-SHA256-PAYLOAD`, or with a `trailer`
    /// `STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER`, whose body ends with the checksum of the data and a
    /// signature of it.
    ///
    /// Sets `Content-Encoding: aws-chunked`, `X-Amz-Decoded-Content-Length`, the encoded
    /// `Content-Length` and, with a trailer, `X-Amz-Trailer`; signs the headers (the seed signature), and
    /// returns the signer of the chunks, which chains each chunk's signature to the one before. Every
    /// chunk but the last carries `chunkSize` bytes; the body ends with an empty chunk.
    /// - Parameters:
    ///   - request: The request to sign; its other headers must already be set.
    ///   - decodedContentLength: The length of the body itself.
    ///   - chunkSize: The bytes in each chunk but the last; S3 wants at least 8 KiB.
    ///   - trailer: The checksum to send after the last chunk, computed from the chunks as they are framed.
    ///   - date: The signing time.
    /// - Returns: The signer of the body's chunks.
    /// - Throws: ``SigV4Error`` with code `signing` for unusable input or sizes.
    public func signStreaming(
        _ request: inout SigV4Request,
        decodedContentLength: Int,
        chunkSize: Int,
        trailer: SigV4Checksum? = nil,
        date: Date
    ) throws -> SigV4ChunkSigner {
        try self.signChunked(&request, decodedContentLength: decodedContentLength, chunkSize: chunkSize, signed: true, trailer: trailer, date: date)
    }

    /// Signs a request whose body is sent in unsigned `aws-chunked` chunks ending with a checksum trailer:
    /// `STREAMING-UNSIGNED-PAYLOAD-TRAILER`. S3 checks the trailer's checksum instead of a signature of the
    /// body, so use it over HTTPS.
    ///
    /// Sets the same headers as ``signStreaming(_:decodedContentLength:chunkSize:trailer:date:)``; each chunk
    /// is framed as `hex-size\r\n<data>\r\n`, the last as `0\r\n`, then the trailer line and an empty line.
    /// - Parameters:
    ///   - request: The request to sign; its other headers must already be set.
    ///   - decodedContentLength: The length of the body itself.
    ///   - chunkSize: The bytes in each chunk but the last, at least 8 KiB.
    ///   - trailer: The checksum sent after the last chunk.
    ///   - date: The signing time.
    /// - Returns: The framer of the body's chunks.
    /// - Throws: ``SigV4Error`` with code `signing` for unusable input or sizes.
    public func signStreamingUnsigned(
        _ request: inout SigV4Request,
        decodedContentLength: Int,
        chunkSize: Int,
        trailer: SigV4Checksum,
        date: Date
    ) throws -> SigV4ChunkSigner {
        try self.signChunked(&request, decodedContentLength: decodedContentLength, chunkSize: chunkSize, signed: false, trailer: trailer, date: date)
    }

    private func signChunked(
        _ request: inout SigV4Request, decodedContentLength: Int, chunkSize: Int, signed: Bool, trailer: SigV4Checksum?, date: Date
    ) throws -> SigV4ChunkSigner {
        guard decodedContentLength >= 0 else {
            throw SigV4Error.signing("the body length \(decodedContentLength) is negative")
        }
        guard chunkSize >= SigV4ChunkSigner.minimumChunkSize else {
            throw SigV4Error.signing("the chunk size \(chunkSize) is below S3's least, \(SigV4ChunkSigner.minimumChunkSize) bytes")
        }
        let encodedLength = SigV4ChunkSigner.encodedLength(
            decodedContentLength: decodedContentLength, chunkSize: chunkSize, signed: signed, trailer: trailer)
        let replaced: Set<String> = ["content-length", "x-amz-decoded-content-length", "x-amz-trailer"]
        request.headers.removeAll { replaced.contains($0.name.lowercased()) }
        if !request.headers.contains(where: { $0.name.lowercased() == "content-encoding" }) {
            request.headers.append(.init("Content-Encoding", "aws-chunked"))
        }
        request.headers.append(.init("Content-Length", String(encodedLength)))
        request.headers.append(.init("X-Amz-Decoded-Content-Length", String(decodedContentLength)))
        if let trailer { request.headers.append(.init("X-Amz-Trailer", trailer.headerName)) }
        let payload: Payload =
            switch (signed, trailer != nil) {
            case (true, false): .streamingSigned
            case (true, true): .streamingSignedTrailer
            case (false, _): .streamingUnsignedTrailer
            }
        try self.sign(&request, payload: payload, date: date)
        let timestamp = try SigV4Timestamp(date)
        guard signed else {
            return SigV4ChunkSigner(
                key: nil, amzDate: timestamp.amzDate, scope: timestamp.day + self.scopeSuffix, seedSignature: "",
                chunkSize: chunkSize, trailer: trailer)
        }
        // The seed signature ends the Authorization value that `sign` has just appended.
        let seed = String(request.headers.last { $0.name == "Authorization" }?.value.suffix(64) ?? "")
        return SigV4ChunkSigner(
            key: self.signingKey(day: timestamp.day), amzDate: timestamp.amzDate,
            scope: timestamp.day + self.scopeSuffix, seedSignature: seed, chunkSize: chunkSize, trailer: trailer)
    }
}

/// Frames the chunks of an `aws-chunked` body: signs each, chained to the one before and starting from
/// the request's seed signature (unless the chunks are unsigned), and ends the body with the trailer's
/// checksum of the data and its signature.
///
/// It holds the day's signing key, so its ``description`` shows neither the key nor any signature.
public struct SigV4ChunkSigner: Sendable, CustomStringConvertible {
    /// S3's smallest chunk but the last: 8 KiB.
    public static let minimumChunkSize = 8 * 1024

    private static let emptySHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    private static let crlf: [UInt8] = [0x0D, 0x0A]

    private let key: SigV4SigningKey?
    private let amzDate: String
    private let scope: String
    /// The bytes in each chunk but the last.
    public let chunkSize: Int
    /// The checksum sent after the last chunk, if any.
    public let trailer: SigV4Checksum?
    private var hasher: SigV4Checksum.Hasher?
    /// The signature the next chunk chains to: the seed signature at first, then the last chunk's (then
    /// the trailer's). Empty when the chunks are unsigned.
    public private(set) var previousSignature: String
    /// Whether the final, empty chunk (and the trailer) has been framed.
    public private(set) var isFinished = false
    /// The checksum the trailer carried, in base64, once the body is finished.
    public private(set) var trailerChecksum: String?

    /// Whether each chunk carries a signature.
    public var isSigned: Bool { self.key != nil }

    /// A signer of chunks from a request's signing key and seed signature; `key` is `nil` for unsigned
    /// chunks. A verifier passes the `chunkSize` of 0: it checks chunks of any size.
    package init(key: SigV4SigningKey?, amzDate: String, scope: String, seedSignature: String, chunkSize: Int, trailer: SigV4Checksum?) {
        self.key = key
        self.amzDate = amzDate
        self.scope = scope
        self.previousSignature = seedSignature
        self.chunkSize = chunkSize
        self.trailer = trailer
        self.hasher = trailer.map { SigV4Checksum.Hasher($0) }
    }

    /// The length of a body of `decodedContentLength` bytes once framed in chunks of `chunkSize` bytes,
    /// the empty final chunk and any trailer included: what `Content-Length` says.
    /// - Parameters:
    ///   - decodedContentLength: The length of the body itself.
    ///   - chunkSize: The bytes in each chunk but the last.
    ///   - signed: Whether each chunk carries a signature.
    ///   - trailer: The checksum sent after the last chunk, if any.
    /// - Returns: The framed length.
    public static func encodedLength(
        decodedContentLength: Int, chunkSize: Int, signed: Bool = true, trailer: SigV4Checksum? = nil
    ) -> Int {
        func header(_ size: Int) -> Int {
            // hex(size) [";chunk-signature=" 64 hex] "\r\n"
            String(size, radix: 16).utf8.count + (signed ? 17 + 64 : 0) + 2
        }
        let full = decodedContentLength / chunkSize
        let rest = decodedContentLength % chunkSize
        var length = full * (header(chunkSize) + chunkSize + 2) + (rest > 0 ? header(rest) + rest + 2 : 0) + header(0)
        if let trailer {
            // "x-amz-checksum-…:" base64 "\r\n" ["x-amz-trailer-signature:" 64 hex "\r\n"]
            length += trailer.headerName.utf8.count + 1 + trailer.encodedCount + 2 + (signed ? 24 + 64 + 2 : 0)
        }
        return length + 2
    }

    /// Frames one chunk: `hex-size;chunk-signature=…\r\n<data>\r\n` (`hex-size\r\n<data>\r\n` unsigned).
    /// An empty `data` is the final chunk, returned with the trailer and the empty line that end the body;
    /// nothing may follow it.
    /// - Parameter data: The chunk's bytes: ``chunkSize`` of them, fewer only for the last data chunk.
    /// - Returns: The framed chunk to send.
    /// - Throws: ``SigV4Error`` with code `signing` for a chunk after the final one.
    public mutating func frame(_ data: some DataProtocol) throws -> [UInt8] {
        guard !self.isFinished else { throw SigV4Error.signing("a chunk after the final, empty one") }
        var framed: [UInt8] = []
        framed.reserveCapacity(data.count + 220)
        framed.append(contentsOf: String(data.count, radix: 16).utf8)
        if self.key != nil {
            let signature = self.signature(of: data)
            self.previousSignature = signature
            framed.append(contentsOf: ";chunk-signature=".utf8)
            framed.append(contentsOf: signature.utf8)
        }
        framed.append(contentsOf: Self.crlf)
        if !data.isEmpty {
            self.hasher?.update(data)
            framed.append(contentsOf: data)
            framed.append(contentsOf: Self.crlf)
            return framed
        }
        self.isFinished = true
        if let trailer, let hasher {
            let value = hasher.finalize()
            self.trailerChecksum = value
            let line = "\(trailer.headerName):\(value)"
            framed.append(contentsOf: line.utf8)
            framed.append(contentsOf: Self.crlf)
            if self.key != nil {
                let signature = self.trailerSignature(canonicalTrailers: line + "\n")
                self.previousSignature = signature
                framed.append(contentsOf: "x-amz-trailer-signature:\(signature)".utf8)
                framed.append(contentsOf: Self.crlf)
            }
        }
        framed.append(contentsOf: Self.crlf)
        return framed
    }

    /// The signature of `data` as the next chunk, without moving on: what a verifier compares with the
    /// signature a chunk carries. Empty when the chunks are unsigned.
    public func signature(of data: some DataProtocol) -> String {
        self.signature(ofChunkHash: SigV4Bytes.hexString(SHA256.hash(data: data)))
    }

    /// The signature of the next chunk from the hex SHA-256 of its data, for a verifier that hashes the
    /// data as it arrives.
    package func signature(ofChunkHash hexHash: String) -> String {
        guard let key = self.key else { return "" }
        let text = "AWS4-HMAC-SHA256-PAYLOAD\n\(self.amzDate)\n\(self.scope)\n\(self.previousSignature)\n\(Self.emptySHA256)\n\(hexHash)"
        return SigV4Canonical.signature(stringToSign: text, key: key)
    }

    /// The signature of the trailer after the final chunk: `canonicalTrailers` is each trailing header as
    /// `name:value\n`, names in lowercase, without `x-amz-trailer-signature`.
    package func trailerSignature(canonicalTrailers: String) -> String {
        guard let key = self.key else { return "" }
        let hash = SigV4Bytes.hexString(SHA256.hash(data: Array(canonicalTrailers.utf8)))
        let text = "AWS4-HMAC-SHA256-TRAILER\n\(self.amzDate)\n\(self.scope)\n\(self.previousSignature)\n\(hash)"
        return SigV4Canonical.signature(stringToSign: text, key: key)
    }

    /// Moves on to the next chunk after a verifier has checked that a chunk carried `signature`.
    package mutating func chain(to signature: String) {
        self.previousSignature = signature
    }

    public var description: String {
        let kind = self.isSigned ? "" : "unsigned "
        let trailer = self.trailer.map { ", trailer \($0.headerName)" } ?? ""
        return "SigV4ChunkSigner(\(self.scope), \(kind)chunks of \(self.chunkSize) bytes\(trailer))"
    }
}
