import Crypto
import Hummingbird
import WIFFoundation

extension STSService {
    /// Says who signed the call: a role session (`arn:aws:sts::ACCOUNT:assumed-role/ROLE/SESSION`, user id
    /// `AROA…:SESSION`) or the administrator (the account's root).
    func getCallerIdentity(_ request: Request, body: ByteBuffer, requestId: String) throws(AWSErrorResponse) -> Response {
        let authenticated = try self.authenticator.authenticate(request, service: "sts", payloadHash: Self.sha256Hex(body))
        let arn: String
        let userId: String
        let account: String
        switch authenticated.caller {
        case .admin:
            account = self.state.configuration.accountId
            arn = "arn:aws:iam::\(account):root"
            userId = account
        case .session(let session):
            arn = session.assumedRoleArn
            userId = "\(session.roleId):\(session.sessionName)"
            let parts = session.roleArn.split(separator: ":", maxSplits: 5, omittingEmptySubsequences: false)
            account = parts.count > 4 ? String(parts[4]) : self.state.configuration.accountId
        }
        return Self.document("GetCallerIdentity", requestId: requestId) { xml in
            xml.element("Arn", arn)
            xml.element("UserId", userId)
            xml.element("Account", account)
        }
    }

    /// The hex SHA-256 of a body, the payload hash of its signature.
    static func sha256Hex(_ body: ByteBuffer) -> String {
        body.withUnsafeReadableBytes { SHA256.hash(data: $0) }.hexString
    }
}
