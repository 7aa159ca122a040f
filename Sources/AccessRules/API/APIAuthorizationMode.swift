/// How a request to an API proves who sends it: the authorization modes of an Amplify API, by the names
/// its configuration files use (`AWS_IAM`, `API_KEY`, `AMAZON_COGNITO_USER_POOLS`, `OPENID_CONNECT`,
/// `AWS_LAMBDA`, `NONE`).
public enum APIAuthorizationMode: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    /// SigV4 signing with an identity pool role (signed in or guest).
    case iam = "AWS_IAM"
    /// An API key in `x-api-key`.
    case apiKey = "API_KEY"
    /// A Cognito user pool token in `Authorization`.
    case userPools = "AMAZON_COGNITO_USER_POOLS"
    /// Another OpenID Connect provider's token in `Authorization`.
    case oidc = "OPENID_CONNECT"
    /// A custom token in `Authorization`, decided by the API's function.
    case lambda = "AWS_LAMBDA"
    /// No authorization at all.
    case none = "NONE"

    /// The mode named `name`: a configuration file's name (`AWS_IAM`, …) or a schema provider's
    /// (`iam`, `apiKey`, `userPools`, `oidc`, `function`, `lambda`, `none`); `nil` for anything else.
    /// - Parameter name: The name, case-sensitive.
    public init?(name: String) {
        if let mode = APIAuthorizationMode(rawValue: name) {
            self = mode
            return
        }
        switch name {
        case "iam": self = .iam
        case "apiKey": self = .apiKey
        case "userPools", "userPool": self = .userPools
        case "oidc": self = .oidc
        case "function", "lambda": self = .lambda
        case "none": self = .none
        default: return nil
        }
    }

    /// The mode that serves rules of `provider`.
    /// - Parameter provider: A rule's provider.
    public init(provider: AuthProvider) {
        switch provider.base {
        case .userPools: self = .userPools
        case .oidc: self = .oidc
        case .iam: self = .iam
        case .apiKey: self = .apiKey
        case .function: self = .lambda
        }
    }

    /// The rule provider a caller in this mode is, or `nil` for ``none``, which no rule serves.
    public var provider: AuthProvider? {
        switch self {
        case .iam: return .iam
        case .apiKey: return .apiKey
        case .userPools: return .userPools
        case .oidc: return .oidc
        case .lambda: return .function
        case .none: return nil
        }
    }

    /// The name in configuration files.
    public var description: String { self.rawValue }

    /// Every name a configuration may use, for hints.
    public static let names: [String] = APIAuthorizationMode.allCases.map(\.rawValue)
}
