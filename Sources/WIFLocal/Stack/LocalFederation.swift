import Foundation
import Logging
import WIFHTTP

/// What a development user federates into under a stack's configuration, and the development tokens
/// that get them there.
///
/// It needs only the data directory (for the issuer's keys), not a running server, so tools can print a
/// token before or while the stack runs; a running stack hands out the same through ``LocalEndpoint``.
///
/// ```swift
/// let federation = try LocalFederation(configuration: .default(dataDirectory: path))
/// let alice = try federation.developmentToken(provider: "google", user: "alice")
/// // alice.token, alice.roleArn (personal-store-google), alice.prefix ("google/alice/")
/// ```
public struct LocalFederation: Sendable {
    /// The longest lifetime of a development token, in seconds.
    public static let maximumTokenLifetime = 86_400

    let state: LocalState
    private let tokens: DevelopmentTokenIssuer

    /// The configuration the answers come from.
    public var configuration: LocalConfiguration { self.state.configuration }

    /// Opens the data directory of a configuration, creating it and its keys when missing.
    /// - Parameters:
    ///   - configuration: The stack's configuration; it is checked first.
    ///   - logger: Where to log.
    /// - Throws: ``LocalStackError`` when the configuration is invalid or the data directory unusable.
    public init(configuration: LocalConfiguration, logger: Logger = .noop) throws(LocalStackError) {
        try configuration.validate()
        try self.init(state: try LocalState(configuration: configuration, logger: logger))
    }

    init(state: LocalState) throws(LocalStackError) {
        self.state = state
        self.tokens = try DevelopmentTokenIssuer(state: state)
    }

    /// The role meant for a provider profile's users: the first role that names the profile.
    /// - Parameter provider: The profile's name.
    /// - Returns: The role, or `nil` when no role names the profile.
    public func role(forProvider provider: String) -> RoleDefinition? {
        self.configuration.roles.first { $0.provider == provider }
    }

    /// The ARN of the role meant for a provider profile's users.
    /// - Parameter provider: The profile's name.
    /// - Returns: `arn:aws:iam::ACCOUNT:role/NAME`, or `nil` when no role names the profile.
    public func roleArn(forProvider provider: String) -> String? {
        self.role(forProvider: provider).map { self.configuration.arn(of: $0) }
    }

    /// A user's private prefix under the role meant for the provider's users: the role's partition
    /// template with `{id}` replaced by the user id.
    /// - Parameters:
    ///   - provider: The profile's name.
    ///   - user: The user id.
    /// - Returns: The prefix (`facebook/1001/`), or `nil` when no role names the profile or it has no template.
    public func partitionPrefix(provider: String, user: String) -> String? {
        guard let template = self.role(forProvider: provider)?.partitionTemplate else { return nil }
        return template.replacingOccurrences(of: "{id}", with: user)
    }

    /// Issues a development token for a user of a provider profile, shaped like the real provider's.
    /// - Parameters:
    ///   - provider: The profile's name (`facebook`, `google`, …).
    ///   - user: The user id the token carries (`sub`, Facebook id, …).
    ///   - audience: The client id the token is for; the profile's first client id by default.
    ///   - ttl: The token's lifetime in seconds, 1 to ``maximumTokenLifetime``.
    ///   - principalTags: Session tags for the token's `https://aws.amazon.com/tags` claim
    ///     (`{"principal_tags": {"sub": ["alice"]}}`), which STS turns into `aws:PrincipalTag/<key>`;
    ///   none by default. ID-token profiles only.
    ///   - groups: The `cognito:groups` claim of a Cognito user pool profile's token (`admin`); none by default.
    ///   - tokenUse: For a Cognito user pool profile, the ID token (the default) or the access token.
    /// - Returns: The token with the role, bucket and prefix the user federates into.
    /// - Throws: ``LocalStackError`` naming the unknown profile, the bad user id or lifetime, tags on an
    ///   access token, or why the token could not be signed.
    public func developmentToken(
        provider: String, user: String, audience: String? = nil, ttl: Int = 3600, principalTags: [String: [String]] = [:],
        groups: [String] = [], tokenUse: TokenUse = .id
    ) throws(LocalStackError) -> DevelopmentToken {
        guard let profile = self.configuration.provider(named: provider) else {
            let names = self.configuration.providers.map(\.name).joined(separator: ", ")
            throw LocalStackError("unknown provider '\(provider)'; the configuration has \(names.isEmpty ? "none" : names)")
        }
        guard !user.isEmpty, user.utf8.count <= 255 else {
            throw LocalStackError("the user id must be 1 to 255 bytes long, not \(user.utf8.count)")
        }
        // A '/' would put one user's prefix inside another's (`google/a/b/` is under `google/a/`).
        guard !user.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F || $0 == "/" }) else {
            throw LocalStackError("the user id must not contain '/' or control characters")
        }
        guard (1...Self.maximumTokenLifetime).contains(ttl) else {
            throw LocalStackError("the token lifetime must be 1 to \(Self.maximumTokenLifetime) seconds, not \(ttl)")
        }
        if let audience, audience.isEmpty {
            throw LocalStackError("the audience must not be empty")
        }
        let issuedAt = self.state.timeSource.now()
        let token = try self.tokens.issue(profile: profile, user: user, audience: audience, ttl: ttl, now: issuedAt, principalTags: principalTags, groups: groups,
            tokenUse: tokenUse)
        let role = self.role(forProvider: provider)
        return DevelopmentToken(
            token: token,
            provider: provider,
            user: user,
            providerId: profile.providerId,
            roleArn: role.map { self.configuration.arn(of: $0) },
            bucket: role?.bucket,
            prefix: self.partitionPrefix(provider: provider, user: user),
            expiration: issuedAt.addingTimeInterval(TimeInterval(ttl))
        )
    }
}
