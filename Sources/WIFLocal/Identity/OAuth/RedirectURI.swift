import WIFFoundation

/// A redirect URI taken apart enough to compare it with a client's registered ones.
///
/// A registered URI on a loopback host matches the same URI with any port (RFC 8252 §7.3): a native app
/// listens on a port picked at run time. Every other registered URI must match exactly, character for
/// character (RFC 6749 §3.1.2, OAuth 2.0 Security BCP §4.1.3).
struct RedirectURI: Sendable, Hashable {
    /// The longest redirect URI accepted.
    static let maximumLength = 2048

    /// Why a redirect URI cannot be used.
    struct Problem: Error, Sendable, Equatable {
        var reason: String
    }

    /// The URI as given.
    let text: String
    /// The scheme, lower-cased.
    let scheme: String
    /// The host, lower-cased, without the brackets of an IPv6 literal; empty when there is no authority.
    let host: String
    /// The port, when the authority names one.
    let port: Int?
    /// The path and query, `/` when the path is empty.
    let pathAndQuery: String

    /// Whether this is an `http` URI on `127.0.0.1`, `::1` or `localhost`.
    var isLoopback: Bool {
        self.scheme == "http" && (self.host == "127.0.0.1" || self.host == "::1" || self.host == "localhost")
    }

    /// This URI's origin as a Content-Security-Policy source: `http://127.0.0.1:53682`, `http://[::1]:8080`,
    /// or `com.example.app:` for a private-use scheme. The sign-in form names it in `form-action`, because
    /// browsers hold the redirect that follows a form submission to that directive too. `nil` when the host
    /// has characters a source expression cannot carry.
    var policySource: String? {
        guard !self.host.isEmpty else { return self.scheme + ":" }
        let port = self.port.map { ":\($0)" } ?? ""
        if self.host.contains(":") {
            guard self.host.utf8.allSatisfy({ $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") || Self.isHexDigit($0) }) else { return nil }
            return "\(self.scheme)://[\(self.host)]\(port)"
        }
        guard self.host.utf8.allSatisfy({ $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") || Self.isLetterOrDigit($0) }) else { return nil }
        return "\(self.scheme)://\(self.host)\(port)"
    }

    private static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }

    /// Parses a redirect URI: an absolute URI with a scheme, no fragment, no user information, no spaces or
    /// control characters; `http` and `https` URIs need a host.
    static func parse(_ text: String) -> Result<RedirectURI, Problem> {
        guard !text.isEmpty, text.utf8.count <= Self.maximumLength else {
            return .failure(Problem(reason: "must be 1 to \(Self.maximumLength) characters long"))
        }
        guard !text.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) else {
            return .failure(Problem(reason: "must not contain spaces or control characters"))
        }
        guard !text.contains("#") else {
            return .failure(Problem(reason: "must not have a fragment (#…), not '\(text)'"))
        }
        let absolute = Problem(reason: "must be an absolute URI such as http://127.0.0.1/callback, not '\(text)'")
        guard let colon = text.firstIndex(of: ":") else { return .failure(absolute) }
        let scheme = text[..<colon]
        // RFC 3986 §3.1: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )
        func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") }
        guard let first = scheme.utf8.first, isLetter(first),
            scheme.utf8.allSatisfy({ isLetter($0) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || "+-.".utf8.contains($0) })
        else { return .failure(absolute) }
        let lowerScheme = scheme.lowercased()
        var rest = text[text.index(after: colon)...]

        guard rest.hasPrefix("//") else {
            // A private-use scheme (`com.example.app:/callback`, RFC 8252 §7.1).
            guard lowerScheme != "http", lowerScheme != "https", !rest.isEmpty else { return .failure(absolute) }
            return .success(RedirectURI(text: text, scheme: lowerScheme, host: "", port: nil, pathAndQuery: String(rest)))
        }
        rest = rest.dropFirst(2)
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        let pathAndQuery = rest[authorityEnd...]
        guard !authority.contains("@") else {
            return .failure(Problem(reason: "must not carry user information (user@host), not '\(text)'"))
        }
        var host = Substring(authority)
        var port: Int?
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return .failure(absolute) }
            let after = host[host.index(after: close)...]
            let literal = host[host.index(after: host.startIndex)..<close]
            if !after.isEmpty {
                guard after.hasPrefix(":"), let value = Int(after.dropFirst()), (0...65535).contains(value) else {
                    return .failure(Problem(reason: "has a port that is not a number from 0 to 65535: '\(text)'"))
                }
                port = value
            }
            host = literal
        } else if let portColon = host.lastIndex(of: ":") {
            guard let value = Int(host[host.index(after: portColon)...]), (0...65535).contains(value) else {
                return .failure(Problem(reason: "has a port that is not a number from 0 to 65535: '\(text)'"))
            }
            port = value
            host = host[..<portColon]
        }
        guard !host.isEmpty else {
            return .failure(Problem(reason: "must name a host, not '\(text)'"))
        }
        return .success(
            RedirectURI(
                text: text, scheme: lowerScheme, host: host.lowercased(), port: port,
                pathAndQuery: pathAndQuery.isEmpty ? "/" : String(pathAndQuery)
            )
        )
    }

    /// Whether this presented URI is one the client registered: exactly, or a registered loopback URI with
    /// another port, or any loopback URI when the client accepts every one.
    func isRegistered(for client: OAuthClient) -> Bool {
        if client.anyLoopbackRedirect && self.isLoopback { return true }
        for registered in client.redirectURIs {
            if registered == self.text { return true }
            guard case .success(let uri) = Self.parse(registered), uri.isLoopback, self.isLoopback else { continue }
            if uri.host == self.host && uri.pathAndQuery == self.pathAndQuery { return true }
        }
        return false
    }

    /// This URI with response parameters added to its query.
    /// - Parameter parameters: Names and values, percent-encoded here.
    /// - Returns: The URI to send the user agent to.
    func adding(_ parameters: [(String, String)]) -> String {
        let encoded = parameters.map { "\(PercentEncoding.encode($0.0))=\(PercentEncoding.encode($0.1))" }.joined(separator: "&")
        guard !encoded.isEmpty else { return self.text }
        return self.text + (self.text.contains("?") ? (self.text.hasSuffix("?") || self.text.hasSuffix("&") ? "" : "&") : "?") + encoded
    }
}
