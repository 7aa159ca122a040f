import Foundation

extension CognitoIdentityClient {
    /// How a ``CognitoIdentityClient`` reaches Cognito Identity and retries.
    public struct Configuration: Sendable, Hashable {
        /// The region whose endpoint to call (`https://cognito-identity.<region>.amazonaws.com`); `nil`
        /// reads `AWS_REGION`, then `AWS_DEFAULT_REGION`, and falls back to `us-east-1`.
        public var region: String?
        /// An explicit endpoint URL (a local stack); it wins over `AWS_ENDPOINT_URL_COGNITO_IDENTITY` and
        /// `AWS_ENDPOINT_URL`, which win over the regional default.
        public var endpoint: String?
        /// How transient failures (`TooManyRequestsException`, 5xx answers, broken connections) are retried.
        public var retry: Retry
        /// How long one attempt may take.
        public var timeout: Duration
        /// How long a whole call may take, retries included.
        public var deadline: Duration

        /// Creates a configuration.
        /// - Parameters:
        ///   - region: The region, or `nil` to read it from the environment.
        ///   - endpoint: An endpoint URL that overrides the environment and the regional default.
        ///   - retry: How transient failures are retried.
        ///   - timeout: How long one attempt may take.
        ///   - deadline: How long a whole call may take, retries included.
        public init(
            region: String? = nil, endpoint: String? = nil, retry: Retry = Retry(), timeout: Duration = .seconds(30),
            deadline: Duration = .seconds(15)
        ) {
            self.region = region
            self.endpoint = endpoint
            self.retry = retry
            self.timeout = timeout
            self.deadline = deadline
        }

        /// Jittered exponential backoff, with the same defaults as STS's.
        public typealias Retry = RetryBackoff<STSRetryDefaults>

        /// The region and endpoint a client built from this configuration and `environment` calls.
        func resolve(environment: [String: String]) throws(WIFCredentialsError) -> (region: String, endpoint: URL) {
            let sts = STSClient.Configuration(region: self.region)
            let region = try sts.resolveRegion(environment: environment)
            if let endpoint = self.endpoint {
                return (region, try STSClient.Configuration.validatedEndpoint(endpoint, origin: "configured Cognito Identity endpoint"))
            }
            if environment["AWS_IGNORE_CONFIGURED_ENDPOINT_URLS"]?.lowercased() != "true" {
                for name in ["AWS_ENDPOINT_URL_COGNITO_IDENTITY", "AWS_ENDPOINT_URL"] {
                    if let value = environment[name], !value.isEmpty {
                        return (region, try STSClient.Configuration.validatedEndpoint(value, origin: name))
                    }
                }
            }
            let suffix = region.hasPrefix("cn-") ? "amazonaws.com.cn" : "amazonaws.com"
            guard let url = URL(string: "https://cognito-identity.\(region).\(suffix)/") else {
                throw .invalidConfiguration("cannot build the Cognito Identity endpoint for region '\(region)'")
            }
            return (region, url)
        }

        func validate() throws(WIFCredentialsError) {
            if let problem = self.retry.problem(subject: "Cognito Identity retry") { throw .invalidConfiguration(problem) }
            if self.timeout <= .zero { throw .invalidConfiguration("Cognito Identity timeout is \(self.timeout); it must be positive") }
            if self.deadline <= .zero { throw .invalidConfiguration("Cognito Identity deadline is \(self.deadline); it must be positive") }
        }
    }
}

extension CognitoIdentityClient {
    /// The most logins in one call.
    public static let maximumLogins = 10

    /// Checks a pool or identity id: `REGION:ID` (`[\w-]+:[0-9a-f-]+`), 1 to 55 characters.
    /// - Throws: ``WIFCredentialsError`` `invalidParameter` naming `name` and the rule broken.
    public static func checkId(_ id: String, name: String) throws(WIFCredentialsError) {
        let isWord = { (byte: UInt8) in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
        let isHex = { (byte: UInt8) in
            (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "-")
        }
        let bytes = Array(id.utf8)
        guard (1...55).contains(bytes.count), let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0, colon < bytes.count - 1,
            bytes[..<colon].allSatisfy(isWord), bytes[(colon + 1)...].allSatisfy(isHex)
        else {
            throw .invalidParameter("\(name) '\(id.prefix(64))' is not REGION:ID (such as us-east-1:0f1e…), 1 to 55 characters")
        }
    }

    /// Checks a logins map: at most ten entries, keys of 1 to 128 characters, tokens of 1 to 50000.
    static func checkLogins(_ logins: [String: String]) throws(WIFCredentialsError) {
        guard logins.count <= Self.maximumLogins else {
            throw .invalidParameter("Logins has \(logins.count) entries; Cognito Identity accepts at most \(Self.maximumLogins)")
        }
        for (key, token) in logins {
            guard (1...128).contains(key.utf8.count) else {
                throw .invalidParameter("the Logins key '\(key.prefix(64))' is \(key.utf8.count) characters; 1 to 128 are accepted")
            }
            guard (1...50_000).contains(token.utf8.count) else {
                throw .invalidParameter("the Logins token of \(key) is \(token.utf8.count) characters; 1 to 50000 are accepted")
            }
        }
    }
}
