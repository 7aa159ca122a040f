/// One request to authorize: an action on a resource, in a context.
///
/// The request prepares its action and resource for matching once, so evaluating the same request against
/// many policy sets (or the same policy set many times) does no further work on them.
public struct AuthorizationRequest: Sendable {
    /// The action, such as `s3:GetObject` (matched case-insensitively).
    public var action: String {
        didSet { self.actionKey = lowercasedASCII(self.action) }
    }

    /// The resource ARN, such as `arn:aws:s3:::bucket/alice/photo.jpg` (matched case-sensitively), or `*`
    /// for actions that take no resource.
    public var resource: String {
        didSet { (self.resourceBytes, self.resourcePartEnds) = splitResource(self.resource) }
    }

    /// The principal, time and context keys.
    public var context: RequestContext

    /// The account that owns the resource, when it differs from the principal's. `nil` means the same account
    /// (S3 ARNs carry no account, so cross-account requests must say so here).
    public var resourceAccount: String?

    private(set) var actionKey: [UInt8]
    private(set) var resourceBytes: [UInt8]
    /// End offsets of the resource's colon-separated parts (at most six; the last runs to the end).
    private(set) var resourcePartEnds: [Int]

    /// Creates a request.
    /// - Parameters:
    ///   - action: The action, such as `s3:GetObject`.
    ///   - resource: The resource ARN.
    ///   - context: The principal, time and context keys.
    ///   - resourceAccount: The resource owner's account if it differs from the principal's.
    public init(action: String, resource: String, context: RequestContext, resourceAccount: String? = nil) {
        self.action = action
        self.resource = resource
        self.context = context
        self.resourceAccount = resourceAccount
        self.actionKey = lowercasedASCII(action)
        (self.resourceBytes, self.resourcePartEnds) = splitResource(resource)
    }

    /// Whether the principal and the resource belong to different accounts.
    var isCrossAccount: Bool {
        guard let resourceAccount, let principalAccount = self.context.principal?.accountId else { return false }
        return resourceAccount != principalAccount
    }
}

extension AuthorizationRequest {
    /// A request for an S3 object action (`GetObject`, `PutObject`, `DeleteObject`, …).
    /// - Parameters:
    ///   - action: The S3 action name without the `s3:` prefix, such as `GetObject`.
    ///   - bucket: The bucket name.
    ///   - key: The object key.
    ///   - context: The principal, time and context keys.
    ///   - partition: The ARN partition, `aws` by default.
    public static func s3Object(
        _ action: String, bucket: String, key: String, context: RequestContext, partition: String = "aws"
    ) -> AuthorizationRequest {
        AuthorizationRequest(action: "s3:\(action)", resource: "arn:\(partition):s3:::\(bucket)/\(key)", context: context)
    }

    /// A `ListBucket` (ListObjects) request, with the `s3:prefix`, `s3:delimiter` and `s3:max-keys` keys S3
    /// adds to the context. A request without a prefix carries `s3:prefix` as the empty string, which is why
    /// AWS's examples allow `""` to let users list the bucket root.
    /// - Parameters:
    ///   - bucket: The bucket name.
    ///   - prefix: The `prefix` parameter.
    ///   - delimiter: The `delimiter` parameter, if any.
    ///   - maxKeys: The `max-keys` parameter, if any.
    ///   - context: The principal, time and other context keys.
    ///   - partition: The ARN partition, `aws` by default.
    public static func s3ListBucket(
        bucket: String, prefix: String? = nil, delimiter: String? = nil, maxKeys: Int? = nil,
        context: RequestContext, partition: String = "aws"
    ) -> AuthorizationRequest {
        var values: [String: ContextValue] = ["s3:prefix": ContextValue(prefix ?? "")]
        if let delimiter { values["s3:delimiter"] = ContextValue(delimiter) }
        if let maxKeys { values["s3:max-keys"] = ContextValue(String(maxKeys)) }
        return AuthorizationRequest(
            action: "s3:ListBucket", resource: "arn:\(partition):s3:::\(bucket)", context: context.merging(values))
    }
}

func lowercasedASCII(_ text: String) -> [UInt8] {
    text.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
}

/// The resource as UTF-8 and the end offsets of its first six colon-separated parts.
func splitResource(_ resource: String) -> ([UInt8], [Int]) {
    let bytes = Array(resource.utf8)
    var ends: [Int] = []
    ends.reserveCapacity(6)
    for (index, byte) in bytes.enumerated() where byte == UInt8(ascii: ":") && ends.count < 5 {
        ends.append(index)
    }
    ends.append(bytes.count)
    return (bytes, ends)
}
