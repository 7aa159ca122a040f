import Foundation
import HTTPTypes
import Hummingbird
import WIFFoundation

/// An error answer in AWS's shape: a code such as `AccessDenied` or `InvalidIdentityToken`, a message, and an
/// HTTP status. STS writes it as an `ErrorResponse` document, S3 as an `Error` document.
///
/// Messages never contain a secret: not a token, a secret key or a signature computed with one.
struct AWSErrorResponse: Error, Sendable, CustomStringConvertible {
    /// The AWS error code.
    var code: String
    /// A message that says what was wrong.
    var message: String
    /// The HTTP status.
    var status: HTTPResponse.Status
    /// `Sender` for the caller's mistakes, `Receiver` for the service's.
    var type: String
    /// Extra elements of an S3 error, such as `Key`, `BucketName` or `Resource`, in order.
    var details: [(String, String)]

    init(_ code: String, _ message: String, status: HTTPResponse.Status = .badRequest, type: String = "Sender", details: [(String, String)] = []) {
        self.code = code
        self.message = message
        self.status = status
        self.type = type
        self.details = details
    }

    var description: String { "\(self.code): \(self.message)" }

    /// The STS document.
    func stsBody(requestId: String) -> String {
        var xml = XMLWriter()
        xml.open("ErrorResponse", attributes: [("xmlns", "https://sts.amazonaws.com/doc/2011-06-15/")])
        xml.open("Error")
        xml.element("Type", self.type)
        xml.element("Code", self.code)
        xml.element("Message", self.message)
        xml.close("Error")
        xml.element("RequestId", requestId)
        xml.close("ErrorResponse")
        return xml.document
    }

    /// The S3 document.
    func s3Body(requestId: String) -> String {
        var xml = XMLWriter()
        xml.open("Error")
        xml.element("Code", self.code)
        xml.element("Message", self.message)
        for (name, value) in self.details { xml.element(name, value) }
        xml.element("RequestId", requestId)
        xml.element("HostId", requestId)
        xml.close("Error")
        return xml.document
    }

    /// The STS response.
    func stsResponse(requestId: String) -> Response {
        .xml(self.stsBody(requestId: requestId), status: self.status, requestId: requestId)
    }

    /// The S3 response; a `HEAD` request gets the status and headers without a body.
    func s3Response(requestId: String, head: Bool = false) -> Response {
        if head {
            var response = Response(status: self.status)
            response.headers[.init("x-amz-request-id")!] = requestId
            response.headers[.init("x-amz-error-code")!] = self.code
            return response
        }
        return .xml(self.s3Body(requestId: requestId), status: self.status, requestId: requestId)
    }
}

extension Response {
    static let requestIdName = HTTPField.Name("x-amz-request-id")!
    static let amznRequestIdName = HTTPField.Name("x-amzn-RequestId")!

    /// An XML response with the AWS request id headers.
    static func xml(_ body: String, status: HTTPResponse.Status = .ok, requestId: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/xml"
        headers[Self.requestIdName] = requestId
        headers[Self.amznRequestIdName] = requestId
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }
}

/// Request ids in AWS's shape: 16 hexadecimal upper-case characters for S3, a UUID for STS.
enum RequestID {
    static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        let value = generator.next() as UInt64
        let hex = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// A random (version 4) UUID in lower case, as STS and Cognito give, its bytes drawn in one call.
    static func uuid() -> String {
        var bytes = SecureRandom.bytes(16)
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        let hex = TokenEncoding.hex(bytes)
        let utf8 = Array(hex.utf8)
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for (index, byte) in utf8.enumerated() {
            if index == 8 || index == 12 || index == 16 || index == 20 { text.append(UInt8(ascii: "-")) }
            text.append(byte)
        }
        return String(decoding: text, as: UTF8.self)
    }
}
