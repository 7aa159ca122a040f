import Hummingbird
import PolicyEngine
import WIFFoundation

extension STSService {
    /// The checked parameters of an `AssumeRoleWithWebIdentity` call.
    struct AssumeRoleWithWebIdentityCall: Sendable {
        var roleArn: String
        var roleSessionName: String
        var webIdentityToken: String
        var providerId: String?
        var durationSeconds: Int
        /// The session policy, minified; `nil` for none.
        var policy: String?
        var policyArns: [String]
        /// `PackedPolicySize` when a policy or policy ARNs were given.
        var packedPolicySize: Int?
    }

    /// The default session length.
    static let defaultDuration = 3600
    /// Session lengths STS accepts.
    static let durationRange = 900...43_200
    /// The most managed session policies.
    static let maximumPolicyArns = 10
    /// The space session policies are packed into, in bytes of minified policy and ARNs.
    static let packedPolicyCapacity = 2048

    /// Exchanges a web-identity token for a role session.
    func assumeRoleWithWebIdentity(
        _ parameters: STSParameters, secureTransport: Bool, requestId: String
    ) async throws(AWSErrorResponse) -> Response {
        let call = try Self.validate(parameters)
        let verified = try await self.verify(call.webIdentityToken, call.providerId)
        let now = self.now

        // AWS does not say whether a role exists to callers it does not trust.
        let denied = AWSErrorResponse("AccessDenied", "Not authorized to perform sts:AssumeRoleWithWebIdentity", status: .forbidden)
        guard let role = self.roles[call.roleArn] else { throw denied }
        let trust = try self.trustContext(for: verified.identity, role: role, sessionName: call.roleSessionName, secureTransport: secureTransport)
        let context = trust.context.retimed(Timestamp(secondsSince1970: now))
        let tags = verified.identity.principalTags
        guard role.allows("sts:AssumeRoleWithWebIdentity", context: context) else { throw denied }
        if !tags.isEmpty, !role.allows("sts:TagSession", context: context) {
            throw AWSErrorResponse("AccessDenied", "Not authorized to perform sts:TagSession", status: .forbidden)
        }
        if call.durationSeconds > role.maxSessionDuration {
            throw AWSErrorResponse("ValidationError", "The requested DurationSeconds exceeds the MaxSessionDuration set for this role.")
        }

        let issued = LocalSession(
            accessKeyId: SessionCodec.makeAccessKeyId(), secretAccessKey: SessionCodec.makeSecretAccessKey(), issuedAt: now,
            expiresAt: now + Int64(call.durationSeconds), roleArn: role.arn, roleId: role.roleId,
            sessionName: call.roleSessionName, identity: verified.identity, sessionPolicy: call.policy,
            policyArns: call.policyArns.isEmpty ? nil : call.policyArns, sourceIdentity: verified.sourceIdentity)
        let token = try self.seal(issued)
        self.state.logger.debug(
            "role session issued",
            metadata: [
                "wif.local.sts.request_id": "\(requestId)", "wif.local.sts.role": "\(role.arn)",
                "wif.local.sts.access_key_id": "\(issued.accessKeyId)", "wif.local.sts.provider": "\(trust.federatedProvider)",
            ])

        let identity = verified.identity
        return Self.document("AssumeRoleWithWebIdentity", requestId: requestId) { xml in
            xml.element("SubjectFromWebIdentityToken", identity.subject)
            if let audience = identity.authorizedParty ?? identity.audiences.first { xml.element("Audience", audience) }
            xml.open("AssumedRoleUser")
            xml.element("Arn", trust.session.sessionArn)
            xml.element("AssumedRoleId", trust.session.userId)
            xml.close("AssumedRoleUser")
            xml.open("Credentials")
            xml.element("SessionToken", token)
            xml.element("SecretAccessKey", issued.secretAccessKey)
            xml.element("Expiration", AWSDate.extended(issued.expiresAt))
            xml.element("AccessKeyId", issued.accessKeyId)
            xml.close("Credentials")
            if let packed = call.packedPolicySize { xml.element("PackedPolicySize", String(packed)) }
            if let sourceIdentity = issued.sourceIdentity { xml.element("SourceIdentity", sourceIdentity) }
            xml.element("Provider", trust.federatedProvider)
        }
    }

    /// The trust policy's question for one identity, role, session name and transport: everything of the
    /// call's context but its time.
    struct TrustContext: Sendable {
        /// The session the call would open.
        var session: WebIdentitySession
        /// `aws:FederatedProvider`, as the trust policy names the provider.
        var federatedProvider: String
        /// The context without `aws:CurrentTime` and `aws:EpochTime`: the identity's keys,
        /// `sts:RoleSessionName` and, for a token with session tags, `aws:RequestTag/…` and `aws:TagKeys`.
        var context: PolicyEngine.RequestContext
    }

    /// What a trust context is made of; equal keys make the same context.
    struct TrustContextKey: Hashable, Sendable {
        var identity: IdentityRecord
        var roleArn: String
        var sessionName: String
        var secureTransport: Bool
    }

    /// The most trust contexts remembered, as many as the verified tokens a verifier remembers.
    static let trustContextCapacity = TokenVerifier.verifiedTokenCapacity

    /// The trust context of a call, made once for each identity, role, session name and transport: a client
    /// that assumes a role again with the token it holds asks the same question, and only the time changes.
    func trustContext(
        for identity: IdentityRecord, role: TrustedRole, sessionName: String, secureTransport: Bool
    ) throws(AWSErrorResponse) -> TrustContext {
        let key = TrustContextKey(identity: identity, roleArn: role.arn, sessionName: sessionName, secureTransport: secureTransport)
        if let known = self.trustContexts[key] { return known }
        let session: WebIdentitySession
        do {
            session = try WebIdentitySession(
                identity.webIdentity, role: role.arn, roleId: role.roleId, sessionName: sessionName, secureTransport: secureTransport)
        } catch {
            throw AWSErrorResponse("ValidationError", error.reason)
        }
        var context = session.assumeRoleContext()
        let tags = identity.principalTags
        if !tags.isEmpty {
            // Session tags in the token are request tags of the call, which then also needs sts:TagSession.
            for (key, values) in tags {
                context["aws:RequestTag/\(key)"] = values.count == 1 ? ContextValue(values[0]) : ContextValue(multiple: values)
            }
            context["aws:TagKeys"] = ContextValue(multiple: tags.keys.sorted())
        }
        let made = TrustContext(session: session, federatedProvider: session.federatedProvider, context: context)
        self.trustContexts.store(made, for: key)
        return made
    }

    /// Seals a session into its session token; identity pools issue their sessions through it too.
    func seal(_ session: LocalSession) throws(AWSErrorResponse) -> String {
        do {
            return try self.state.sessions.seal(session)
        } catch {
            throw AWSErrorResponse(
                "InternalFailure", "The request processing has failed because of an unknown error, exception or failure.",
                status: .internalServerError, type: "Receiver")
        }
    }

    // MARK: Validation

    /// Checks every parameter as STS does: first the model's constraints (all violations in one
    /// `ValidationError`), then the role ARN's form, then the session policies.
    static func validate(_ parameters: STSParameters) throws(AWSErrorResponse) -> AssumeRoleWithWebIdentityCall {
        var validation = STSValidation()
        let roleArn = parameters["RoleArn"]
        let sessionName = parameters["RoleSessionName"]
        let token = parameters["WebIdentityToken"]
        let providerId = parameters["ProviderId"]
        let policyArns = parameters.list("PolicyArns", field: "arn")
        let policy = parameters["Policy"]
        let durationText = parameters["DurationSeconds"]

        validation.check("roleArn", roleArn, required: true, length: 20...2048, pattern: STSValidation.arnPattern)
        validation.check("roleSessionName", sessionName, required: true, length: 2...64, pattern: STSValidation.sessionNamePattern)
        validation.check("webIdentityToken", token, required: true, length: 4...20_000, sensitive: true)
        validation.check("providerId", providerId, required: false, length: 4...2048)
        if policyArns.count > Self.maximumPolicyArns {
            validation.violation(
                "policyArns", value: "[\(policyArns.joined(separator: ", "))]",
                "Member must have length less than or equal to \(Self.maximumPolicyArns)")
        }
        for (index, arn) in policyArns.enumerated() {
            validation.check(
                "policyArns.\(index + 1).member.arn", arn, required: true, length: 20...2048, pattern: STSValidation.arnPattern)
        }
        validation.check("policy", policy, required: false, length: 1...2048, pattern: STSValidation.policyPattern)
        var duration = Self.defaultDuration
        if let durationText {
            if let number = Int(durationText) {
                duration = number
                if number < Self.durationRange.lowerBound {
                    validation.violation(
                        "durationSeconds", value: durationText,
                        "Member must have value greater than or equal to \(Self.durationRange.lowerBound)")
                } else if number > Self.durationRange.upperBound {
                    validation.violation(
                        "durationSeconds", value: durationText,
                        "Member must have value less than or equal to \(Self.durationRange.upperBound)")
                }
            } else {
                validation.violation("durationSeconds", value: durationText, "Member must be a whole number of seconds")
            }
        }
        if let error = validation.error { throw error }
        guard let roleArn, let sessionName, let token else { throw validation.error ?? AWSErrorResponse("ValidationError", "") }

        guard Self.isRoleARN(roleArn) else { throw AWSErrorResponse("ValidationError", "Request ARN is invalid") }
        for arn in policyArns where !Self.isPolicyARN(arn) {
            throw AWSErrorResponse("ValidationError", "Request ARN is invalid: \(arn.prefix(128)) is not an IAM policy ARN")
        }

        var minifiedPolicy: String?
        if let policy {
            do {
                minifiedPolicy = try Policy.parse(policy, kind: .session, name: "session policy").json(pretty: false)
            } catch {
                throw Self.malformedPolicy(error)
            }
        }
        var packedPolicySize: Int?
        if minifiedPolicy != nil || !policyArns.isEmpty {
            // AWS packs session policies into a binary form it does not document; this counts the minified
            // policy and the ARNs against a 2048-byte space, so a policy alone always fits (its plaintext is
            // at most 2048 characters) and many long policy ARNs may not.
            let bytes = (minifiedPolicy?.utf8.count ?? 0) + policyArns.reduce(0) { $0 + $1.utf8.count }
            let percent = (bytes * 100 + Self.packedPolicyCapacity - 1) / Self.packedPolicyCapacity
            if percent > 100 {
                throw AWSErrorResponse(
                    "PackedPolicyTooLarge", "Packed policy consumes \(percent)% of allotted space, please use smaller policy.")
            }
            packedPolicySize = percent
        }
        return AssumeRoleWithWebIdentityCall(
            roleArn: roleArn, roleSessionName: sessionName, webIdentityToken: token, providerId: providerId,
            durationSeconds: duration, policy: minifiedPolicy, policyArns: policyArns, packedPolicySize: packedPolicySize)
    }

    /// STS's answers to an unusable session policy: not JSON, or not a valid IAM policy (with the first
    /// problem PolicyEngine found).
    static func malformedPolicy(_ error: PolicyEngineError) -> AWSErrorResponse {
        if error.code == .malformedJSON {
            return AWSErrorResponse("MalformedPolicyDocument", "The policy is not in the valid JSON format.")
        }
        let detail = error.errors.first.map { " \($0.description)" } ?? ""
        return AWSErrorResponse("MalformedPolicyDocument", "Syntax errors in policy.\(detail)")
    }

    /// `arn:PARTITION:iam::ACCOUNT:role/[PATH/]NAME` with a 12-digit account.
    static func isRoleARN(_ arn: String) -> Bool {
        guard let fields = Self.iamARNFields(arn) else { return false }
        return Self.isAccountId(fields.account) && Self.isNamed(fields.resource, kind: "role/")
    }

    /// `arn:PARTITION:iam::ACCOUNT-OR-aws:policy/[PATH/]NAME`.
    static func isPolicyARN(_ arn: String) -> Bool {
        guard let fields = Self.iamARNFields(arn) else { return false }
        return (fields.account.elementsEqual("aws".utf8) || Self.isAccountId(fields.account))
            && Self.isNamed(fields.resource, kind: "policy/")
    }

    /// The account and resource of `arn:PARTITION:iam::ACCOUNT:RESOURCE`, read over UTF-8 (each
    /// delimiter is ASCII); `nil` for another shape.
    private static func iamARNFields(_ arn: String) -> (account: Substring.UTF8View, resource: Substring.UTF8View)? {
        let parts = arn.utf8.split(separator: UInt8(ascii: ":"), maxSplits: 5, omittingEmptySubsequences: false)
        guard parts.count == 6, parts[0].elementsEqual("arn".utf8), !parts[1].isEmpty, parts[2].elementsEqual("iam".utf8),
            parts[3].isEmpty
        else { return nil }
        return (parts[4], parts[5])
    }

    private static func isAccountId(_ field: Substring.UTF8View) -> Bool {
        field.count == 12 && field.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    /// `KIND[PATH/]NAME`: the kind, then a name that does not end in `/`.
    private static func isNamed(_ resource: Substring.UTF8View, kind: String) -> Bool {
        resource.starts(with: kind.utf8) && resource.count > kind.utf8.count && resource.last != UInt8(ascii: "/")
    }
}
