/// An API as IAM names it: the resource of `execute-api:Invoke`,
/// `arn:aws:execute-api:<region>:<account>:<api-id>/<stage>/<METHOD>/<path>`.
public struct APIResource: Sendable, Hashable {
    /// The region.
    public var region: String
    /// The account that owns the API.
    public var accountId: String
    /// The API's id.
    public var apiId: String
    /// The stage.
    public var stage: String

    /// Creates a resource.
    public init(region: String, accountId: String, apiId: String, stage: String) {
        self.region = region
        self.accountId = accountId
        self.apiId = apiId
        self.stage = stage
    }

    /// The ARN of one call.
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - path: The path below the API's URL, with or without its leading `/`.
    /// - Returns: The `execute-api:Invoke` resource.
    public func arn(method: String, path: String) -> String {
        let relative = path.hasPrefix("/") ? path.dropFirst() : Substring(path)
        return "arn:aws:execute-api:\(self.region):\(self.accountId):\(self.apiId)/\(self.stage)/\(method)/\(relative)"
    }
}
