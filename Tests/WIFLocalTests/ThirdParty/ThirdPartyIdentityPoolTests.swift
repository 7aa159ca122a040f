import Foundation
import Testing
@testable import WIFLocal
import WIFTestSupport

/// boto3's `cognito-identity` client against the local stack's identity pool: the enhanced and basic
/// flows, guest and signed in, as an app using AWS's SDK would drive AWS.
@Suite("Third-party identity pool clients against the local stack", .serialized)
struct ThirdPartyIdentityPoolTests {
    @Test(
        "boto3: guest and signed-in identities, enhanced and basic flow, enforced by the local S3",
        .enabled(if: ThirdPartyClientTests.boto3Available, "boto3 is not installed (pip install boto3); WIF_REQUIRE_PEERS=1 fails instead")
    )
    func boto3() async throws {
        let directory = TemporaryFolder.url("wif-third-party-pool").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await LocalStack.run(.default(dataDirectory: directory)) { endpoint in
            let token = try endpoint.developmentToken(provider: "google", user: "alice").token
            let output = try await ThirdPartyProcess.run(
                ["python3", ThirdPartyClientTests.scripts.appendingPathComponent("boto3_identity_pool.py").path],
                environment: [
                    "WIF_ENDPOINT": endpoint.url, "WIF_POOL": IdentityPoolDefinition.defaultPoolId, "WIF_TOKEN": token,
                    "WIF_ROLE": "arn:aws:iam::000000000000:role/identity-pool-authenticated",
                ])
            let seen = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any], "boto3 printed \(output)")
            #expect(seen["sameIdAgain"] as? Bool == true)
            #expect(seen["expirationIsDate"] as? Bool == true, "botocore parses Expiration as a timestamp")
            #expect(seen["userPutPublic"] as? String == "OK")
            #expect(seen["userPutPrivate"] as? String == "OK")
            #expect(seen["guestDiffers"] as? Bool == true)
            #expect(seen["guestReadPublic"] as? String == "from boto3")
            #expect(seen["guestPutPublic"] as? String == "AccessDenied")
            #expect(seen["guestReadPrivate"] as? String == "AccessDenied")
            #expect(seen["basicProvider"] as? String == "cognito-identity.amazonaws.com")
            #expect(seen["basicPutPrivate"] as? String == "OK")
            #expect(seen["unknownPool"] as? String == "ResourceNotFoundException")
            #expect(seen["badToken"] as? String == "NotAuthorizedException")
        }
    }
}
