/// One request to authorize: an action on a resource, in a context.
///
/// The request prepares its action and resource for matching once, so evaluating the same request against
/// many policy sets (or the same policy set many times) does no further work on them.
public struct AuthorizationRequest: Sendable {
    /// The action, such as `s3:GetObject` (matched case-insensitively).
    public var action: String {
        didSet { self.actionKey = lowercasedASCIIString(self.action) }
    }

    /// The resource ARN, such as `arn:aws:s3:::bucket/alice/photo.jpg` (matched case-sensitively), or `*`
    /// for actions that take no resource.
    public var resource: String {
        didSet {
            self.resource.makeContiguousUTF8()
            self.resourceParts = ResourceParts(self.resource)
        }
    }

    /// The principal, time and context keys.
    public var context: RequestContext

    /// The account that owns the resource, when it differs from the principal's. `nil` means the same account
    /// (S3 ARNs carry no account, so cross-account requests must say so here).
    public var resourceAccount: String?

    /// The action lowercased (ASCII only, as IAM compares actions); actions are short, so this is usually a
    /// small string stored inline.
    private(set) var actionKey: String
    /// Where the resource's colon-separated parts end.
    private(set) var resourceParts: ResourceParts

    /// Creates a request.
    /// - Parameters:
    ///   - action: The action, such as `s3:GetObject`.
    ///   - resource: The resource ARN.
    ///   - context: The principal, time and context keys.
    ///   - resourceAccount: The resource owner's account if it differs from the principal's.
    public init(action: String, resource: String, context: RequestContext, resourceAccount: String? = nil) {
        var resource = resource
        resource.makeContiguousUTF8()
        self.action = action
        self.resource = resource
        self.context = context
        self.resourceAccount = resourceAccount
        self.actionKey = lowercasedASCIIString(action)
        self.resourceParts = ResourceParts(resource)
    }

    /// Calls `body` with the resource's UTF-8 bytes (the string is kept contiguous, so this does not copy).
    @inline(__always)
    func withResourceBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        withUTF8Bytes(self.resource, body)
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
        AuthorizationRequest(
            action: "s3:" + action, resource: joinedUTF8("arn:", partition, ":s3:::", bucket, "/", key), context: context)
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
        var context = context
        context.setValue(ContextValue(prefix ?? ""), forKey: .s3Prefix, name: "s3:prefix")
        if let delimiter { context.setValue(ContextValue(delimiter), forKey: .s3Delimiter, name: "s3:delimiter") }
        if let maxKeys { context.setValue(ContextValue(String(maxKeys)), forKey: .s3MaxKeys, name: "s3:max-keys") }
        return AuthorizationRequest(
            action: "s3:ListBucket", resource: joinedUTF8("arn:", partition, ":s3:::", bucket), context: context)
    }
}

func lowercasedASCII(_ text: String) -> [UInt8] {
    text.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
}

/// Calls `body` with the UTF-8 of `text`, without copying when the string is stored contiguously (native
/// strings always are).
@inline(__always)
func withUTF8Bytes<Result>(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
    if let result = text.utf8.withContiguousStorageIfAvailable(body) { return result }
    return Array(text.utf8).withUnsafeBufferPointer(body)
}

/// `text` with ASCII letters lowercased and every other byte kept; returns `text` itself when it has no
/// uppercase ASCII letter, and builds short results inline without allocating.
func lowercasedASCIIString(_ text: String) -> String {
    withUTF8Bytes(text) { bytes in
        guard bytes.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) else { return text }
        return String(unsafeUninitializedCapacity: bytes.count) { buffer in
            for index in 0..<bytes.count {
                let byte = bytes[index]
                buffer[index] = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
            }
            return bytes.count
        }
    }
}

/// The concatenation of `parts`, built in one allocation of the exact size.
func joinedUTF8(_ parts: String...) -> String {
    var count = 0
    for part in parts { count += part.utf8.count }
    return String(unsafeUninitializedCapacity: count) { buffer in
        var offset = 0
        for part in parts {
            withUTF8Bytes(part) { bytes in
                guard let source = bytes.baseAddress, let target = buffer.baseAddress else { return }
                (target + offset).update(from: source, count: bytes.count)
                offset += bytes.count
            }
        }
        return offset
    }
}

/// The end offsets of a resource ARN's colon-separated parts: the first five colons, then the end of the
/// string (so at most six parts, the last of which may itself contain colons). Stored inline, without an
/// array.
struct ResourceParts: Sendable {
    private var storage: (Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0)
    /// The number of parts, 1 to 6.
    private(set) var count = 0

    init(_ resource: String) {
        let length = withUTF8Bytes(resource) { bytes in
            var index = 0
            while index < bytes.count, self.count < 5 {
                if bytes[index] == UInt8(ascii: ":") { self.append(index) }
                index += 1
            }
            return bytes.count
        }
        self.append(length)
    }

    private mutating func append(_ end: Int) {
        let offset = self.count * MemoryLayout<Int>.stride
        withUnsafeMutableBytes(of: &self.storage) { $0.storeBytes(of: end, toByteOffset: offset, as: Int.self) }
        self.count += 1
    }

    /// The end offset of part `index`.
    @inline(__always)
    subscript(index: Int) -> Int {
        precondition(index >= 0 && index < self.count)
        return withUnsafeBytes(of: self.storage) { $0.load(fromByteOffset: index * MemoryLayout<Int>.stride, as: Int.self) }
    }
}
