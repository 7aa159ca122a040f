/// A test helper that answers "may this user do that?" for a fixed set of policies, so tests in apps read
/// like the access rules they check:
///
/// ```swift
/// let sim = try PolicySimulator(identityJSON: [perUserFolderPolicy])
/// let alice = try WebIdentitySession(
///     .cognito(identityId: "us-east-1:alice", identityPoolId: "us-east-1:pool"),
///     role: "arn:aws:iam::111122223333:role/app-users", sessionName: "alice")
/// #expect(sim.decide(.s3("GetObject"), "arn:aws:s3:::photos/cognito/app/us-east-1:alice/cat.jpg", as: alice) == .allow)
/// #expect(sim.decide(.s3("GetObject"), "arn:aws:s3:::photos/cognito/app/us-east-1:bob/cat.jpg", as: alice) == .implicitDeny)
/// print(sim.explain(.s3("GetObject"), "arn:aws:s3:::photos/cognito/app/us-east-1:bob/cat.jpg", as: alice).text)
/// ```
public struct PolicySimulator: Sendable {
    /// The policies being simulated.
    public var evaluator: PolicyEvaluator
    /// The time used for requests whose context has none.
    public var time: Timestamp

    /// A fixed default time (2024-05-01T12:00:00Z), so simulations are deterministic.
    public static let defaultTime = Timestamp(secondsSince1970: 1_714_564_800)

    /// Creates a simulator from parsed policies.
    /// - Parameters:
    ///   - identityPolicies: The caller's identity policies.
    ///   - resourcePolicy: The resource policy, such as a bucket policy.
    ///   - sessionPolicies: Session policies passed when the session was created.
    ///   - permissionsBoundary: The caller's permissions boundary.
    ///   - time: The time of simulated requests.
    public init(
        identityPolicies: [Policy] = [], resourcePolicy: Policy? = nil, sessionPolicies: [Policy] = [],
        permissionsBoundary: Policy? = nil, time: Timestamp = PolicySimulator.defaultTime
    ) {
        self.evaluator = PolicyEvaluator(
            identityPolicies: identityPolicies, resourcePolicy: resourcePolicy, sessionPolicies: sessionPolicies,
            permissionsBoundary: permissionsBoundary)
        self.time = time
    }

    /// Creates a simulator from policy JSON, validating each policy for its kind.
    /// - Parameters:
    ///   - identityJSON: The caller's identity policies.
    ///   - resourceJSON: The resource policy.
    ///   - sessionJSON: Session policies.
    ///   - boundaryJSON: The permissions boundary.
    ///   - time: The time of simulated requests.
    /// - Throws: ``PolicyEngineError`` if a policy is invalid; its diagnostics' paths are prefixed with the
    ///   policy's role (`identity[0]: Statement[1]…`).
    public init(
        identityJSON: [String] = [], resourceJSON: String? = nil, sessionJSON: [String] = [], boundaryJSON: String? = nil,
        time: Timestamp = PolicySimulator.defaultTime
    ) throws(PolicyEngineError) {
        func load(_ text: String, _ kind: PolicyKind, _ name: String) throws(PolicyEngineError) -> Policy {
            do {
                return try Policy.parse(text, kind: kind, name: name)
            } catch {
                let diagnostics = error.diagnostics.map { diagnostic in
                    var copy = diagnostic
                    copy.path = copy.path.isEmpty ? name : "\(name): \(copy.path)"
                    return copy
                }
                throw PolicyEngineError(code: error.code, reason: "\(name): \(error.reason)", diagnostics: diagnostics)
            }
        }
        var identity: [Policy] = []
        for (index, text) in identityJSON.enumerated() {
            identity.append(try load(text, .identity, "identity[\(index)]"))
        }
        var session: [Policy] = []
        for (index, text) in sessionJSON.enumerated() {
            session.append(try load(text, .session, "session[\(index)]"))
        }
        var resource: Policy?
        if let resourceJSON { resource = try load(resourceJSON, .resource, "resource") }
        var boundary: Policy?
        if let boundaryJSON { boundary = try load(boundaryJSON, .permissionsBoundary, "permissionsBoundary") }
        self.init(
            identityPolicies: identity, resourcePolicy: resource, sessionPolicies: session, permissionsBoundary: boundary,
            time: time)
    }

    // MARK: Requests

    /// The request for an action on a resource by a web-identity session at the simulator's time.
    /// - Parameters:
    ///   - action: The action.
    ///   - resource: The resource ARN.
    ///   - session: The caller.
    ///   - context: Extra context keys, such as `s3:prefix`.
    /// - Returns: The request.
    public func request(
        _ action: ActionName, _ resource: String, as session: WebIdentitySession, context: [String: ContextValue] = [:]
    ) -> AuthorizationRequest {
        AuthorizationRequest(action: action.rawValue, resource: resource, context: session.context(at: self.time).merging(context))
    }

    /// The request for an action on a resource in a given context (given the simulator's time if it has none).
    /// - Parameters:
    ///   - action: The action.
    ///   - resource: The resource ARN.
    ///   - context: The principal, time and keys.
    /// - Returns: The request.
    public func request(_ action: ActionName, _ resource: String, as context: RequestContext) -> AuthorizationRequest {
        var context = context
        if context.time == nil { context.time = self.time }
        return AuthorizationRequest(action: action.rawValue, resource: resource, context: context)
    }

    // MARK: Decisions

    /// Decides an action on a resource by a web-identity session.
    /// - Parameters:
    ///   - action: The action, such as `.s3("GetObject")`.
    ///   - resource: The resource ARN.
    ///   - session: The caller.
    ///   - context: Extra context keys, such as `["s3:prefix": "alice/"]`.
    /// - Returns: The decision.
    public func decide(
        _ action: ActionName, _ resource: String, as session: WebIdentitySession, context: [String: ContextValue] = [:]
    ) -> Decision {
        self.evaluator.evaluate(self.request(action, resource, as: session, context: context))
    }

    /// Decides an action on a resource in a given context.
    /// - Parameters:
    ///   - action: The action.
    ///   - resource: The resource ARN.
    ///   - context: The principal, time and keys.
    /// - Returns: The decision.
    public func decide(_ action: ActionName, _ resource: String, as context: RequestContext) -> Decision {
        self.evaluator.evaluate(self.request(action, resource, as: context))
    }

    /// Decides an action on a resource by a principal with no further context keys.
    /// - Parameters:
    ///   - action: The action.
    ///   - resource: The resource ARN.
    ///   - principal: The caller, or `nil` for an anonymous request.
    /// - Returns: The decision.
    public func decide(_ action: ActionName, _ resource: String, as principal: RequestPrincipal?) -> Decision {
        self.decide(action, resource, as: RequestContext(principal: principal, time: self.time))
    }

    /// Decides a prepared request.
    /// - Parameter request: The request.
    /// - Returns: The decision.
    public func decide(_ request: AuthorizationRequest) -> Decision {
        self.evaluator.evaluate(request)
    }

    /// Decides an S3 `ListBucket` by a web-identity session, with `s3:prefix` (and optionally
    /// `s3:delimiter`) set as S3 sets them.
    /// - Parameters:
    ///   - bucket: The bucket name.
    ///   - prefix: The listing prefix; `nil` lists the whole bucket (`s3:prefix` is then empty).
    ///   - delimiter: The delimiter, if any.
    ///   - session: The caller.
    /// - Returns: The decision.
    public func decideListBucket(
        _ bucket: String, prefix: String?, delimiter: String? = nil, as session: WebIdentitySession
    ) -> Decision {
        self.evaluator.evaluate(
            .s3ListBucket(bucket: bucket, prefix: prefix, delimiter: delimiter, context: session.context(at: self.time)))
    }

    // MARK: Explanations

    /// Explains the decision for an action on a resource by a web-identity session.
    /// - Parameters:
    ///   - action: The action.
    ///   - resource: The resource ARN.
    ///   - session: The caller.
    ///   - context: Extra context keys.
    /// - Returns: The explanation.
    public func explain(
        _ action: ActionName, _ resource: String, as session: WebIdentitySession, context: [String: ContextValue] = [:]
    ) -> Explanation {
        self.evaluator.explain(self.request(action, resource, as: session, context: context))
    }

    /// Explains the decision for an action on a resource in a given context.
    /// - Parameters:
    ///   - action: The action.
    ///   - resource: The resource ARN.
    ///   - context: The principal, time and keys.
    /// - Returns: The explanation.
    public func explain(_ action: ActionName, _ resource: String, as context: RequestContext) -> Explanation {
        self.evaluator.explain(self.request(action, resource, as: context))
    }

    /// Explains the decision for a prepared request.
    /// - Parameter request: The request.
    /// - Returns: The explanation.
    public func explain(_ request: AuthorizationRequest) -> Explanation {
        self.evaluator.explain(request)
    }
}
