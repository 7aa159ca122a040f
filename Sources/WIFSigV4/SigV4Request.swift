import Foundation
import WIFFoundation

/// An HTTP request as SigV4 sees it: method, host, percent-encoded path and query, and headers.
///
/// The path and query are the exact text sent on the wire, already percent-encoded; use
/// ``percentEncode(_:keepingSlashes:)`` to build them from an S3 key or a query value. Headers are
/// an ordered list and the same name may appear more than once.
///
/// ```swift
/// var request = SigV4Request(method: "GET", host: "bucket.s3.amazonaws.com", path: "/photos/cat.jpg")
/// try signer.sign(&request, payload: .empty, date: now)
/// // request.headers now holds X-Amz-Date, X-Amz-Content-SHA256 and Authorization.
/// ```
public struct SigV4Request: Sendable, Hashable {
    /// One header line. Names compare without regard to case when signing.
    public struct Header: Sendable, Hashable {
        /// The header's name, in any case.
        public var name: String
        /// The header's value as sent; the signer trims and folds whitespace when signing.
        public var value: String

        /// Creates a header.
        /// - Parameters:
        ///   - name: The header's name.
        ///   - value: The header's value.
        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The HTTP method, such as `GET` or `PUT`.
    public var method: String
    /// `http` or `https`; used only to build presigned URLs.
    public var scheme: String
    /// The `Host` header value: the host name, with `:port` when the port is not the scheme's
    /// default. Signed unless ``headers`` holds its own `Host`.
    public var host: String
    /// The percent-encoded path as sent, starting with `/`. Empty means `/`.
    public var path: String
    /// The percent-encoded query as sent, without the `?`; empty for none.
    public var query: String
    /// The headers in the order they are sent. Signing appends its own.
    public var headers: [Header]

    /// Creates a request from its parts.
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - scheme: `https` (the default) or `http`.
    ///   - host: The `Host` value, with a port if it is not the default.
    ///   - path: The percent-encoded path.
    ///   - query: The percent-encoded query, without `?`.
    ///   - headers: The headers to send.
    public init(
        method: String,
        scheme: String = "https",
        host: String,
        path: String = "/",
        query: String = "",
        headers: [Header] = []
    ) {
        self.method = method
        self.scheme = scheme
        self.host = host
        self.path = path
        self.query = query
        self.headers = headers
    }

    /// Creates a request from an absolute URL.
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - url: An absolute `http` or `https` URL. Its path and query are used as encoded.
    ///   - headers: The headers to send.
    /// - Throws: ``SigV4Error`` with code `signing` when the URL has no host or its
    ///   scheme is not `http` or `https`.
    public init(method: String, url: URL, headers: [Header] = []) throws {
        guard let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http" else {
            throw SigV4Error.signing("cannot sign \(Self.redacted(url)): the scheme must be http or https")
        }
        guard let host = url.host(percentEncoded: true), !host.isEmpty else {
            throw SigV4Error.signing("cannot sign \(Self.redacted(url)): the URL has no host")
        }
        var hostValue = host.lowercased()
        if hostValue.contains(":") && !hostValue.hasPrefix("[") { hostValue = "[\(hostValue)]" }
        if let port = url.port, port != (scheme == "https" ? 443 : 80) {
            hostValue += ":\(port)"
        }
        let path = url.path(percentEncoded: true)
        self.init(
            method: method,
            scheme: scheme,
            host: hostValue,
            path: path.isEmpty ? "/" : path,
            query: url.query(percentEncoded: true) ?? "",
            headers: headers
        )
    }

    /// The request's URL text: `scheme://host/path?query`.
    public var urlString: String {
        var text = self.scheme + "://" + self.host
        text += self.path.isEmpty ? "/" : self.path
        if !self.query.isEmpty { text += "?" + self.query }
        return text
    }

    /// The value of the first header with a name, ignoring case.
    /// - Parameter name: The header name.
    /// - Returns: Its first value, or `nil`.
    public func headerValue(_ name: String) -> String? {
        self.headers.first { SigV4Bytes.equalsCaseInsensitive($0.name, name) }?.value
    }

    /// Percent-encodes text the way AWS expects: every byte of its UTF-8 except `A-Z a-z 0-9 - . _ ~`
    /// becomes `%XX`.
    ///
    /// Use it for S3 keys in paths (`keepingSlashes: true`, so `a b/c+d` becomes `a%20b/c%2Bd`)
    /// and for query names and values (`keepingSlashes: false`).
    /// - Parameters:
    ///   - text: The unencoded text.
    ///   - keepingSlashes: Leave `/` as is (for paths).
    /// - Returns: The encoded text.
    public static func percentEncode(_ text: String, keepingSlashes: Bool) -> String {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(text.utf8.count + 8)
        PercentEncoding.append(text, keepingSlash: keepingSlashes, to: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }

    /// Header names whose values are secrets (or work as one) and never printed.
    static func isSecretHeader(_ name: String) -> Bool {
        SigV4Bytes.nameEquals(name, lowercase: "authorization")
            || SigV4Bytes.nameEquals(name, lowercase: "x-amz-security-token")
    }

    /// The query with secret parameters (session token, signature, credential) replaced.
    var redactedQuery: String {
        self.query.split(separator: "&", omittingEmptySubsequences: false).map { parameter -> String in
            let name = parameter.prefix { $0 != "=" }
            switch name.lowercased() {
            case "x-amz-security-token", "x-amz-signature", "x-amz-credential": return String(name) + "=<redacted>"
            default: return String(parameter)
            }
        }.joined(separator: "&")
    }

    /// A URL for error messages, without its query (presigned URLs carry secrets there).
    static func redacted(_ url: URL) -> String {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        components?.query = nil
        components?.user = nil
        components?.password = nil
        return "'\(components?.string ?? "the URL")'"
    }
}

extension SigV4Request.Header: CustomStringConvertible {
    /// `name: value`, with the value of `Authorization` and `X-Amz-Security-Token` redacted.
    public var description: String {
        SigV4Request.isSecretHeader(self.name) ? "\(self.name): <redacted>" : "\(self.name): \(self.value)"
    }
}

extension SigV4Request: CustomStringConvertible, CustomDebugStringConvertible {
    /// The URL with the query's session token, signature and credential redacted, for messages.
    package var redactedURLString: String {
        var text = "\(self.scheme)://\(self.host)\(self.path.isEmpty ? "/" : self.path)"
        if !self.query.isEmpty { text += "?" + self.redactedQuery }
        return text
    }

    /// The method, URL and headers, with session tokens, signatures and credentials redacted.
    public var description: String {
        var text = "\(self.method) \(self.redactedURLString)"
        if !self.headers.isEmpty {
            text += " [" + self.headers.map(\.description).joined(separator: ", ") + "]"
        }
        return "SigV4Request(" + text + ")"
    }

    /// The same as ``description``.
    public var debugDescription: String { self.description }
}

extension SigV4Request: CustomReflectable {
    /// No children: `dump` and `Mirror(reflecting:)` would otherwise list the stored secrets that
    /// ``description`` leaves out.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
