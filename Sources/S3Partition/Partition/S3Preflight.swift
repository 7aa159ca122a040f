import PolicyEngine
import WIFCredentials

/// A local policy check run before each request: the role's policies (and any session policy) are
/// evaluated with PolicyEngine, and a request they deny fails with the explanation instead of being
/// sent and coming back as a bare `403 AccessDenied`.
///
/// The check is advisory: S3 still decides. It sees what IAM would see for a web-identity session —
/// the principal, the provider's keys (`graph.facebook.com:id`, `accounts.google.com:sub`, …), the
/// time — from a ``PolicyEngine/WebIdentitySession`` or any context you build.
///
/// ```swift
/// let preflight = S3Preflight(
///     identityPolicies: [try Policy.parse(policyText, name: "personal-store")],
///     session: try WebIdentitySession(.facebook(userId: "1001", appId: "app"), role: roleArn, sessionName: "web")
/// )
/// let bucket = try PartitionedBucket(client: s3, bucket: "wif-personal", prefix: prefix, preflight: preflight)
/// ```
public struct S3Preflight: Sendable {
    /// The policies the check evaluates.
    public let evaluator: PolicyEvaluator
    /// The ARN partition of the S3 resources, `aws` by default.
    public let partition: String
    /// Builds the request context (principal, keys, time) for each check.
    let context: @Sendable () -> RequestContext

    /// Creates a check from policies and a context builder.
    /// - Parameters:
    ///   - identityPolicies: The role's permissions policies.
    ///   - sessionPolicies: Session policies passed when the session was created, if any.
    ///   - permissionsBoundary: The role's permissions boundary, if any.
    ///   - resourcePolicy: The bucket policy, if known.
    ///   - partition: The ARN partition, `aws` by default.
    ///   - context: Returns the context of a request made now; called once per check.
    public init(
        identityPolicies: [Policy],
        sessionPolicies: [Policy] = [],
        permissionsBoundary: Policy? = nil,
        resourcePolicy: Policy? = nil,
        partition: String = "aws",
        context: @escaping @Sendable () -> RequestContext
    ) {
        self.evaluator = PolicyEvaluator(
            identityPolicies: identityPolicies, resourcePolicy: resourcePolicy, sessionPolicies: sessionPolicies,
            permissionsBoundary: permissionsBoundary)
        self.partition = partition
        self.context = context
    }

    /// Creates a check for the requests of a web-identity session.
    /// - Parameters:
    ///   - identityPolicies: The role's permissions policies.
    ///   - sessionPolicies: Session policies passed to `AssumeRoleWithWebIdentity`, if any.
    ///   - permissionsBoundary: The role's permissions boundary, if any.
    ///   - resourcePolicy: The bucket policy, if known.
    ///   - partition: The ARN partition, `aws` by default.
    ///   - session: The session whose principal and provider keys the context carries.
    ///   - timeSource: The clock for `aws:CurrentTime`.
    public init(
        identityPolicies: [Policy],
        sessionPolicies: [Policy] = [],
        permissionsBoundary: Policy? = nil,
        resourcePolicy: Policy? = nil,
        partition: String = "aws",
        session: WebIdentitySession,
        timeSource: TimeSource = .system
    ) {
        // The session's keys are prepared once; each check only layers the time over them.
        let base = session.context()
        self.init(
            identityPolicies: identityPolicies, sessionPolicies: sessionPolicies, permissionsBoundary: permissionsBoundary,
            resourcePolicy: resourcePolicy, partition: partition,
            context: {
                var context = base
                context.time = Timestamp(timeSource.now())
                return context
            })
    }

    /// Checks an object action (`GetObject`, `PutObject`, `DeleteObject`, …) on a key.
    /// - Parameters:
    ///   - action: The S3 action without `s3:`, such as `GetObject`.
    ///   - bucket: The bucket.
    ///   - key: The object key.
    /// - Throws: ``S3Error`` with code ``S3Error/Code/preflightDenied`` and the explanation in
    ///   ``S3Error/preflightDenial`` when the policies deny the request.
    public func checkObject(_ action: String, bucket: String, key: String) throws(S3Error) {
        let request = AuthorizationRequest.s3Object(action, bucket: bucket, key: key, context: self.context(), partition: self.partition)
        try self.check(request, bucket: bucket, key: key)
    }

    /// Checks a `ListBucket` request with its prefix and delimiter.
    /// - Parameters:
    ///   - bucket: The bucket.
    ///   - prefix: The `prefix` parameter.
    ///   - delimiter: The `delimiter` parameter, if any.
    /// - Throws: ``S3Error`` with code ``S3Error/Code/preflightDenied`` when the policies deny it.
    public func checkList(bucket: String, prefix: String, delimiter: String?) throws(S3Error) {
        let request = AuthorizationRequest.s3ListBucket(
            bucket: bucket, prefix: prefix, delimiter: delimiter, context: self.context(), partition: self.partition)
        try self.check(request, bucket: bucket, key: nil)
    }

    /// Checks any request; the explanation is built only when it is denied.
    /// - Parameters:
    ///   - request: The request to evaluate.
    ///   - bucket: The bucket, for the error.
    ///   - key: The key, for the error.
    /// - Throws: ``S3Error`` with code ``S3Error/Code/preflightDenied`` when the policies deny it.
    public func check(_ request: AuthorizationRequest, bucket: String?, key: String?) throws(S3Error) {
        let decision = self.evaluator.evaluate(request)
        guard !decision.isAllowed else { return }
        let explanation = self.evaluator.explain(request)
        let denial = PreflightDenial(action: request.action, resource: request.resource, explanation: explanation)
        throw S3Error(
            code: .preflightDenied,
            message: "the local policy check denies \(request.action) on \(request.resource): \(explanation.summary)",
            bucket: bucket, key: key, preflightDenial: denial)
    }
}

/// Why the pre-flight check refused a request: the decision and PolicyEngine's explanation.
public struct PreflightDenial: Sendable, Hashable, CustomStringConvertible {
    /// The action, such as `s3:GetObject`.
    public let action: String
    /// The resource ARN, such as `arn:aws:s3:::wif-personal/1002/notes.txt`.
    public let resource: String
    /// The statement-by-statement explanation.
    public let explanation: Explanation

    /// Creates a denial.
    /// - Parameters:
    ///   - action: The action.
    ///   - resource: The resource ARN.
    ///   - explanation: The explanation of the decision.
    public init(action: String, resource: String, explanation: Explanation) {
        self.action = action
        self.resource = resource
        self.explanation = explanation
    }

    /// Explicit or implicit deny.
    public var outcome: Decision.Outcome { self.explanation.outcome }

    /// The explanation as indented text, statement by statement.
    public var text: String { self.explanation.text }

    /// The one-line summary.
    public var description: String { self.explanation.summary }
}
