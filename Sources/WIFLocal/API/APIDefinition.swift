public import AccessRules
public import WIFAPIServer
import WIFFoundation

/// An API the local stack serves at `/apis/<name>/`: a REST API over the models of a schema whose
/// `@auth` rules it enforces, in the authorization modes it accepts.
public struct APIDefinition: Sendable {
    /// The API's name, also its id in `execute-api` ARNs: letters, digits, `-` and `_`.
    public var name: String
    /// The schema (GraphQL SDL with `@model` types and `@auth` rules).
    public var schema: String
    /// The modes the API accepts.
    public var authorizationModes: [APIAuthorizationMode]
    /// The mode clients use when a call names none.
    public var defaultMode: APIAuthorizationMode
    /// The API keys, for `API_KEY`.
    public var apiKeys: [APIKey]
    /// The stage in `execute-api` ARNs.
    public var stage: String
    /// The provider profile whose tokens are `AMAZON_COGNITO_USER_POOLS` tokens.
    public var userPoolProfile: String
    /// The provider profile whose tokens are `OPENID_CONNECT` tokens.
    public var oidcProfile: String
    /// How the rules are read: Amplify's current transformer (`v2`, deny by default) or the older one
    /// (`v1`, rules protect only the operations they list).
    public var semantics: RuleSemantics
    /// The function that decides `AWS_LAMBDA` tokens; required when the API accepts that mode.
    public var lambdaAuthorizer: LocalLambdaAuthorizer?

    /// Creates an API.
    public init(
        name: String, schema: String, authorizationModes: [APIAuthorizationMode], defaultMode: APIAuthorizationMode? = nil,
        apiKeys: [APIKey] = [], stage: String = "local", userPoolProfile: String = ProviderProfile.cognitoUserPoolName,
        oidcProfile: String = ProviderProfile.Kind.oidc.rawValue, semantics: RuleSemantics = .v2,
        lambdaAuthorizer: LocalLambdaAuthorizer? = nil
    ) {
        self.name = name
        self.schema = schema
        self.authorizationModes = authorizationModes
        self.defaultMode = defaultMode ?? authorizationModes.first ?? .none
        self.apiKeys = apiKeys
        self.stage = stage
        self.userPoolProfile = userPoolProfile
        self.oidcProfile = oidcProfile
        self.semantics = semantics
        self.lambdaAuthorizer = lambdaAuthorizer
    }

    /// Whether the API takes no credentials at all: its only mode is `NONE`, so every call is allowed
    /// and its schema must have no `@auth` rules.
    public var isOpen: Bool { self.authorizationModes == [.none] }

    /// The default API's name.
    public static let todoName = "todo"
    /// The default API's development key.
    public static let developmentAPIKey = "da2-wiflocaldevelopmentapikey00"

    /// The schema of the default API: Amplify's multi-auth example with IAM reads for signed-in users.
    public static let todoSchema = """
        type Todo @model @auth(rules: [
          { allow: owner },
          { allow: public, provider: apiKey, operations: [read] },
          { allow: private, provider: iam, operations: [read] }
        ]) {
          id: ID!
          content: String!
          owner: String
        }
        """

    /// The default API `todo`: user pool tokens (the `cognito-idp` profile), the development API key and
    /// IAM, with the schema ``todoSchema``.
    public static func todo() -> APIDefinition {
        APIDefinition(
            name: Self.todoName, schema: Self.todoSchema, authorizationModes: [.userPools, .apiKey, .iam], defaultMode: .userPools,
            apiKeys: [APIKey(name: "development", value: Self.developmentAPIKey)])
    }

    /// The `execute-api` resource of the API in a stack.
    /// - Parameters:
    ///   - region: The stack's region.
    ///   - accountId: The stack's account.
    public func resource(region: String, accountId: String) -> APIResource {
        APIResource(region: region, accountId: accountId, apiId: self.name, stage: self.stage)
    }

    /// An identity policy allowing `execute-api:Invoke` on `resources`.
    /// - Parameter resources: ARNs, with wildcards.
    /// - Returns: The policy JSON.
    public static func invokePolicy(resources: [String]) -> String {
        let list = resources.map(JSONWriter.quoted).joined(separator: ",")
        return #"{"Version":"2012-10-17","Statement":[{"Sid":"InvokeAPIs","Effect":"Allow","Action":"execute-api:Invoke","Resource":[\#(list)]}]}"#
    }
}
