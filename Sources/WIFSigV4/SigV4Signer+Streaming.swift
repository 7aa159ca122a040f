import Crypto
import Foundation

extension SigV4Signer {
    /// Signs a request whose body is sent in signed `aws-chunked` chunks
    /// (`STREAMING-AWS4-HMAC-SHA256-PAYLOAD`), for uploads that are signed without reading the whole
    /// body first.
    ///
    /// Sets `Content-Encoding: aws-chunked`, `X-Amz-Decoded-Content-Length` and the encoded
    /// `Content-Length`, signs the headers (the seed signature), and returns the signer of the chunks,
    /// which chains each chunk's signature to the one before. Every chunk but the last carries
    /// `chunkSize` bytes; the body ends with an empty chunk.
    /// - Parameters:
    ///   - request: The request to sign; its other headers must already be set.
    ///   - decodedContentLength: The length of the body itself.
    ///   - chunkSize: The bytes in each chunk but the last; S3 wants at least 8 KiB.
    ///   - date: The signing time.
    /// - Returns: The signer of the body's chunks.
    /// - Throws: ``SigV4Error`` with code `signing` for unusable input or sizes.
    public func signStreaming(
        _ request: inout SigV4Request,
        decodedContentLength: Int,
        chunkSize: Int,
        date: Date
    ) throws -> SigV4ChunkSigner {
        guard decodedContentLength >= 0 else {
            throw SigV4Error.signing("the body length \(decodedContentLength) is negative")
        }
        guard chunkSize >= SigV4ChunkSigner.minimumChunkSize else {
            throw SigV4Error.signing("the chunk size \(chunkSize) is below S3's least, \(SigV4ChunkSigner.minimumChunkSize) bytes")
        }
        let encodedLength = SigV4ChunkSigner.encodedLength(decodedContentLength: decodedContentLength, chunkSize: chunkSize)
        let replaced: Set<String> = ["content-length", "x-amz-decoded-content-length"]
        request.headers.removeAll { replaced.contains($0.name.lowercased()) }
        if !request.headers.contains(where: { $0.name.lowercased() == "content-encoding" }) {
            request.headers.append(.init("Content-Encoding", "aws-chunked"))
        }
        request.headers.append(.init("Content-Length", String(encodedLength)))
        request.headers.append(.init("X-Amz-Decoded-Content-Length", String(decodedContentLength)))
        try self.sign(&request, payload: .streamingSigned, date: date)
        // The seed signature ends the Authorization value that `sign` has just appended.
        let seed = String(request.headers.last { $0.name == "Authorization" }?.value.suffix(64) ?? "")
        let timestamp = try SigV4Timestamp(date)
        return SigV4ChunkSigner(
            key: self.signingKey(day: timestamp.day), amzDate: timestamp.amzDate,
            scope: timestamp.day + self.scopeSuffix, seedSignature: seed, chunkSize: chunkSize)
    }
}

/// Signs the chunks of an `aws-chunked` body, each signature chained to the one before, starting from
/// the request's seed signature.
///
/// It holds the day's signing key, so its ``description`` shows neither the key nor any signature.
public struct SigV4ChunkSigner: Sendable, CustomStringConvertible {
    /// S3's smallest chunk but the last: 8 KiB.
    public static let minimumChunkSize = 8 * 1024

    private let key: SigV4SigningKey
    private let amzDate: String
    private let scope: String
    /// The bytes in each chunk but the last.
    public let chunkSize: Int
    /// The signature the next chunk chains to: the seed signature at first, then the last chunk's.
    public private(set) var previousSignature: String
    /// Whether the final, empty chunk has been signed.
    public private(set) var isFinished = false

    init(key: SigV4SigningKey, amzDate: String, scope: String, seedSignature: String, chunkSize: Int) {
        self.key = key
        self.amzDate = amzDate
        self.scope = scope
        self.previousSignature = seedSignature
        self.chunkSize = chunkSize
    }

    /// The length of a body of `decodedContentLength` bytes once framed in signed chunks of
    /// `chunkSize` bytes, the empty final chunk included: what `Content-Length` says.
    public static func encodedLength(decodedContentLength: Int, chunkSize: Int) -> Int {
        func framed(_ size: Int) -> Int {
            // hex(size) ";chunk-signature=" 64 hex "\r\n" data "\r\n"
            String(size, radix: 16).utf8.count + 17 + 64 + 2 + size + 2
        }
        let full = decodedContentLength / chunkSize
        let rest = decodedContentLength % chunkSize
        return full * framed(chunkSize) + (rest > 0 ? framed(rest) : 0) + framed(0)
    }

    /// Signs one chunk and returns it framed: `hex-size;chunk-signature=…\r\n<data>\r\n`. An empty
    /// `data` is the final chunk; nothing may follow it.
    /// - Parameter data: The chunk's bytes: ``chunkSize`` of them, fewer only for the last data chunk.
    /// - Returns: The framed chunk to send.
    /// - Throws: ``SigV4Error`` with code `signing` for a chunk after the final one.
    public mutating func frame(_ data: some DataProtocol) throws -> [UInt8] {
        guard !self.isFinished else { throw SigV4Error.signing("a chunk after the final, empty one") }
        let signature = self.signature(of: data)
        self.previousSignature = signature
        if data.isEmpty { self.isFinished = true }
        var framed: [UInt8] = []
        framed.reserveCapacity(data.count + 90)
        framed.append(contentsOf: String(data.count, radix: 16).utf8)
        framed.append(contentsOf: ";chunk-signature=".utf8)
        framed.append(contentsOf: signature.utf8)
        framed.append(contentsOf: [0x0D, 0x0A])
        framed.append(contentsOf: data)
        framed.append(contentsOf: [0x0D, 0x0A])
        return framed
    }

    /// The signature of `data` as the next chunk, without moving on: what a verifier compares with the
    /// signature a chunk carries.
    public func signature(of data: some DataProtocol) -> String {
        var text = "AWS4-HMAC-SHA256-PAYLOAD\n\(self.amzDate)\n\(self.scope)\n\(self.previousSignature)\n"
        text += "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n"
        text += SigV4Bytes.hexString(SHA256.hash(data: data))
        var bytes = Array(text.utf8)
        let mac = bytes.withUnsafeMutableBytes { self.key.authenticationCode(for: UnsafeRawBufferPointer($0)) }
        return SigV4Bytes.hexString(mac)
    }

    public var description: String { "SigV4ChunkSigner(\(self.scope), chunks of \(self.chunkSize) bytes)" }
}
