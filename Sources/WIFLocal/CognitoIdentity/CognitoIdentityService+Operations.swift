import PolicyEngine
import WIFFoundation

extension CognitoIdentityService {
    /// `GetId {IdentityPoolId, AccountId?, Logins?}` → `{IdentityId}`: the identity linked to the logins,
    /// a new one for logins seen first, or a new guest identity without logins.
    func getId(_ input: Input) async throws(AWSErrorResponse) -> String {
        let pool = try self.pool(try Self.checkId(try input.string("IdentityPoolId"), name: "identityPoolId"))
        if let account = try input.string("AccountId"), account != self.state.configuration.accountId {
            throw AWSErrorResponse("NotAuthorizedException", "AccountId \(account.prefix(15)) does not own the identity pool \(pool.id).")
        }
        let logins = try await self.verifyLogins(try input.logins(), pool: pool)
        let identity: IdentityRegistry.Identity
        if logins.isEmpty {
            guard pool.allowUnauthenticatedIdentities else {
                throw AWSErrorResponse("NotAuthorizedException", "Unauthenticated access is not supported for this identity pool.")
            }
            identity = try self.registry.newGuest(poolId: pool.id, now: self.now)
        } else {
            identity = try self.registry.resolve(poolId: pool.id, logins: logins.map(\.login), now: self.now)
        }
        return Self.object { $0.key("IdentityId"); $0.string(identity.id) }
    }

    /// `GetCredentialsForIdentity {IdentityId, Logins?, CustomRoleArn?}` → `{IdentityId, Credentials}`:
    /// a role session for the identity, after the role choice and the role's trust policy.
    func getCredentialsForIdentity(_ input: Input, secureTransport: Bool) async throws(AWSErrorResponse) -> String {
        let customRoleArn = try input.string("CustomRoleArn")
        if let customRoleArn, !(20...2048).contains(customRoleArn.utf8.count) {
            throw Input.invalid("CustomRoleArn must be 20 to 2048 characters long")
        }
        let (identity, pool, logins) = try await self.authorize(input)
        let choice = try self.chooseRole(pool: pool, logins: logins, customRoleArn: customRoleArn)
        let misconfigured = AWSErrorResponse(
            "InvalidIdentityPoolConfigurationException", "Invalid identity pool configuration. Check assigned IAM roles for this pool.")
        guard let role = self.sts.roles[choice.arn] else { throw misconfigured }

        let now = self.now
        let record = IdentityRecord(kind: .cognito, subject: identity.id, audiences: [pool.id], amr: Self.amr(logins))
        let session: WebIdentitySession
        do {
            session = try WebIdentitySession(
                record.webIdentity, role: role.arn, roleId: role.roleId, sessionName: Self.sessionName, secureTransport: secureTransport)
        } catch {
            throw misconfigured
        }
        // As on AWS, a role whose trust policy does not trust this pool's identities is the pool's mistake.
        guard role.allows("sts:AssumeRoleWithWebIdentity", context: session.assumeRoleContext(at: Timestamp(secondsSince1970: now))) else {
            throw misconfigured
        }
        let issued = LocalSession(
            accessKeyId: SessionCodec.makeAccessKeyId(), secretAccessKey: SessionCodec.makeSecretAccessKey(), issuedAt: now,
            expiresAt: now + Int64(min(Self.credentialsLifetime, role.maxSessionDuration)), roleArn: role.arn, roleId: role.roleId,
            sessionName: Self.sessionName, identity: record)
        let token = try self.sts.seal(issued)
        self.state.logger.debug(
            "identity pool credentials issued",
            metadata: [
                "wif.local.cognito.identity_id": "\(identity.id)", "wif.local.cognito.role": "\(role.arn)",
                "wif.local.cognito.role_reason": "\(choice.reason)", "wif.local.cognito.access_key_id": "\(issued.accessKeyId)",
            ])
        return Self.object { writer in
            writer.member("IdentityId", identity.id)
            writer.key("Credentials")
            writer.beginObject()
            writer.member("AccessKeyId", issued.accessKeyId)
            writer.member("SecretKey", issued.secretAccessKey)
            writer.member("SessionToken", token)
            writer.member("Expiration", Int(issued.expiresAt))
            writer.endObject()
        }
    }

    /// `GetOpenIdToken {IdentityId, Logins?}` → `{IdentityId, Token}`: an RS256 token of
    /// `https://cognito-identity.amazonaws.com` for the basic flow, which the stack's STS verifies.
    func getOpenIdToken(_ input: Input) async throws(AWSErrorResponse) -> String {
        let (identity, pool, logins) = try await self.authorize(input)
        guard pool.allowClassicFlow else {
            throw AWSErrorResponse("InvalidParameterException", "Basic (classic) flow is not enabled for the identity pool \(pool.id).")
        }
        let token: String
        do {
            token = try self.tokens.issueIdentityPoolToken(
                identityId: identity.id, poolId: pool.id, amr: Self.amr(logins), ttl: Self.openIdTokenLifetime,
                now: self.state.timeSource.now())
        } catch {
            throw AWSErrorResponse("InternalErrorException", "The token could not be signed.", status: .internalServerError)
        }
        return Self.object { writer in
            writer.member("IdentityId", identity.id)
            writer.member("Token", token)
        }
    }

    /// `DescribeIdentity {IdentityId}` → `{IdentityId, Logins, CreationDate, LastModifiedDate}`.
    func describeIdentity(_ input: Input) throws(AWSErrorResponse) -> String {
        let id = try Self.checkId(try input.string("IdentityId"), name: "identityId")
        guard let identity = self.registry.identity(id) else { throw Self.identityNotFound(id) }
        return Self.object { Self.write(identity, into: &$0) }
    }

    /// `ListIdentities {IdentityPoolId, MaxResults, NextToken?}` → `{IdentityPoolId, Identities, NextToken?}`.
    func listIdentities(_ input: Input) throws(AWSErrorResponse) -> String {
        let pool = try self.pool(try Self.checkId(try input.string("IdentityPoolId"), name: "identityPoolId"))
        guard let maximum = try input.int("MaxResults"), (1...60).contains(maximum) else {
            throw Input.invalid("MaxResults is required and must be 1 to 60")
        }
        let after = try input.string("NextToken")
        if let after, self.registry.identity(after)?.poolId != pool.id {
            throw Input.invalid("NextToken is not a token of this listing")
        }
        let page = self.registry.list(poolId: pool.id, maximum: maximum, after: after)
        return Self.object { writer in
            writer.member("IdentityPoolId", pool.id)
            writer.key("Identities")
            writer.beginArray()
            for identity in page.identities {
                writer.beginObject()
                Self.write(identity, into: &writer)
                writer.endObject()
            }
            writer.endArray()
            writer.member("NextToken", ifPresent: page.next)
        }
    }

    /// The identity, pool and verified logins of a call that names an identity; logins not yet linked
    /// are linked to it.
    private func authorize(
        _ input: Input
    ) async throws(AWSErrorResponse) -> (IdentityRegistry.Identity, IdentityPoolDefinition, [VerifiedLogin]) {
        let id = try Self.checkId(try input.string("IdentityId"), name: "identityId")
        let loginTokens = try input.logins()
        guard var identity = self.registry.identity(id) else { throw Self.identityNotFound(id) }
        let pool = try self.pool(identity.poolId)
        let logins = try await self.verifyLogins(loginTokens, pool: pool)
        if !logins.isEmpty {
            guard let linked = try self.registry.link(logins.map(\.login), to: id, now: self.now) else { throw Self.identityNotFound(id) }
            identity = linked
        }
        try self.checkAccess(to: identity, logins: logins, pool: pool)
        return (identity, pool, logins)
    }

    static func identityNotFound(_ id: String) -> AWSErrorResponse {
        AWSErrorResponse("ResourceNotFoundException", "Identity '\(id)' not found.")
    }

    private static func write(_ identity: IdentityRegistry.Identity, into writer: inout JSONWriter) {
        writer.member("IdentityId", identity.id)
        writer.key("Logins")
        writer.beginArray()
        for key in identity.logins.keys.sorted() { writer.string(key) }
        writer.endArray()
        writer.member("CreationDate", Int(identity.created))
        writer.member("LastModifiedDate", Int(identity.modified))
    }

    /// A JSON object whose members `body` writes.
    static func object(_ body: (inout JSONWriter) -> Void) -> String {
        var writer = JSONWriter(pretty: false)
        writer.beginObject()
        body(&writer)
        writer.endObject()
        return writer.output
    }
}
