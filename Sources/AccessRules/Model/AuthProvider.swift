/// How a caller proves who it is: the `provider` field of an `@auth` rule, and a caller's auth mode.
///
/// Open-ended, like the API's auth modes: new providers may be added without breaking users.
public struct AuthProvider: Sendable, Hashable, CustomStringConvertible {
    enum Base: String, Sendable, Hashable, CaseIterable {
        case userPools
        case oidc
        case iam
        case apiKey
        case function
    }

    let base: Base

    /// A Cognito user pool token: claims such as `sub`, `cognito:username` and `cognito:groups`.
    public static let userPools = AuthProvider(base: .userPools)
    /// A token from another OpenID Connect provider, with its own claims.
    public static let oidc = AuthProvider(base: .oidc)
    /// SigV4 signing with an identity pool role: authenticated or unauthenticated.
    public static let iam = AuthProvider(base: .iam)
    /// An API key: no identity at all.
    public static let apiKey = AuthProvider(base: .apiKey)
    /// A Lambda (here: server-supplied) authorizer.
    public static let function = AuthProvider(base: .function)

    /// Every provider, in the order Amplify's client tries them.
    public static let all: [AuthProvider] = Base.allCases.map { AuthProvider(base: $0) }

    /// The provider with this name as written in a schema (`userPools`, `oidc`, `iam`, `apiKey`,
    /// `function`), or `nil`.
    /// - Parameter name: The name, case-sensitive as in Amplify.
    public init?(name: String) {
        guard let base = Base(rawValue: name) else { return nil }
        self.base = base
    }

    init(base: Base) {
        self.base = base
    }

    /// The name as written in a schema.
    public var name: String { self.base.rawValue }

    /// The name as written in a schema.
    public var description: String { self.base.rawValue }

    /// The names of every provider, for hints.
    static let names: [String] = Base.allCases.map(\.rawValue)
}
