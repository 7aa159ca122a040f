import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Testing
@testable import WIFLocal
import WIFTestSupport

/// Which service answers which request, and what the responder logs.
@Suite struct LocalResponderTests {
    static func makeRequest(_ method: HTTPRequest.Method, _ target: String, contentType: String? = nil) -> Hummingbird.Request {
        var head = HTTPRequest(method: method, scheme: "http", authority: "127.0.0.1", path: target)
        if let contentType { head.headerFields[.contentType] = contentType }
        return Request(head: head, body: RequestBody(buffer: ByteBuffer()))
    }

    struct Route: CustomTestStringConvertible, Sendable {
        var method: HTTPRequest.Method
        var target: String
        var contentType: String?
        var expected: LocalResponder.Route
        var testDescription: String { "\(self.method) \(self.target) \(self.contentType ?? "") → \(self.expected)" }
    }

    static let routes: [Route] = [
        Route(method: .get, target: "/.well-known/openid-configuration", expected: .issuer),
        Route(method: .get, target: "/.well-known/jwks.json", expected: .issuer),
        Route(method: .post, target: "/oauth2/token", contentType: "application/x-www-form-urlencoded", expected: .issuer),
        Route(method: .get, target: "/?Action=AssumeRoleWithWebIdentity&Version=2011-06-15", expected: .sts),
        Route(method: .get, target: "/?Version=2011-06-15&Action=GetCallerIdentity", expected: .sts),
        Route(method: .post, target: "/", contentType: "application/x-www-form-urlencoded", expected: .sts),
        Route(method: .post, target: "/", contentType: "application/x-www-form-urlencoded; charset=utf-8", expected: .sts),
        Route(method: .post, target: "/", contentType: "Application/X-WWW-Form-URLEncoded", expected: .sts),
        Route(method: .post, target: "/?Action=GetCallerIdentity", contentType: "text/plain", expected: .sts),
        // S3: ListBuckets, virtual-hosted bucket operations on `/`, and everything below a bucket.
        Route(method: .get, target: "/", expected: .s3),
        Route(method: .get, target: "/?list-type=2&prefix=google/alice/", expected: .s3),
        Route(method: .post, target: "/?delete", contentType: "application/xml", expected: .s3),
        Route(method: .post, target: "/", contentType: "multipart/form-data; boundary=x", expected: .s3),
        Route(method: .post, target: "/", contentType: "application/x-www-form-urlencodedx", expected: .s3),
        Route(method: .get, target: "/?XAction=1&NoAction=2", expected: .s3),
        Route(method: .get, target: "/?x-id=Action=1", expected: .s3),
        Route(method: .post, target: "/wif-personal", contentType: "application/x-www-form-urlencoded", expected: .s3),
        Route(method: .get, target: "/wif-personal/google/alice/a.txt?Action=GetCallerIdentity", expected: .s3),
        Route(method: .get, target: "/.well-knownish/x", expected: .s3),
        Route(method: .put, target: "/oauth2", expected: .s3),
    ]

    @Test(arguments: Self.routes)
    func dispatchesToItsService(_ route: Route) {
        #expect(LocalResponder.route(Self.makeRequest(route.method, route.target, contentType: route.contentType)) == route.expected)
    }

    @Test func theTargetIsSplitWithoutTheQuery() {
        let target = LocalResponder.target(of: Self.makeRequest(.get, "/bucket/key?X-Amz-Signature=abc"))
        #expect(target.path == "/bucket/key")
        #expect(target.query == "X-Amz-Signature=abc")
        let bare = LocalResponder.target(of: Self.makeRequest(.get, "/bucket/key"))
        #expect(bare.path == "/bucket/key" && bare.query == nil)
        let absolute = LocalResponder.target(of: Self.makeRequest(.get, "http://127.0.0.1:9000/bucket/key?a=1"))
        #expect(absolute.path == "/bucket/key")
        #expect(absolute.query == "a=1")
    }

    @Test func eachServiceAnswersItsRequestsOverHTTP() async throws {
        try await StackTestSupport.withDataDirectory { path in
            try await LocalStack.run(.default(dataDirectory: path)) { endpoint in
                let discovery = try await StackTestSupport.send("GET", endpoint.url + "/.well-known/openid-configuration")
                #expect(discovery.status == 200)
                #expect(discovery.header("content-type") == "application/json")
                #expect(discovery.header("server") == "wif-local")

                // STS answers in its own XML shape, by form POST and by query.
                let form = try await StackTestSupport.send(
                    "POST", endpoint.url + "/", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                    body: ByteBuffer(string: "Action=GetCallerIdentity&Version=2011-06-15"))
                #expect(form.body.contains("https://sts.amazonaws.com/doc/2011-06-15/"), "got: \(form.body)")
                let query = try await StackTestSupport.send("GET", endpoint.url + "/?Action=GetCallerIdentity&Version=2011-06-15")
                #expect(query.body.contains("https://sts.amazonaws.com/doc/2011-06-15/"), "got: \(query.body)")

                // S3 answers the rest, in its XML shape.
                let s3 = try await StackTestSupport.send("GET", endpoint.url + "/wif-personal?list-type=2")
                #expect(s3.body.contains("<Error>"), "got: \(s3.body)")
                #expect(!s3.body.contains("ErrorResponse"))
                #expect(s3.header("server") == "wif-local")
            }
        }
    }

    @Test(arguments: [false, true])
    func anOversizedSTSBodyIsRefused(chunked: Bool) async throws {
        try await StackTestSupport.withDataDirectory { path in
            try await LocalStack.run(.default(dataDirectory: path)) { endpoint in
                let body = ByteBuffer(string: "Action=GetCallerIdentity&Version=2011-06-15&Padding=" + String(repeating: "x", count: 70_000))
                let answer = try await StackTestSupport.send(
                    "POST", endpoint.url + "/", headers: [("Content-Type", "application/x-www-form-urlencoded")], body: body, chunked: chunked)
                #expect(answer.status == 413)
                #expect(answer.body.contains("<Code>ValidationError</Code>"))
                #expect(answer.body.contains("<Message>the request body is larger than 65536 bytes</Message>"))
                #expect(answer.body.contains("<ErrorResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\">"))
                // The stack still answers afterwards.
                #expect(try await StackTestSupport.send("GET", endpoint.url + "/.well-known/jwks.json").status == 200)
            }
        }
    }

    @Test func eachRequestIsLoggedOnceWithoutItsQuery() async throws {
        let recorder = TestLogRecorder()
        try await StackTestSupport.withDataDirectory { path in
            try await LocalStack.run(.default(dataDirectory: path), logger: recorder.logger(level: .debug, label: "wif.local.test")) { endpoint in
                _ = try await StackTestSupport.send(
                    "GET", endpoint.url + "/wif-personal/google/alice/a.txt?X-Amz-Signature=0ddba11feedface&X-Amz-Security-Token=sealedsessiontoken",
                    headers: [("Authorization", "AWS4-HMAC-SHA256 Credential=AKIA/x, Signature=c0ffeec0ffee")])
                _ = try await StackTestSupport.send("GET", endpoint.url + "/.well-known/jwks.json")
            }
        }
        let requests = recorder.records.filter { $0.message == "request" }
        #expect(requests.count == 2)
        let first = try #require(requests.first)
        #expect(first.level == .debug)
        #expect(first.metadata["wif.local.method"] == "GET")
        #expect(first.metadata["wif.local.path"] == "/wif-personal/google/alice/a.txt")
        #expect((400...499).contains(Int(first.metadata["wif.local.status"] ?? "") ?? 0))
        #expect(Int(first.metadata["wif.local.duration_us"] ?? "") != nil)
        #expect(requests.last?.metadata["wif.local.status"] == "200")
        for record in recorder.records {
            let text = record.message + " " + record.metadata.values.joined(separator: " ")
            for secret in ["0ddba11feedface", "sealedsessiontoken", "c0ffeec0ffee", "X-Amz-Signature"] {
                #expect(!text.contains(secret), "a log record holds \(secret): \(record.message)")
            }
        }
    }
}
