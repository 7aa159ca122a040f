import Crypto
import Hummingbird

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
        let digest = body.withUnsafeReadableBytes { SHA256.hash(data: $0) }
        let digits = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = []
        hex.reserveCapacity(64)
        for byte in digest {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: hex, as: UTF8.self)
    }
}
