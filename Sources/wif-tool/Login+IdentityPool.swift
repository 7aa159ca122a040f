import Foundation
import S3Partition
import WIFCredentials
import WIFFileStore
import WIFLocal

extension WIFTool.Login {
        /// Signs in through an identity pool: a guest without `obtained`, else the token's user. The
        /// identity of a kept sign-in of the same pool is offered first, so a guest who signs in keeps it.
        func signIn(toPool poolId: String, _ context: StoreContext, obtained: ObtainedToken?, kept: StoredSession?) async throws -> StoredSession {
            let configuration = context.configuration
            let local = context.local
            var login: (key: String, token: String)?
            if let obtained {
                let key =
                    local?.configuration.provider(named: obtained.provider)?.loginsKey
                    ?? IdentityPoolSignIn.loginsKey(provider: obtained.provider, token: obtained.token)
                guard let key else {
                    throw CommandFailure(
                        status: .usage,
                        message: "cannot tell the identity pool's logins key of provider '\(obtained.provider)': its token names no issuer; give --provider google, facebook or amazon")
                }
                login = (key, obtained.token)
            }
            let connection = IdentityPoolSignIn.Connection(context, stored: try self.cognitoEndpointSetting(context))
            let keptId = kept?.identityPool?.poolId == poolId ? kept?.identityPool?.identityId : nil
            let logger = context.logger
            let issued: (credentials: AWSCredentials, identityId: String)
            do {
                issued = try await IdentityPoolSignIn.credentials(
                    poolId: poolId, login: login, identityId: keptId, basicFlowRoleArn: self.federation.roleArn, connection: connection, logger: logger)
            } catch let error as WIFCredentialsError {
                throw Self.explained(poolError: error, poolId: poolId, guest: login == nil, endpoint: connection.endpoint)
            }
            let role = await IdentityPoolSignIn.role(of: issued.credentials, region: configuration.region, connection: connection, logger: logger)
            let roleArn = role ?? self.federation.roleArn ?? "(not reported)"
            let reason = IdentityPoolSignIn.roleReason(
                role: role, token: login?.token, authenticatedRole: local?.configuration.identityPool(id: poolId)?.roles.authenticated)
            guard let bucket = configuration.bucket ?? role.flatMap({ local?.configuration.role(arn: $0)?.bucket }) else {
                throw CommandFailure(
                    status: .usage, message: "give the shared bucket with --bucket (or WIF_BUCKET, or bucket in \(configuration.configFile.path))")
            }
            let folder = StorageLevel.private.folder(identityId: issued.identityId)
            let prefix: PartitionPrefix
            do throws(S3Error) {
                prefix = try PartitionPrefix.make(template: folder.template, userId: folder.id)
            } catch {
                throw FileStoreError(.folderRefused, "the identity pool gave an identity id no folder can be named after: \(error.message)", s3Error: error)
            }
            return StoredSession(
                target: configuration.target.identifier,
                stsEndpoint: local == nil ? context.stsEndpoint.absoluteString : nil,
                region: configuration.region,
                provider: obtained?.provider ?? "guest",
                providerId: nil,
                subject: issued.identityId,
                roleArn: roleArn,
                assumedRoleArn: nil,
                roleSessionName: IdentityPoolSignIn.roleSessionName,
                bucket: bucket,
                prefix: prefix.value,
                partitionTemplate: folder.template,
                token: obtained?.record ?? StoredSession.TokenRecord(kind: .guest),
                credentials: StoredSession.CredentialRecord(issued.credentials),
                signedInAt: Date(),
                identityPool: StoredSession.IdentityPoolRecord(
                    poolId: poolId, identityId: issued.identityId, loginsKey: login?.key, roleReason: reason,
                    endpoint: local == nil ? connection.endpoint : nil, basicFlowRoleArn: self.federation.roleArn)
            )
        }

        /// The Cognito Identity endpoint of a remote sign-in: `--cognito-endpoint`, `WIF_COGNITO_ENDPOINT`,
        /// the STS endpoint when it is not AWS's (`wif-tool local serve` answers both), else `nil` for the
        /// pool region's.
        func cognitoEndpointSetting(_ context: StoreContext) throws(CommandFailure) -> String? {
            if let given = self.cognitoEndpoint ?? self.options.environment["WIF_COGNITO_ENDPOINT"].flatMap({ $0.isEmpty ? nil : $0 }) {
                guard let url = URL(string: given), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
                    throw CommandFailure(status: .usage, message: "the Cognito Identity endpoint must be an http or https URL, not '\(given)'")
                }
                return given
            }
            let host = context.stsEndpoint.host ?? ""
            return host == "amazonaws.com" || host.hasSuffix(".amazonaws.com") || host.hasSuffix(".amazonaws.com.cn") ? nil : context.stsEndpoint.absoluteString
        }

        /// An identity pool's refusal with the exit status that fits it.
        static func explained(poolError error: WIFCredentialsError, poolId: String, guest: Bool, endpoint: String?) -> any Error {
            guard let service = error.serviceError else { return error }
            let message = service.message.map { ": \($0)" } ?? ""
            switch service.code {
            case "NotAuthorizedException" where guest:
                return CommandFailure(status: .denied, message: "the identity pool \(poolId) refused a guest\(message)")
            case "NotAuthorizedException":
                return CommandFailure(status: .auth, message: "the identity pool \(poolId) refused the sign-in\(message)")
            case "InvalidIdentityPoolConfigurationException":
                return CommandFailure(
                    status: .denied,
                    message: "the identity pool \(poolId) has no role it may give this identity (a role is missing, or its trust policy does not trust the pool)\(message)")
            case "ResourceNotFoundException":
                return CommandFailure(
                    status: .usage, message: "no identity pool \(poolId) at \(endpoint ?? "Cognito Identity in its region")\(message)")
            default:
                return error
            }
        }
}
