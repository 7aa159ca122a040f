import PolicyEngine

/// A configured role, prepared once for `AssumeRoleWithWebIdentity`: its ARN, its unique id and its trust
/// policy parsed and compiled, so that each call only evaluates.
struct TrustedRole: Sendable {
    /// `arn:aws:iam::ACCOUNT:role/PATH/NAME`.
    let arn: String
    /// The role's unique id, `AROA…`.
    let roleId: String
    /// The longest session, in seconds.
    let maxSessionDuration: Int
    /// The trust policy's evaluator; `nil` when the policy is unusable, which refuses every caller.
    let trust: PolicyEvaluator?
    /// Why the trust policy is unusable.
    let problem: String?

    /// Prepares a role.
    /// - Parameters:
    ///   - role: The role's definition.
    ///   - arn: Its ARN in the stack's account.
    init(_ role: RoleDefinition, arn: String) {
        self.arn = arn
        self.maxSessionDuration = role.maxSessionDuration
        guard let roleId = Self.roleId(for: arn) else {
            self.roleId = ""
            self.trust = nil
            self.problem = "the ARN \(arn) of role \(role.name) is not a valid role ARN"
            return
        }
        self.roleId = roleId
        do {
            let policy = try Policy.parse(role.trustPolicy, kind: .trust, name: "\(role.name) trust policy")
            self.trust = PolicyEvaluator(resourcePolicy: policy)
            self.problem = nil
        } catch {
            self.trust = nil
            self.problem = "the trust policy of role \(role.name) is invalid: \(error.reason)"
        }
    }

    /// The id PolicyEngine gives the role's sessions by default (derived from the ARN), so that the stack and
    /// `wif-tool policy simulate` agree on `aws:userid`.
    private static func roleId(for arn: String) -> String? {
        let probe = try? WebIdentitySession(.oidc(issuer: "https://wif.localhost", subject: "0", audiences: []), role: arn, sessionName: "id")
        return probe?.roleId
    }

    /// Whether the trust policy lets a caller perform an action on the role.
    /// - Parameters:
    ///   - action: `sts:AssumeRoleWithWebIdentity` or `sts:TagSession`.
    ///   - context: The call's context (the web identity's keys, `sts:RoleSessionName`…).
    /// - Returns: `true` only for an explicit allow with no deny.
    func allows(_ action: String, context: RequestContext) -> Bool {
        guard let trust = self.trust else { return false }
        return trust.evaluate(AuthorizationRequest(action: action, resource: self.arn, context: context)).outcome == .allow
    }
}
