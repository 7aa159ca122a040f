import Foundation
import PolicyEngine
import Synchronization

/// Decides whether a caller may perform an S3 action, as IAM would for a role session: the role's permission
/// policies, limited by the session policy, with the bucket policy (if any) adding to or denying them.
///
/// Policies are parsed once: bucket policies when the authorizer is made, a role's permission policies on
/// first use, and each distinct session policy on first use (a small cache, since a session policy travels
/// inside the session token and many sessions share the same one).
final class S3Authorizer: Sendable {
    /// The facts of a request that S3 adds to the context besides the session's keys.
    struct RequestFacts: Sendable, Hashable {
        /// `x-amz-content-sha256` as sent, if any.
        var contentSHA256: String?
        /// Whether the signature came in the query string.
        var presigned: Bool
        /// The caller's address, for `aws:SourceIp`.
        var sourceIp: String?
        /// The request time.
        var time: Date

        init(contentSHA256: String? = nil, presigned: Bool = false, sourceIp: String? = nil, time: Date) {
            self.contentSHA256 = contentSHA256
            self.presigned = presigned
            self.sourceIp = sourceIp
            self.time = time
        }
    }

    /// The outcome of a check.
    enum Verdict: Sendable, Equatable {
        case allowed
        /// Denied, with the `AccessDenied` message S3 gives.
        case denied(message: String)

        var isAllowed: Bool { self == .allowed }
    }

    private let configuration: LocalConfiguration
    private let bucketPolicies: [String: Policy]
    private let rolePolicies: Mutex<[String: [Policy]]> = Mutex([:])
    private let sessionPolicies: Mutex<[String: Policy?]> = Mutex([:])
    private static let sessionPolicyCacheLimit = 64
    /// Evaluators by role, session policy and bucket policy, so that a request costs one evaluation.
    private let evaluators: Mutex<[EvaluatorKey: PolicyEvaluator]> = Mutex([:])
    private static let evaluatorCacheLimit = 256

    /// The context of each session's web identity by session and client address, with no time; each
    /// request gives it its own.
    private let webSessions: Mutex<[WebSessionKey: PolicyEngine.RequestContext]> = Mutex([:])

    private struct WebSessionKey: Hashable {
        /// The whole session, so two sessions that share anything but everything never share an identity.
        var session: LocalSession
        var sourceIp: String?

        /// Hashes what tells sessions apart (each has its own access key id) rather than every field; equality
        /// still compares the whole session.
        func hash(into hasher: inout Hasher) {
            hasher.combine(self.session.accessKeyId)
            hasher.combine(self.sourceIp)
        }
    }

    private struct EvaluatorKey: Hashable {
        var roleArn: String
        var sessionPolicy: String?
        /// The bucket, only when it has a policy.
        var bucket: String?
    }

    /// Creates an authorizer and parses the configured bucket policies.
    /// - Throws: ``LocalStackError`` naming a bucket whose policy is invalid.
    init(configuration: LocalConfiguration) throws(LocalStackError) {
        self.configuration = configuration
        var bucketPolicies: [String: Policy] = [:]
        for bucket in configuration.buckets {
            guard let text = bucket.policy else { continue }
            do {
                bucketPolicies[bucket.name] = try Policy.parse(text, kind: .resource, name: "bucket policy of \(bucket.name)")
            } catch {
                throw LocalStackError("the policy of bucket \(bucket.name) is invalid: \(error)")
            }
        }
        self.bucketPolicies = bucketPolicies
    }

    /// The request context of a session's request: the web-identity keys, `aws:userid`, `aws:SourceIp`,
    /// `aws:SecureTransport` (false: the stack serves plain HTTP), the time, and S3's
    /// `s3:x-amz-content-sha256`, `s3:signatureversion` and `s3:authType`.
    func context(for session: LocalSession, facts: RequestFacts) -> PolicyEngine.RequestContext? {
        guard var context = self.sessionContext(of: session, sourceIp: facts.sourceIp, time: Timestamp(facts.time)) else { return nil }
        if let sha = facts.contentSHA256 { context["s3:x-amz-content-sha256"] = ContextValue(sha) }
        context["s3:signatureversion"] = "AWS4-HMAC-SHA256"
        context["s3:authType"] = facts.presigned ? "REST-QUERY-STRING" : "REST-HEADER"
        return context
    }

    /// The request context of a session's call to another service (`execute-api`): the session's keys,
    /// `aws:SourceIp`, `aws:SecureTransport` and the time, without S3's own keys. It is the prepared context
    /// itself, so a call that adds no keys copies nothing.
    func serviceContext(for session: LocalSession, sourceIp: String? = nil, time: Date) -> PolicyEngine.RequestContext? {
        self.sessionContext(of: session, sourceIp: sourceIp, time: Timestamp(time))
    }

    /// Decides one request.
    /// - Parameters:
    ///   - request: The action, resource and context (from ``context(for:facts:)`` plus operation keys).
    ///   - bucket: The bucket whose policy applies, if any.
    ///   - caller: Who signed the request; the administrator is allowed everything.
    /// - Returns: The verdict, with AWS's message when denied.
    func decide(_ request: AuthorizationRequest, bucket: String?, caller: Caller) -> Verdict {
        guard case .session(let session) = caller else { return .allowed }
        guard let evaluator = self.evaluator(for: session, bucket: bucket) else {
            return .denied(message: Self.message(session: session, request: request, reason: "no session policy allows"))
        }
        let decision = evaluator.evaluate(request)
        switch decision.outcome {
        case .allow:
            return .allowed
        case .explicitDeny:
            let kind = decision.statements.first?.policyKind
            let place: String
            switch kind {
            case .some(.session): place = "a session policy"
            case .some(.resource): place = "a resource-based policy"
            case .some(.permissionsBoundary): place = "a permissions boundary"
            default: place = "an identity-based policy"
            }
            return .denied(message: Self.message(session: session, request: request, explicitIn: place))
        case .implicitDeny:
            // Which policy type failed to allow: the session policy when the role alone would have allowed.
            var reason = "no identity-based policy allows"
            if !evaluator.sessionPolicies.isEmpty,
                PolicyEvaluator(identityPolicies: evaluator.identityPolicies, resourcePolicy: evaluator.resourcePolicy)
                    .evaluate(request).outcome == .allow
            {
                reason = "no session policy allows"
            }
            return .denied(message: Self.message(session: session, request: request, reason: reason))
        }
    }

    /// `User: ARN is not authorized to perform: ACTION on resource: "RESOURCE" because no … policy allows the ACTION action`.
    static func message(session: LocalSession, request: AuthorizationRequest, reason: String) -> String {
        "User: \(session.assumedRoleArn) is not authorized to perform: \(request.action) on resource: \"\(request.resource)\" "
            + "because \(reason) the \(request.action) action"
    }

    /// `User: ARN is not authorized to perform: ACTION on resource: "RESOURCE" with an explicit deny in …`.
    static func message(session: LocalSession, request: AuthorizationRequest, explicitIn place: String) -> String {
        "User: \(session.assumedRoleArn) is not authorized to perform: \(request.action) on resource: \"\(request.resource)\" "
            + "with an explicit deny in \(place)"
    }

    /// The context of a session's request at `time`: the session's web identity is built once per session
    /// and client address (a client makes many requests with one session, and building it parses the
    /// role's ARN), and each request gives that prepared context its own time.
    private func sessionContext(of session: LocalSession, sourceIp: String?, time: Timestamp) -> PolicyEngine.RequestContext? {
        let key = WebSessionKey(session: session, sourceIp: sourceIp)
        if let timeless = self.webSessions.withLock({ $0[key] }) { return timeless.retimed(time) }
        guard let built = try? session.webIdentitySession(sourceIp: sourceIp, secureTransport: false) else { return nil }
        let timeless = built.context(at: nil)
        self.webSessions.withLock { cache in
            if cache.count >= Self.evaluatorCacheLimit { cache.removeAll(keepingCapacity: true) }
            cache[key] = timeless
        }
        return timeless.retimed(time)
    }

    /// The evaluator of a session's requests on a bucket: the role's policies, the bucket policy and the
    /// session policy; `nil` when the session policy does not parse, which denies everything.
    private func evaluator(for session: LocalSession, bucket: String?) -> PolicyEvaluator? {
        let policyBucket = bucket.flatMap { self.bucketPolicies[$0] == nil ? nil : $0 }
        let key = EvaluatorKey(roleArn: session.roleArn, sessionPolicy: session.sessionPolicy, bucket: policyBucket)
        if let cached = self.evaluators.withLock({ $0[key] }) { return cached }
        var sessionPolicies: [Policy] = []
        if let text = session.sessionPolicy {
            guard let policy = self.sessionPolicy(text) else { return nil }
            sessionPolicies = [policy]
        }
        let evaluator = PolicyEvaluator(
            identityPolicies: self.identityPolicies(roleArn: session.roleArn),
            resourcePolicy: policyBucket.flatMap { self.bucketPolicies[$0] }, sessionPolicies: sessionPolicies)
        self.evaluators.withLock { cache in
            if cache.count >= Self.evaluatorCacheLimit { cache.removeAll(keepingCapacity: true) }
            cache[key] = evaluator
        }
        return evaluator
    }

    /// The role's permission policies, parsed on first use; none when the role is not configured (any more),
    /// which denies everything.
    private func identityPolicies(roleArn: String) -> [Policy] {
        if let cached = self.rolePolicies.withLock({ $0[roleArn] }) { return cached }
        var policies: [Policy] = []
        if let role = self.configuration.role(arn: roleArn) {
            for (index, text) in role.permissionPolicies.enumerated() {
                // An invalid policy grants nothing; the configuration loader reports it at start-up.
                if let policy = try? Policy.parse(text, kind: .identity, name: "\(role.name) policy \(index)") {
                    policies.append(policy)
                }
            }
        }
        self.rolePolicies.withLock { $0[roleArn] = policies }
        return policies
    }

    /// A session policy, parsed once per distinct text; `nil` when it does not parse (STS validated it, so
    /// this only happens for a token from an older, laxer stack), which denies everything.
    private func sessionPolicy(_ text: String) -> Policy? {
        if let cached = self.sessionPolicies.withLock({ $0[text] }) { return cached }
        let policy = try? Policy.parse(text, kind: .session, name: "session policy")
        self.sessionPolicies.withLock { cache in
            if cache.count >= Self.sessionPolicyCacheLimit { cache.removeAll(keepingCapacity: true) }
            cache[text] = .some(policy)
        }
        return policy
    }
}
