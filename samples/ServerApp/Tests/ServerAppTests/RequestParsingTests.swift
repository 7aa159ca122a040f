import HTTPTypes
import NIOCore
import Testing

@testable import ServerApp

/// Reading the identity of a request and bounding its body, without any I/O.
@Suite struct BearerCredentialTests {
    @Test func aBearerTokenIsRead() throws {
        let credential = try BearerCredential(headers: [.authorization: "Bearer eyJhbGciOi.payload.signature"])
        #expect(credential.token == "eyJhbGciOi.payload.signature")
        #expect(credential.providerId == nil)
        #expect(!credential.description.contains("eyJhbGciOi"))

        let facebook = try BearerCredential(headers: [.authorization: "bearer EAAGm0PX4ZCps", BearerCredential.providerIdHeader: "graph.facebook.com"])
        #expect(facebook.token == "EAAGm0PX4ZCps")
        #expect(facebook.providerId == "graph.facebook.com")
    }

    @Test(arguments: [
        (nil, "send the identity provider's token as 'Authorization: Bearer <token>'"),
        ("Basic YWxpY2U6c2VjcmV0", "the Authorization header must use the Bearer scheme: 'Authorization: Bearer <token>'"),
        ("Bearer", "the Authorization header must use the Bearer scheme: 'Authorization: Bearer <token>'"),
        ("Bearer abc", "the bearer token is 3 bytes; a token is 4 to 20000"),
        ("Bearer abc\tdef", "the bearer token contains whitespace or control characters; a token is a single word"),
    ] as [(String?, String)])
    func unusableAuthorizationIsUnauthorized(header: String?, message: String) {
        var headers: HTTPFields = [:]
        if let header { headers[.authorization] = header }
        #expect {
            try BearerCredential(headers: headers)
        } throws: { error in
            guard let error = error as? FileServerError else { return false }
            return error.code == .unauthorized && error.status == .unauthorized && error.message == message
        }
    }

    @Test func anOverlongTokenIsUnauthorized() {
        let headers: HTTPFields = [.authorization: "Bearer " + String(repeating: "a", count: 20_001)]
        #expect {
            try BearerCredential(headers: headers)
        } throws: { error in
            (error as? FileServerError)?.message == "the bearer token is 20001 bytes; a token is 4 to 20000"
        }
    }

    @Test func twoAuthorizationHeadersAreRefused() {
        var headers: HTTPFields = [:]
        headers.append(HTTPField(name: .authorization, value: "Bearer first-token"))
        headers.append(HTTPField(name: .authorization, value: "Bearer other-token"))
        #expect(throws: FileServerError.unauthorized("")) { try BearerCredential(headers: headers) }
    }

    @Test(arguments: ["abc", "graph facebook com", "2049 characters"])
    func aMalformedProviderIdIsABadRequest(providerId: String) {
        let providerId = providerId == "2049 characters" ? String(repeating: "p", count: 2049) : providerId
        #expect {
            try BearerCredential(headers: [.authorization: "Bearer some-token", BearerCredential.providerIdHeader: providerId])
        } throws: { error in
            guard let error = error as? FileServerError else { return false }
            return error.code == .invalidRequest && error.status == .badRequest && error.message.hasPrefix("X-Provider-Id must be 4 to 2048")
        }
    }
}

@Suite struct SizeLimitedBodyTests {
    static func chunks(_ sizes: [Int]) -> AsyncStream<ByteBuffer> {
        AsyncStream { continuation in
            for size in sizes { continuation.yield(ByteBuffer(repeating: 7, count: size)) }
            continuation.finish()
        }
    }

    @Test func aBodyUpToTheLimitPassesUnchanged() async throws {
        var total = 0
        for try await buffer in SizeLimitedBody(base: Self.chunks([400, 400, 200]), limit: 1000) {
            total += buffer.readableBytes
        }
        #expect(total == 1000)
    }

    @Test func aBodyOverTheLimitFailsAtTheChunkThatCrossesIt() async throws {
        var received = 0
        await #expect(throws: FileServerError.tooLarge(limit: 1000)) {
            for try await buffer in SizeLimitedBody(base: Self.chunks([400, 400, 201, 5000]), limit: 1000) {
                received += buffer.readableBytes
            }
        }
        #expect(received == 800)
    }
}
