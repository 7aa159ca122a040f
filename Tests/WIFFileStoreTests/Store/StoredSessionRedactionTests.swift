import Foundation
import Testing
import WIFCredentials
import WIFFileStore

/// The records of a sign-in hold the token and the credentials; printing, interpolating or dumping
/// them shows neither.
@Suite struct StoredSessionRedactionTests {
    @Test func recordsShowWhatTheyAreButNotTheirSecrets() {
        let token = "eyJ-a-token-that-must-stay-private"
        let secret = "wJalrXUtnFEMI-a-secret-that-must-stay-private"
        let sessionToken = "IQoJ-a-session-token-that-must-stay-private"
        let tokenRecord = StoredSession.TokenRecord(kind: .token, value: token)
        let credentialRecord = StoredSession.CredentialRecord(
            AWSCredentials(accessKeyId: "ASIAEXAMPLE", secretAccessKey: secret, sessionToken: sessionToken))
        #expect(tokenRecord.description == "TokenRecord(kind: token, value: <redacted>)")
        #expect(credentialRecord.description.contains("ASIAEXAMPLE"))
        for value in [tokenRecord, credentialRecord] as [Any] {
            var dumped = ""
            dump(value, to: &dumped)
            let shown = [String(describing: value), String(reflecting: value), "\([value])", dumped].joined(separator: "\n")
            for hidden in [token, secret, sessionToken] { #expect(!shown.contains(hidden), "\(shown)") }
        }
    }
}
