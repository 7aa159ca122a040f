import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import WIFCredentials

/// One S3 call as the client builds it, before addressing and signing.
struct S3Request: Sendable {
    /// The operation's name, for logs (`PutObject`).
    var operation: String
    /// The HTTP method.
    var method: HTTPMethod
    /// The bucket, or `nil` for service-level calls.
    var bucket: String?
    /// The key, or `nil` for bucket-level calls.
    var key: String?
    /// Query parameters, unencoded; a `nil` value is sent as the bare name (`?uploads`).
    var query: [(name: String, value: String?)] = []
    /// Headers to send and sign.
    var headers: [(name: String, value: String)] = []
    /// The body.
    var body: Body = .empty

    /// A request body. Bodies are re-created for every attempt: a retry sends the same bytes again,
    /// a file part from its offset.
    enum Body: Sendable {
        /// No body.
        case empty
        /// Bytes in memory and the payload hash to sign.
        case bytes(ByteBuffer, payload: SigV4Signer.Payload)
        /// `length` bytes of a file from `offset`, and the payload hash to sign.
        case file(ReadableFile, offset: Int64, length: Int64, payload: SigV4Signer.Payload)
        /// Bytes in memory sent as signed `aws-chunked` chunks of `chunkSize` bytes
        /// (`STREAMING-AWS4-HMAC-SHA256-PAYLOAD`), each signed as it is sent.
        case chunked(ByteBuffer, chunkSize: Int)

        var payload: SigV4Signer.Payload {
            switch self {
            case .empty: return .empty
            case .bytes(_, let payload), .file(_, _, _, let payload): return payload
            case .chunked: return .streamingSigned
            }
        }

        /// The body's own length (before any `aws-chunked` framing).
        var length: Int64 {
            switch self {
            case .empty: return 0
            case .bytes(let buffer, _), .chunked(let buffer, _): return Int64(buffer.readableBytes)
            case .file(_, _, let length, _): return length
            }
        }
    }

    /// The query string as sent: names and values percent-encoded, in the given order.
    var encodedQuery: String {
        var text = ""
        for (index, parameter) in self.query.enumerated() {
            if index > 0 { text += "&" }
            text += SigV4Request.percentEncode(parameter.name, keepingSlashes: false)
            if let value = parameter.value {
                text += "=" + SigV4Request.percentEncode(value, keepingSlashes: false)
            }
        }
        return text
    }
}

/// An answer whose status the caller handles, with its body still to be read.
struct S3Response {
    /// The HTTP status code.
    var status: Int
    /// The response headers.
    var headers: HTTPHeaders
    /// The body, streamed.
    var body: HTTPClientResponse.Body

    /// The first value of a header.
    func header(_ name: String) -> String? {
        self.headers.first(name: name)
    }

    /// Reads the whole body, refusing bodies over `limit` bytes.
    func collect(upTo limit: Int, operation: String) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        for try await buffer in self.body {
            if bytes.count + buffer.readableBytes > limit {
                throw S3Error.malformedResponse(
                    "S3 answered \(operation) with a body longer than \(limit) bytes", status: self.status,
                    requestId: self.header("x-amz-request-id"))
            }
            bytes.append(contentsOf: buffer.readableBytesView)
        }
        return bytes
    }
}
