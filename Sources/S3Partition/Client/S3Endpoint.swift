import Foundation
import WIFCredentials
import WIFFoundation

/// The S3 endpoint a client sends to, resolved once from its configuration and environment.
public struct S3Endpoint: Sendable, Hashable, CustomStringConvertible {
    /// `http` or `https`.
    public let scheme: String
    /// The host name or IP address, lowercased; IPv6 addresses in brackets.
    public let host: String
    /// The port, when it is not the scheme's default.
    public let port: Int?
    /// A percent-encoded path put in front of every request's path, without a final `/`; usually empty.
    public let basePath: String
    /// Whether the endpoint was configured (explicitly or through the environment) rather than being
    /// AWS's regional endpoint.
    public let isCustom: Bool

    /// The `Host` header value: the host, with `:port` when the port is not the default.
    public var hostHeader: String {
        if let port { return "\(self.host):\(port)" }
        return self.host
    }

    /// Whether the host is an IPv4 or IPv6 address (never usable for virtual-hosted requests).
    public var hostIsIPAddress: Bool {
        if self.host.hasPrefix("[") { return true }
        let parts = self.host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { UInt8($0) != nil }
    }

    /// The endpoint as a URL string, such as `https://s3.eu-west-1.amazonaws.com`.
    public var description: String {
        "\(self.scheme)://\(self.hostHeader)\(self.basePath)"
    }

    /// Creates an endpoint from a URL string.
    /// - Parameters:
    ///   - text: An `http` or `https` URL with a host and no query, user info or fragment.
    ///   - origin: Where the value came from, for error messages (such as `AWS_ENDPOINT_URL_S3`).
    ///   - isCustom: Whether this is a configured endpoint.
    /// - Throws: ``S3Error`` with code ``S3Error/Code/invalidConfiguration`` naming what is wrong.
    init(parsing text: String, origin: String, isCustom: Bool = true) throws(S3Error) {
        let shown = text.count > 200 ? String(text.prefix(200)) + "…" : text
        guard let components = URLComponents(string: text) else {
            throw .invalidConfiguration("\(origin) '\(shown)' is not a URL")
        }
        guard let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw .invalidConfiguration("\(origin) '\(shown)' has scheme '\(components.scheme ?? "")'; S3 endpoints must use http or https")
        }
        if components.user != nil || components.password != nil {
            // Not echoed: the user info may hold a password.
            throw .invalidConfiguration("\(origin) contains user credentials before the host; remove them")
        }
        guard var host = components.percentEncodedHost, !host.isEmpty else {
            throw .invalidConfiguration("\(origin) '\(shown)' has no host")
        }
        if components.query != nil || components.fragment != nil {
            throw .invalidConfiguration("\(origin) '\(shown)' has a query or fragment; give only scheme, host, port and path")
        }
        host = host.lowercased()
        if host.contains(":") && !host.hasPrefix("[") { host = "[\(host)]" }
        let allowed = host.utf8.allSatisfy { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: ":")
                || byte == UInt8(ascii: "[") || byte == UInt8(ascii: "]") || byte == UInt8(ascii: "_")
        }
        guard allowed else {
            throw .invalidConfiguration("\(origin) '\(shown)' has an invalid host name")
        }
        var port = components.port
        if let value = port {
            guard (1...65535).contains(value) else { throw .invalidConfiguration("\(origin) '\(shown)' has port \(value)") }
            if value == (scheme == "https" ? 443 : 80) { port = nil }
        }
        var basePath = components.percentEncodedPath
        while basePath.hasSuffix("/") { basePath.removeLast() }
        self.scheme = scheme
        self.host = host
        self.port = port
        self.basePath = basePath
        self.isCustom = isCustom
    }

    /// AWS's regional S3 endpoint, `https://s3.<region>.amazonaws.com` (`.com.cn` in China).
    /// - Parameter region: A validated region name.
    /// - Returns: The endpoint.
    static func regional(_ region: String) -> S3Endpoint {
        let suffix = region.hasPrefix("cn-") ? "amazonaws.com.cn" : "amazonaws.com"
        return S3Endpoint(scheme: "https", host: "s3.\(region).\(suffix)", port: nil, basePath: "", isCustom: false)
    }

    private init(scheme: String, host: String, port: Int?, basePath: String, isCustom: Bool) {
        self.scheme = scheme
        self.host = host
        self.port = port
        self.basePath = basePath
        self.isCustom = isCustom
    }

    /// Resolves the region and endpoint of a configuration: the configured values first, then
    /// `AWS_REGION`/`AWS_DEFAULT_REGION` and `AWS_ENDPOINT_URL_S3`/`AWS_ENDPOINT_URL` (unless
    /// `AWS_IGNORE_CONFIGURED_ENDPOINT_URLS` is `true`), then `us-east-1` and its regional endpoint.
    /// - Parameters:
    ///   - configuration: The client configuration.
    ///   - environment: Environment variables.
    /// - Returns: The region and endpoint.
    /// - Throws: ``S3Error`` with code ``S3Error/Code/invalidConfiguration`` for a malformed region or
    ///   endpoint, naming the setting it came from.
    public static func resolve(
        _ configuration: S3Client.Configuration, environment: [String: String]
    ) throws(S3Error) -> (region: String, endpoint: S3Endpoint) {
        let region = try Self.resolveRegion(configuration.region, environment: environment)
        if let endpoint = configuration.endpoint {
            return (region, try S3Endpoint(parsing: endpoint, origin: "configured S3 endpoint"))
        }
        if environment["AWS_IGNORE_CONFIGURED_ENDPOINT_URLS"]?.lowercased() != "true" {
            for name in ["AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL"] {
                if let value = environment[name], !value.isEmpty {
                    return (region, try S3Endpoint(parsing: value, origin: name))
                }
            }
        }
        return (region, .regional(region))
    }

    static func resolveRegion(_ configured: String?, environment: [String: String]) throws(S3Error) -> String {
        let candidates: [(value: String?, origin: String)] = [
            (configured, "configured region"),
            (environment["AWS_REGION"], "AWS_REGION"),
            (environment["AWS_DEFAULT_REGION"], "AWS_DEFAULT_REGION"),
        ]
        for (value, origin) in candidates {
            guard let value else { continue }
            if value.isEmpty, origin != "configured region" { continue }
            // A region becomes part of a host name: nothing may smuggle in another host, port or path.
            let allowed = value.utf8.allSatisfy { byte in
                (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                    || byte == UInt8(ascii: "-")
            }
            guard !value.isEmpty, value.utf8.count <= 63, allowed, value.first != "-", value.last != "-" else {
                throw .invalidConfiguration(
                    "\(origin) '\(value.prefix(64))' is not a region name (lowercase letters, digits and dashes, such as us-east-1)")
            }
            return value
        }
        return "us-east-1"
    }

    // MARK: Addressing

    /// Whether requests for `bucket` put it in the host name under `style`.
    func usesVirtualHost(for bucket: String, style: S3Client.AddressingStyle) -> Bool {
        switch style.base {
        case .path: return false
        case .virtualHosted: return true
        case .auto:
            return !self.isCustom && !self.hostIsIPAddress && S3BucketName.isDNSCompatible(bucket, allowingDots: false)
        }
    }

    /// The host and path of a request.
    /// - Parameters:
    ///   - bucket: The bucket, or `nil` for service-level requests.
    ///   - key: The object key, or `nil` for bucket-level requests.
    ///   - style: The addressing style.
    /// - Returns: The `Host` header value and the percent-encoded path.
    func address(bucket: String?, key: String?, style: S3Client.AddressingStyle) -> (host: String, path: String) {
        let encodedKey = key.map { SigV4Request.percentEncode($0, keepingSlashes: true) }
        guard let bucket else {
            return (self.hostHeader, self.basePath + "/")
        }
        if self.usesVirtualHost(for: bucket, style: style) {
            var host = bucket + "." + self.host
            if let port { host += ":\(port)" }
            return (host, self.basePath + "/" + (encodedKey ?? ""))
        }
        var path = self.basePath + "/" + SigV4Request.percentEncode(bucket, keepingSlashes: false)
        if let encodedKey { path += "/" + encodedKey }
        return (self.hostHeader, path)
    }
}

/// Bucket name checks.
package enum S3BucketName {
    /// Whether a bucket name can be a host label: 3–63 lowercase letters, digits, hyphens (and dots,
    /// when allowed), starting and ending with a letter or digit, and not an IP address.
    static func isDNSCompatible(_ bucket: String, allowingDots: Bool) -> Bool {
        let utf8 = bucket.utf8
        guard utf8.count >= 3, utf8.count <= 63 else { return false }
        func isAlphanumeric(_ byte: UInt8) -> Bool {
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
        }
        guard let first = utf8.first, let last = utf8.last, isAlphanumeric(first), isAlphanumeric(last) else { return false }
        for byte in utf8 where !isAlphanumeric(byte) && byte != UInt8(ascii: "-") {
            if byte != UInt8(ascii: ".") || !allowingDots { return false }
        }
        if bucket.contains("..") { return false }
        return true
    }

    /// Checks a bucket name before it is put in a URL: 1–255 letters, digits, `.`, `-` or `_`, and not
    /// `.` or `..`. (AWS's own rules are stricter; S3-compatible servers vary, and S3 itself answers
    /// `InvalidBucketName` for the rest.)
    package static func validate(_ bucket: String) throws(S3Error) {
        let utf8 = bucket.utf8
        let allowed = utf8.allSatisfy { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: ".")
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
        guard !utf8.isEmpty, utf8.count <= 255, allowed, bucket != ".", bucket != ".." else {
            let shown = bucket.count > 64 ? String(bucket.prefix(64)) + "…" : bucket
            throw S3Error(
                code: .invalidBucketName,
                message: "bucket name '\(PrintableText.escaping(shown))' must be 1-255 letters, digits, '.', '-' or '_'")
        }
    }

    /// The AWS naming rule a bucket name breaks, for settings checked before anything is created: 3–63
    /// lower-case letters, digits, `-` and `.`, beginning and ending with a letter or digit, without
    /// `..`. Stricter than ``validate(_:)``, which only keeps a name fit for a URL.
    /// - Parameter name: The bucket name.
    /// - Returns: The rule broken, or `nil` for a good name.
    package static func awsRuleProblem(_ name: String) -> String? {
        let bytes = Array(name.utf8)
        guard (3...63).contains(bytes.count) else { return "it must be 3 to 63 characters long" }
        let allowed = bytes.allSatisfy {
            ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".")
        }
        guard allowed else { return "use lower-case letters, digits, '-' and '.' only" }
        let isAlphanumeric: (UInt8) -> Bool = { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) }
        guard let first = bytes.first, let last = bytes.last, isAlphanumeric(first), isAlphanumeric(last) else {
            return "it must begin and end with a letter or digit"
        }
        if name.contains("..") { return "it must not contain '..'" }
        return nil
    }
}
