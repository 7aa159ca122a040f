import Crypto
import NIOCore
import WIFCredentials

/// How a request body is encoded, from `x-amz-content-sha256` and `Content-Encoding`.
enum S3BodyEncoding: Sendable, Hashable {
    /// The body as is.
    case plain
    /// `aws-chunked`: `<hex size>[;chunk-signature=<sig>]\r\n<data>\r\n…0…\r\n[trailers]\r\n`.
    case chunked(signed: Bool, trailer: Bool)

    /// The encoding a payload hash announces.
    static func from(payloadHash: String) -> S3BodyEncoding {
        switch payloadHash {
        case "STREAMING-AWS4-HMAC-SHA256-PAYLOAD": .chunked(signed: true, trailer: false)
        case "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER": .chunked(signed: true, trailer: true)
        case "STREAMING-UNSIGNED-PAYLOAD-TRAILER": .chunked(signed: false, trailer: true)
        default: .plain
        }
    }
}

/// What verifies the chunk signatures of an `aws-chunked` body signed with `STREAMING-AWS4-HMAC-SHA256-PAYLOAD`:
/// each chunk's signature chains from the previous one, starting with the request's own (seed) signature.
struct ChunkSigning: Sendable {
    /// The signing key of the request's scope.
    var key: SigV4SigningKey
    /// `X-Amz-Date`.
    var amzDate: String
    /// `yyyyMMdd/region/service/aws4_request`.
    var scope: String
    /// The request's signature.
    var seedSignature: String
}

/// A request body as the store should see it: `aws-chunked` framing removed (and its chunk signatures and
/// trailing checksum verified), and any `x-amz-checksum-*` header verified. Errors are thrown from the
/// sequence, at the latest when it ends, so a store that commits only after a normal end never keeps a bad body.
struct S3BodyStream<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable where Base.Element == ByteBuffer {
    typealias Element = ByteBuffer

    let base: Base
    let encoding: S3BodyEncoding
    /// A checksum sent as a header, verified against the decoded body.
    let checksum: S3Checksum?
    /// The algorithm named by `x-amz-trailer`, whose value comes after the last chunk.
    let trailerAlgorithm: S3Checksum.Algorithm?
    /// `x-amz-decoded-content-length`, checked for chunked bodies.
    let decodedLength: Int64?
    /// Chunk signature verification, for signed chunked bodies.
    let signing: ChunkSigning?

    init(
        base: Base, encoding: S3BodyEncoding, checksum: S3Checksum? = nil, trailerAlgorithm: S3Checksum.Algorithm? = nil,
        decodedLength: Int64? = nil, signing: ChunkSigning? = nil
    ) {
        self.base = base
        self.encoding = encoding
        self.checksum = checksum
        self.trailerAlgorithm = trailerAlgorithm
        self.decodedLength = decodedLength
        self.signing = signing
    }

    func makeAsyncIterator() -> Iterator {
        Iterator(stream: self)
    }

    struct Iterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        var decoder: AWSChunkedDecoder?
        var hasher: S3Checksum.Hasher?
        let checksum: S3Checksum?
        var pending: [ByteBuffer] = []
        var finished = false

        init(stream: S3BodyStream) {
            self.base = stream.base.makeAsyncIterator()
            self.checksum = stream.checksum
            let algorithm = stream.checksum?.algorithm ?? stream.trailerAlgorithm
            self.hasher = algorithm.map { S3Checksum.Hasher($0) }
            if case .chunked(let signed, let trailer) = stream.encoding {
                self.decoder = AWSChunkedDecoder(
                    signing: signed ? stream.signing : nil, expectsTrailer: trailer, trailerAlgorithm: stream.trailerAlgorithm,
                    decodedLength: stream.decodedLength)
            }
        }

        mutating func next() async throws -> ByteBuffer? {
            while true {
                if !self.pending.isEmpty { return self.pending.removeFirst() }
                if self.finished { return nil }
                guard let buffer = try await self.base.next() else {
                    try self.finish()
                    self.finished = true
                    continue
                }
                if self.decoder != nil {
                    let output = try self.decoder!.feed(buffer)
                    for slice in output where slice.readableBytes > 0 {
                        self.hash(slice)
                        self.pending.append(slice)
                    }
                } else if buffer.readableBytes > 0 {
                    self.hash(buffer)
                    return buffer
                }
            }
        }

        private mutating func hash(_ buffer: ByteBuffer) {
            guard self.hasher != nil else { return }
            buffer.withUnsafeReadableBytes { self.hasher!.update($0) }
        }

        private mutating func finish() throws(AWSErrorResponse) {
            let computed = self.hasher?.finalize()
            if self.decoder != nil {
                try self.decoder!.finish()
                if let trailer = self.decoder!.trailerChecksum, let computed, trailer.expected != computed {
                    throw S3Errors.badDigest(trailer.algorithm.headerName)
                }
            }
            if let checksum = self.checksum, let computed, checksum.expected != computed {
                throw S3Errors.badDigest(checksum.algorithm.headerName)
            }
        }
    }
}

/// Removes `aws-chunked` framing as bytes arrive, verifying chunk signatures when the body is signed.
struct AWSChunkedDecoder: Sendable {
    private enum State: Sendable {
        /// Reading a chunk header line.
        case header
        /// Inside a chunk's data.
        case data(remaining: Int)
        /// After a chunk's data: expecting CRLF.
        case dataEnd
        /// After the last (empty) chunk: reading trailer lines until an empty one.
        case trailer
        case done
    }

    /// The longest header or trailer line accepted.
    static let maximumLineLength = 4096
    /// The largest chunk accepted (S3 clients use 64 KiB to a few MiB).
    static let maximumChunkSize = 64 * 1024 * 1024

    private var state: State = .header
    private var line: [UInt8] = []
    /// The chunk signatures expected, computed by the same signer a client frames them with.
    private var signer: SigV4ChunkSigner?
    private var chunkSignature: String?
    private var chunkHash = SHA256()
    private let expectsTrailer: Bool
    private let trailerAlgorithm: S3Checksum.Algorithm?
    private let decodedLength: Int64?
    private var trailerLines: [String] = []
    private(set) var decodedCount: Int64 = 0
    /// The checksum found among the trailers.
    private(set) var trailerChecksum: S3Checksum?

    init(signing: ChunkSigning?, expectsTrailer: Bool, trailerAlgorithm: S3Checksum.Algorithm?, decodedLength: Int64?) {
        self.signer = signing.map {
            SigV4ChunkSigner(key: $0.key, amzDate: $0.amzDate, scope: $0.scope, seedSignature: $0.seedSignature, chunkSize: 0, trailer: nil)
        }
        self.expectsTrailer = expectsTrailer
        self.trailerAlgorithm = trailerAlgorithm
        self.decodedLength = decodedLength
    }

    /// Feeds encoded bytes and returns the decoded data they hold (slices of the input, not copies).
    mutating func feed(_ input: ByteBuffer) throws(AWSErrorResponse) -> [ByteBuffer] {
        var input = input
        var output: [ByteBuffer] = []
        while input.readableBytes > 0 {
            switch self.state {
            case .header:
                guard let line = try self.readLine(&input) else { continue }
                try self.startChunk(line)
            case .data(let remaining):
                let count = min(remaining, input.readableBytes)
                guard let slice = input.readSlice(length: count) else { throw S3Errors.invalidChunk("a chunk ended early") }
                if self.signer != nil { slice.withUnsafeReadableBytes { self.chunkHash.update(bufferPointer: $0) } }
                self.decodedCount += Int64(count)
                output.append(slice)
                self.state = remaining - count == 0 ? .dataEnd : .data(remaining: remaining - count)
            case .dataEnd:
                guard let line = try self.readLine(&input) else { continue }
                guard line.isEmpty else { throw S3Errors.invalidChunk("a chunk's data is longer than its declared size") }
                try self.verifyChunk()
                self.state = .header
            case .trailer:
                guard let line = try self.readLine(&input) else { continue }
                if line.isEmpty {
                    try self.finishTrailers()
                    self.state = .done
                } else {
                    guard self.trailerLines.count < 16 else { throw S3Errors.invalidChunk("too many trailing headers") }
                    self.trailerLines.append(String(decoding: line, as: UTF8.self))
                }
            case .done:
                throw S3Errors.invalidChunk("bytes follow the final chunk")
            }
        }
        return output
    }

    /// Checks that the body ended where it should.
    mutating func finish() throws(AWSErrorResponse) {
        if case .trailer = self.state, !self.expectsTrailer, self.line.isEmpty, self.trailerLines.isEmpty {
            // Tolerate a body that ends right after the final chunk, without the closing empty line.
            try self.finishTrailers()
            self.state = .done
        }
        guard case .done = self.state else { throw S3Errors.incompleteBody() }
        if let decodedLength, decodedLength != self.decodedCount {
            throw AWSErrorResponse(
                "IncompleteBody",
                "The decoded body holds \(self.decodedCount) bytes but x-amz-decoded-content-length says \(decodedLength).")
        }
    }

    /// Reads up to CRLF; `nil` when the line continues in the next buffer.
    private mutating func readLine(_ input: inout ByteBuffer) throws(AWSErrorResponse) -> [UInt8]? {
        while let byte = input.readInteger(as: UInt8.self) {
            if byte == UInt8(ascii: "\n") {
                guard self.line.last == UInt8(ascii: "\r") else { throw S3Errors.invalidChunk("a line does not end with CRLF") }
                let line = Array(self.line.dropLast())
                self.line.removeAll(keepingCapacity: true)
                return line
            }
            self.line.append(byte)
            guard self.line.count <= Self.maximumLineLength else { throw S3Errors.invalidChunk("a chunk header is too long") }
        }
        return nil
    }

    private mutating func startChunk(_ line: [UInt8]) throws(AWSErrorResponse) {
        let text = String(decoding: line, as: UTF8.self)
        let parts = text.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)
        guard let sizeText = parts.first, !sizeText.isEmpty, sizeText.count <= 16, let size = Int(sizeText, radix: 16), size >= 0 else {
            throw S3Errors.invalidChunk("the chunk size '\(text.prefix(32))' is not hexadecimal")
        }
        guard size <= Self.maximumChunkSize else { throw S3Errors.invalidChunk("a chunk of \(size) bytes is too large") }
        self.chunkSignature = nil
        if parts.count == 2 {
            let extensionText = parts[1]
            if extensionText.hasPrefix("chunk-signature=") {
                self.chunkSignature = String(extensionText.dropFirst("chunk-signature=".count))
            }
        }
        if self.signer != nil, self.chunkSignature == nil {
            throw S3Errors.invalidChunk("a chunk has no chunk-signature")
        }
        self.chunkHash = SHA256()
        if size == 0 {
            try self.verifyChunk()
            // Trailers (if any) follow the final chunk, then an empty line.
            self.state = .trailer
        } else {
            self.state = .data(remaining: size)
        }
    }

    private mutating func verifyChunk() throws(AWSErrorResponse) {
        guard var signer = self.signer, let provided = self.chunkSignature else { return }
        let expected = signer.signature(ofChunkHash: SigV4Bytes.hexString(self.chunkHash.finalize()))
        guard SigV4Canonical.constantTimeEquals(expected, provided) else { throw S3Errors.chunkSignatureMismatch() }
        signer.chain(to: expected)
        self.signer = signer
        self.chunkSignature = nil
    }

    private mutating func finishTrailers() throws(AWSErrorResponse) {
        var signatureLine: String?
        var signedText = ""
        for line in self.trailerLines {
            guard let colon = line.firstIndex(of: ":") else { throw S3Errors.invalidChunk("a trailing header has no ':'") }
            let name = line[..<colon].lowercased()
            let value = String(line[line.index(after: colon)...]).trimmingSpaces()
            if name == "x-amz-trailer-signature" {
                signatureLine = value
                continue
            }
            signedText += "\(name):\(value)\n"
            if let algorithm = S3Checksum.Algorithm(headerName: name) {
                guard algorithm == self.trailerAlgorithm else {
                    throw S3Errors.invalidRequest("The trailing header \(name) was not declared in x-amz-trailer.")
                }
                guard S3Checksum.isWellFormed(value, for: algorithm) else { throw S3Errors.invalidDigest(name, value: value) }
                self.trailerChecksum = S3Checksum(algorithm: algorithm, expected: value)
            }
        }
        if let algorithm = self.trailerAlgorithm, self.trailerChecksum == nil, self.expectsTrailer {
            throw S3Errors.invalidRequest("The x-amz-trailer header names \(algorithm.headerName), but the body has no such trailer.")
        }
        if let signer = self.signer, self.expectsTrailer {
            guard let provided = signatureLine else { throw S3Errors.invalidChunk("the trailers have no x-amz-trailer-signature") }
            let expected = signer.trailerSignature(canonicalTrailers: signedText)
            guard SigV4Canonical.constantTimeEquals(expected, provided) else { throw S3Errors.chunkSignatureMismatch() }
        }
    }
}

extension String {
    fileprivate func trimmingSpaces() -> String {
        var slice = Substring(self)
        while slice.first == " " || slice.first == "\t" { slice.removeFirst() }
        while slice.last == " " || slice.last == "\t" { slice.removeLast() }
        return String(slice)
    }
}
