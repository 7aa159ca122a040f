import AsyncHTTPClient
import Logging
import NIOCore
import NIOHTTP1
import Synchronization
import Testing
import WIFHTTP

/// The default `execute(_:deadline:logger:sink:collectLimit:)`: a taken body goes to the sink part by
/// part; one the sink does not take comes back, cut to the limit.
@Suite struct ResponseBodySinkTests {
    struct CannedTransport: StreamingHTTPTransport {
        var status: HTTPResponseStatus
        var parts: [String]

        func execute(_ request: HTTPClientRequest, deadline: NIODeadline, logger: Logger?) async throws -> HTTPClientResponse {
            var body = ByteBuffer()
            for part in self.parts { body.writeString(part) }
            return HTTPClientResponse(status: self.status, headers: ["x-test": "1"], body: .bytes(body))
        }
    }

    final class RecordingSink: ResponseBodySink {
        let takesStatus: Int
        let received = Mutex<[UInt8]>([])
        let heads = Mutex(0)

        init(takesStatus: Int) { self.takesStatus = takesStatus }

        func accepts(status: Int, headers: HTTPHeaders) throws -> Bool {
            self.heads.withLock { $0 += 1 }
            return status == self.takesStatus
        }

        func write(_ buffer: ByteBuffer) throws {
            self.received.withLock { $0.append(contentsOf: buffer.readableBytesView) }
        }
    }

    @Test func aTakenBodyGoesToTheSinkAndNothingIsCollected() async throws {
        let sink = RecordingSink(takesStatus: 206)
        let answer = try await CannedTransport(status: .partialContent, parts: ["abc", "def"]).execute(
            HTTPClientRequest(url: "http://127.0.0.1/"), deadline: .now() + .seconds(5), logger: nil, sink: sink, collectLimit: 4)
        #expect(answer.status == .partialContent)
        #expect(answer.headers.first(name: "x-test") == "1")
        #expect(answer.collected.readableBytes == 0)
        #expect(sink.received.withLock { $0 } == Array("abcdef".utf8))
        #expect(sink.heads.withLock { $0 } == 1)
    }

    @Test func aBodyTheSinkDoesNotTakeIsCollectedUpToTheLimit() async throws {
        let sink = RecordingSink(takesStatus: 206)
        let answer = try await CannedTransport(status: .preconditionFailed, parts: ["<Error>", "…"]).execute(
            HTTPClientRequest(url: "http://127.0.0.1/"), deadline: .now() + .seconds(5), logger: nil, sink: sink, collectLimit: 4)
        #expect(answer.status == .preconditionFailed)
        #expect(String(buffer: answer.collected) == "<Err")
        #expect(sink.received.withLock { $0 }.isEmpty)
    }
}
