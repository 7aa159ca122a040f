import Foundation
import WIFFoundation

extension STSClient {
    /// How an ``STSClient`` reaches STS and retries.
    public struct Configuration: Sendable, Hashable {
        /// The region whose STS endpoint to call (`https://sts.<region>.amazonaws.com`).
        ///
        /// `nil` reads `AWS_REGION`, then `AWS_DEFAULT_REGION` from the environment given to the
        /// client, and falls back to `us-east-1`.
        public var region: String?
        /// An explicit endpoint URL (for a local STS such as moto or WIFLocal). It wins over
        /// `AWS_ENDPOINT_URL_STS` and `AWS_ENDPOINT_URL`, which win over the regional default.
        public var endpoint: String?
        /// How transient failures are retried.
        public var retry: Retry
        /// How long one attempt (sending the request and reading the answer) may take.
        public var timeout: Duration
        /// How long a whole call may take, every attempt and the waits between them included: an
        /// attempt gets at most what is left, and no retry starts whose wait would pass it.
        ///
        /// `nil` reads `WIF_STS_DEADLINE` (seconds, such as `15` or `2.5`) from the environment given
        /// to the client, and falls back to ``defaultDeadline``, 15 seconds, so an STS that accepts
        /// connections and never answers fails the call in 15 s.
        public var deadline: Duration?

        /// Creates a configuration.
        /// - Parameters:
        ///   - region: The region, or `nil` to read it from the environment.
        ///   - endpoint: An endpoint URL that overrides the environment and the regional default.
        ///   - retry: How transient failures are retried.
        ///   - timeout: How long one attempt may take.
        ///   - deadline: How long a whole call may take, retries included; `nil` for `WIF_STS_DEADLINE`
        ///     or 15 seconds.
        public init(
            region: String? = nil,
            endpoint: String? = nil,
            retry: Retry = Retry(),
            timeout: Duration = .seconds(30),
            deadline: Duration? = nil
        ) {
            self.region = region
            self.endpoint = endpoint
            self.retry = retry
            self.timeout = timeout
            self.deadline = deadline
        }

        /// The default ``deadline``: 15 seconds.
        public static let defaultDeadline: Duration = .seconds(15)

        /// The environment variable that sets ``deadline`` when the configuration leaves it `nil`.
        public static let deadlineVariable = "WIF_STS_DEADLINE"

        /// The deadline a client built from this configuration and `environment` keeps to.
        /// - Throws: ``WIFCredentialsError`` `invalidConfiguration` for a deadline that is not a
        ///   positive number of seconds, naming where it was set.
        func resolveDeadline(environment: [String: String]) throws(WIFCredentialsError) -> Duration {
            if let deadline = self.deadline {
                if deadline <= .zero { throw .invalidConfiguration("STS deadline is \(deadline); it must be positive") }
                return deadline
            }
            guard let text = environment[Self.deadlineVariable], !text.isEmpty else { return Self.defaultDeadline }
            guard let deadline = Self.deadline(seconds: text) else {
                throw .invalidConfiguration("\(Self.deadlineVariable) '\(text)' is not a number of seconds more than 0 and at most 86400")
            }
            return deadline
        }

        /// A deadline written as seconds (`15`, `2.5`), or `nil` unless it is a number above 0 and at
        /// most 86400.
        package static func deadline(seconds text: String) -> Duration? {
            guard let seconds = Double(text), seconds.isFinite, seconds > 0, seconds <= 86_400 else { return nil }
            return .milliseconds(Int64((seconds * 1000).rounded(.up)))
        }

        /// Jittered exponential backoff for transient failures (throttling, `IDPCommunicationError`,
        /// 5xx answers, broken connections), with ``STSRetryDefaults``.
        public typealias Retry = RetryBackoff<STSRetryDefaults>

        func validateRetry() throws(WIFCredentialsError) {
            if let problem = self.retry.problem(subject: "STS retry") { throw .invalidConfiguration(problem) }
        }
    }
}

extension STSClient.Configuration {
    /// The region and endpoint a client built from this configuration and `environment` calls.
    /// - Parameter environment: Environment variables (`AWS_REGION`, `AWS_DEFAULT_REGION`,
    ///   `AWS_ENDPOINT_URL_STS`, `AWS_ENDPOINT_URL`, `AWS_IGNORE_CONFIGURED_ENDPOINT_URLS`).
    /// - Returns: The region name and the endpoint URL.
    /// - Throws: ``WIFCredentialsError`` with code `invalidConfiguration` naming the setting that is
    ///   unusable: a malformed region, an endpoint that is not an http(s) URL with a host.
    public func resolve(environment: [String: String]) throws(WIFCredentialsError) -> (region: String, endpoint: URL) {
        let region = try self.resolveRegion(environment: environment)
        if let endpoint = self.endpoint {
            return (region, try Self.validatedEndpoint(endpoint, origin: "configured STS endpoint"))
        }
        let ignoreEnvironment = environment["AWS_IGNORE_CONFIGURED_ENDPOINT_URLS"]?.lowercased() == "true"
        if !ignoreEnvironment {
            for name in ["AWS_ENDPOINT_URL_STS", "AWS_ENDPOINT_URL"] {
                if let value = environment[name], !value.isEmpty {
                    return (region, try Self.validatedEndpoint(value, origin: name))
                }
            }
        }
        return (region, try Self.regionalEndpoint(region: region))
    }

    func resolveRegion(environment: [String: String]) throws(WIFCredentialsError) -> String {
        let candidates: [(value: String?, origin: String)] = [
            (self.region, "configured region"),
            (environment["AWS_REGION"], "AWS_REGION"),
            (environment["AWS_DEFAULT_REGION"], "AWS_DEFAULT_REGION"),
        ]
        for (value, origin) in candidates {
            guard let value else { continue }
            if value.isEmpty, origin != "configured region" { continue }
            return try Self.validatedRegion(value, origin: origin)
        }
        return "us-east-1"
    }

    static func validatedRegion(_ region: String, origin: String) throws(WIFCredentialsError) -> String {
        // A region becomes part of a host name: letters, digits and dashes only, so nothing can
        // smuggle a different host, port or path into the URL.
        let allowed = region.utf8.allSatisfy { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || byte == UInt8(ascii: "-")
        }
        guard !region.isEmpty, region.utf8.count <= 63, allowed,
            region.first != "-", region.last != "-"
        else {
            throw .invalidConfiguration(
                "\(origin) '\(region.prefix(64))' is not a region name (lowercase letters, digits and dashes, such as us-east-1)"
            )
        }
        return region
    }

    static func regionalEndpoint(region: String) throws(WIFCredentialsError) -> URL {
        let suffix = region.hasPrefix("cn-") ? "amazonaws.com.cn" : "amazonaws.com"
        guard let url = URL(string: "https://sts.\(region).\(suffix)") else {
            throw .invalidConfiguration("cannot build the STS endpoint for region '\(region)'")
        }
        return url
    }

    static func validatedEndpoint(_ text: String, origin: String) throws(WIFCredentialsError) -> URL {
        let shown = text.count > 200 ? String(text.prefix(200)) + "…" : text
        guard let components = URLComponents(string: text) else {
            throw .invalidConfiguration("\(origin) '\(shown)' is not a URL")
        }
        guard let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw .invalidConfiguration(
                "\(origin) '\(shown)' has scheme '\(components.scheme ?? "")'; STS endpoints must use http or https"
            )
        }
        guard let host = components.host, !host.isEmpty else {
            throw .invalidConfiguration("\(origin) '\(shown)' has no host")
        }
        if components.user != nil || components.password != nil {
            // Not echoed: the user info may hold a password.
            throw .invalidConfiguration("\(origin) contains user credentials before the host; remove them")
        }
        if components.query != nil || components.fragment != nil {
            throw .invalidConfiguration("\(origin) '\(shown)' has a query or fragment; give only scheme, host, port and path")
        }
        guard let url = components.url else {
            throw .invalidConfiguration("\(origin) '\(shown)' is not a URL")
        }
        return url
    }
}
