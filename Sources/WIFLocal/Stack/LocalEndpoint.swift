import Foundation

/// A running local stack: where it listens, how it is configured, and the development tokens of its
/// users.
///
/// Point any AWS client at ``url`` (`AWS_ENDPOINT_URL=http://127.0.0.1:PORT`): the same port answers STS,
/// S3 and the development OIDC issuer.
public struct LocalEndpoint: Sendable {
    /// The base URL, `http://127.0.0.1:PORT` for a loopback stack.
    public let url: String
    /// The port the stack listens on (the one picked when the configuration asked for port `0`).
    public let port: Int
    /// The configuration the stack runs with; its `port` is the bound port.
    public let configuration: LocalConfiguration
    /// What the stack's users federate into, and their development tokens.
    public let federation: LocalFederation

    init(port: Int, federation: LocalFederation) {
        self.port = port
        self.federation = federation
        var configuration = federation.configuration
        configuration.port = port
        self.configuration = configuration
        self.url = "http://\(Self.urlHost(federation.configuration.host)):\(port)"
    }

    /// The `iss` of the development issuer's tokens (`https://wif.localhost` by default, whatever the port).
    public var issuer: String { self.configuration.issuer }

    /// Issues a development token for a user of a provider profile.
    /// - Parameters:
    ///   - provider: The profile's name (`facebook`, `google`, …).
    ///   - user: The user id the token carries.
    ///   - audience: The client id the token is for; the profile's first client id by default.
    ///   - ttl: The token's lifetime in seconds.
    ///   - groups: The `cognito:groups` claim of a Cognito user pool profile's token; none by default.
    ///   - tokenUse: For a Cognito user pool profile, the ID token (the default) or the access token.
    /// - Returns: The token with the role, bucket and prefix the user federates into.
    /// - Throws: ``LocalStackError`` when the profile is unknown, an argument is out of bounds or signing fails.
    public func developmentToken(
        provider: String, user: String, audience: String? = nil, ttl: Int = 3600, groups: [String] = [], tokenUse: TokenUse = .id
    ) throws(LocalStackError) -> DevelopmentToken {
        try self.federation.developmentToken(provider: provider, user: user, audience: audience, ttl: ttl, groups: groups, tokenUse: tokenUse)
    }

    /// The ARN of the role meant for a provider profile's users.
    /// - Parameter provider: The profile's name.
    /// - Returns: The role ARN, or `nil` when no role names the profile.
    public func roleArn(forProvider provider: String) -> String? {
        self.federation.roleArn(forProvider: provider)
    }

    /// A user's private prefix in the bucket of the role meant for the provider's users.
    /// - Parameters:
    ///   - provider: The profile's name.
    ///   - user: The user id.
    /// - Returns: The prefix (`google/alice/`), or `nil` when the role has no partition template.
    public func partitionPrefix(provider: String, user: String) -> String? {
        self.federation.partitionPrefix(provider: provider, user: user)
    }

    /// The host part of a URL for a listening address: wildcard addresses are reached through loopback,
    /// IPv6 literals are bracketed.
    static func urlHost(_ host: String) -> String {
        switch host {
        case "0.0.0.0", "": return "127.0.0.1"
        case "::", "[::]": return "[::1]"
        default: return host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        }
    }
}
