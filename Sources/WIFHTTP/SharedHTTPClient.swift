import AsyncHTTPClient

extension HTTPClient {
    /// The HTTP client the package's clients use when they are given none.
    ///
    /// It has `HTTPClient.shared`'s settings but two: a refused connection fails the attempt at once, so
    /// that the calling client's own retry policy decides what happens next, where `HTTPClient.shared`
    /// keeps reconnecting until the request's deadline (an STS endpoint that is down took 15 s to
    /// report); and a connection must be made within 10 s. Like `HTTPClient.shared`, it lives as long as
    /// the process and is never shut down.
    public static let wifShared: HTTPClient = {
        var configuration = HTTPClient.Configuration.singletonConfiguration
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.connect = .seconds(10)
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()
}
