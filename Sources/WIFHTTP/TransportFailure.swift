import AsyncHTTPClient
import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Why an exchange got no answer, in words for a message.
package enum TransportFailure {
    /// The reason a request failed before an answer came: `connection refused`, `the server closed the
    /// connection`, a DNS failure; anything else as it describes itself, cut to 300 characters.
    /// - Parameter error: What the transport threw.
    /// - Returns: The reason.
    package static func reason(_ error: any Error) -> String {
        switch error {
        case let error as IOError:
            return Self.systemText(error.errnoCode)
        case let error as NIOConnectionError:
            if let dnsError = error.dnsAError ?? error.dnsAAAAError { return "cannot resolve \(error.host): \(Self.reason(dnsError))" }
            if let first = error.connectionErrors.first { return Self.reason(first.error) }
            return "no address of \(error.host) could be connected to"
        case let error as HTTPClientError where error == .connectTimeout:
            return "no connection could be made within the connect time-out"
        case let error as HTTPClientError where error == .remoteConnectionClosed:
            return "the server closed the connection before answering"
        default:
            return String(String(describing: error).prefix(300))
        }
    }

    /// `strerror`'s text with a lowercase first letter: `connection refused`.
    private static func systemText(_ code: CInt) -> String {
        let text = String(cString: strerror(code))
        return text.prefix(1).lowercased() + text.dropFirst()
    }
}
