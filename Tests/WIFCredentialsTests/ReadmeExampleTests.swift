import Foundation
import Testing
import WIFCredentials

/// The README's library examples, compiled and run so they cannot drift from the API.
@Suite struct ReadmeExampleTests {
    @Test func webIdentityProviderFromCode() throws {
        let userAccessToken = "EAAB-opaque-facebook-access-token"
        let facebook = WebIdentityCredentialProvider(
            configuration: WebIdentityConfiguration(
                roleArn: "arn:aws:iam::123456789012:role/personal-store-facebook",
                tokenSource: StringTokenSource(userAccessToken),
                providerId: "graph.facebook.com",
                region: "us-east-1"
            )
        )
        #expect(facebook.configuration.providerId == "graph.facebook.com")
        #expect(!facebook.description.contains(userAccessToken))
        let chain = DefaultCredentialChain(environment: [:])
        #expect(chain.providers.count == 3)
    }

    @Test func signingAndPresigning() throws {
        let credentials = AWSCredentials(accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")
        let signer = SigV4Signer(credentials: credentials, region: "us-east-1", service: "s3")
        let url = try #require(URL(string: "https://bucket.s3.amazonaws.com/alice/a.txt"))
        var request = try SigV4Request(method: "GET", url: url)
        try signer.sign(&request, payload: .empty, date: Date(timeIntervalSince1970: 1_440_938_160))
        let presigned = try signer.presign(request, date: Date(timeIntervalSince1970: 1_440_938_160), expires: 3600)
        #expect(request.headerValue("Authorization")?.hasPrefix("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/s3/aws4_request") == true)
        #expect(presigned.contains("X-Amz-Expires=3600"))
    }
}
