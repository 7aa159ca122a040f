import Foundation
import Logging
import WIFFoundation
import WIFHTTP
import WIFSigV4

/// Who a set of credentials is, as STS `GetCallerIdentity` tells it.
public struct CallerIdentity: Sendable, Hashable {
    /// The account id.
    public var account: String
    /// The caller's ARN: `arn:aws:sts::ACCOUNT:assumed-role/ROLE/SESSION` for a role session.
    public var arn: String
    /// The unique id (`ROLEID:SESSION` for a role session).
    public var userId: String

    /// Creates an identity.
    public init(account: String, arn: String, userId: String) {
        self.account = account
        self.arn = arn
        self.userId = userId
    }

    /// The role a role session's ARN names, as an IAM role ARN (`arn:aws:iam::ACCOUNT:role/ROLE`);
    /// `nil` for a caller that is not a role session. A role's path is not in the session ARN, so it is
    /// not in the answer either.
    public var roleArn: String? {
        let parts = self.arn.split(separator: ":", maxSplits: 5, omittingEmptySubsequences: false)
        guard parts.count == 6, parts[0] == "arn", parts[2] == "sts" else { return nil }
        let resource = parts[5].split(separator: "/", omittingEmptySubsequences: false)
        guard resource.count >= 3, resource[0] == "assumed-role", !resource[1].isEmpty else { return nil }
        return "arn:\(parts[1]):iam::\(parts[4]):role/\(resource[1])"
    }
}

extension STSClient {
    /// Asks STS who the credentials are (`GetCallerIdentity`, signed with them). One attempt, within the
    /// client's deadline; any credentials may call it, whatever their policies.
    /// - Parameters:
    ///   - credentials: The credentials to identify.
    ///   - logger: Where to log; never the credentials.
    /// - Returns: The account, ARN and user id.
    /// - Throws: ``WIFCredentialsError``: `service` with STS's error, `malformedResponse`, `network`;
    ///   `invalidConfiguration` when the request cannot be signed.
    public func getCallerIdentity(credentials: AWSCredentials, logger: Logger = .noop) async throws -> CallerIdentity {
        let body = Array("Action=GetCallerIdentity&Version=2011-06-15".utf8)
        var signed: SigV4Request
        do {
            signed = try SigV4Request(
                method: "POST", url: self.endpoint,
                headers: [.init("Content-Type", "application/x-www-form-urlencoded; charset=utf-8"), .init("Accept", "text/xml")])
            try SigV4Signer(credentials: credentials, region: self.region, service: "sts").sign(&signed, payload: .bytes(body), date: self.timeSource.now())
        } catch {
            throw WIFCredentialsError.invalidConfiguration("cannot sign GetCallerIdentity for \(self.endpoint.absoluteString): \(error)")
        }
        let request = TransportRequest(
            url: self.endpoint, headers: signed.headers.map { ($0.name, $0.value) } + [("User-Agent", SwiftWIFVersion.userAgent())], body: body)
        logger.debug("Calling STS GetCallerIdentity", metadata: ["wif.sts.endpoint": "\(self.endpoint.absoluteString)"])
        let timeout = min(self.deadline, self.configuration.timeout)
        let response = try await self.exchange(request, timeout: timeout, logger: logger)
        let secrets = [credentials.secretAccessKey] + (credentials.sessionToken.map { [$0] } ?? [])
        let root = try STSResponseDecoder.document(response, redacting: secrets)
        if root.name == "ErrorResponse" || root.name == "Error" {
            throw WIFCredentialsError.service(try STSResponseDecoder.serviceError(root, response: response, redacting: secrets))
        }
        guard root.name == "GetCallerIdentityResponse", (200..<300).contains(response.status),
            let result = root.child("GetCallerIdentityResult"), let arn = result.trimmedText("Arn"),
            let account = result.trimmedText("Account"), let userId = result.trimmedText("UserId")
        else {
            throw WIFCredentialsError.malformedResponse(
                "STS answered GetCallerIdentity with HTTP \(response.status) and no <GetCallerIdentityResult> holding Arn, Account and UserId: \(STSResponseDecoder.excerpt(response.body, redacting: secrets))"
            )
        }
        return CallerIdentity(account: account, arn: arn, userId: userId)
    }
}
