import AsyncHTTPClient
import NIOCore
import NIOPosix

extension S3Client {
    /// The HTTP client settings S3 transfers need, for callers that create their own `HTTPClient`.
    ///
    /// They differ from `HTTPClient.shared`'s in ways that matter for S3:
    /// - no decompression: an object stored with `Content-Encoding: gzip` must arrive as stored, or its
    ///   length and checksum would not match;
    /// - no redirects: a redirected request would carry a signature for another host;
    /// - HTTP/1.1 only, up to 64 connections per host, so parallel parts and files each get a
    ///   connection;
    /// - a refused connection fails the request at once (the client's own retry policy backs off)
    ///   instead of being retried silently until the deadline;
    /// - connect timeout 10 s, read timeout (between two reads) 60 s.
    /// - Returns: The configuration.
    public static func recommendedHTTPClientConfiguration() -> HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: .seconds(10), read: .seconds(60)),
            decompression: .disabled)
        configuration.httpVersion = .http1Only
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 64)
        configuration.connectionPool.retryConnectionEstablishment = false
        return configuration
    }

    /// A process-wide HTTP client with ``recommendedHTTPClientConfiguration()``, used when no client is
    /// given. Like `HTTPClient.shared`, it lives as long as the process and is never shut down.
    public static let sharedHTTPClient = HTTPClient(
        eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: recommendedHTTPClientConfiguration())
}
