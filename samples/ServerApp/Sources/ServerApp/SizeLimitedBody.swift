import NIOCore

/// A request body that fails with ``FileServerError`` `tooLarge` as soon as more than `limit` bytes
/// have arrived, so an upload without a `Content-Length` cannot fill the disk.
struct SizeLimitedBody<Base: AsyncSequence>: AsyncSequence where Base.Element == ByteBuffer {
    typealias Element = ByteBuffer

    let base: Base
    let limit: Int64

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        let limit: Int64
        var received: Int64 = 0

        mutating func next() async throws -> ByteBuffer? {
            guard let buffer = try await self.base.next() else { return nil }
            self.received += Int64(buffer.readableBytes)
            if self.received > self.limit { throw FileServerError.tooLarge(limit: self.limit) }
            return buffer
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: self.base.makeAsyncIterator(), limit: self.limit)
    }
}
