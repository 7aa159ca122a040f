import Foundation
import Testing
@testable import WIFSigV4

@Suite struct AWSCredentialsTests {
    @Test func descriptionHidesSecrets() {
        let credentials = AWSCredentials(
            accessKeyId: "ASIAEXAMPLE",
            secretAccessKey: "very-secret-key",
            sessionToken: "very-secret-token",
            expiration: Date(timeIntervalSince1970: 1_700_000_000)
        )
        for text in [credentials.description, credentials.debugDescription, "\(credentials)", String(reflecting: credentials)] {
            #expect(text.contains("ASIAEXAMPLE"))
            #expect(!text.contains("very-secret"))
        }
    }

    @Test func expiry() {
        let credentials = AWSCredentials(accessKeyId: "a", secretAccessKey: "b", expiration: Date(timeIntervalSince1970: 100))
        #expect(!credentials.isExpired(at: Date(timeIntervalSince1970: 99)))
        #expect(credentials.isExpired(at: Date(timeIntervalSince1970: 100)))
        #expect(!AWSCredentials(accessKeyId: "a", secretAccessKey: "b").isExpired(at: .distantFuture))
    }
}
