/// An IAM action name such as `s3:GetObject`, with shorthands for tests: `.s3("GetObject")`.
public struct ActionName: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The full action, `service:Action`.
    public let rawValue: String

    /// Creates an action from its full name.
    /// - Parameter rawValue: Such as `s3:GetObject`.
    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    /// Creates a value from a string literal.
    public init(stringLiteral value: String) {
        self.init(value)
    }

    /// An action of any service.
    /// - Parameters:
    ///   - service: The service prefix, such as `dynamodb`.
    ///   - action: The action, such as `GetItem`.
    public static func service(_ service: String, _ action: String) -> ActionName {
        ActionName("\(service):\(action)")
    }

    /// An Amazon S3 action, such as `.s3("GetObject")`.
    /// - Parameter action: The action name.
    public static func s3(_ action: String) -> ActionName { .service("s3", action) }

    /// An AWS STS action, such as `.sts("AssumeRoleWithWebIdentity")`.
    /// - Parameter action: The action name.
    public static func sts(_ action: String) -> ActionName { .service("sts", action) }

    /// An IAM action.
    /// - Parameter action: The action name.
    public static func iam(_ action: String) -> ActionName { .service("iam", action) }

    /// A short textual form.
    public var description: String { self.rawValue }
}
