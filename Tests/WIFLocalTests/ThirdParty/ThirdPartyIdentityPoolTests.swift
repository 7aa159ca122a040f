import Foundation
import Testing
@testable import WIFLocal
import WIFTestSupport

/// boto3's and the aws CLI's `cognito-identity` clients against the local stack's identity pool: the
/// enhanced and basic flows, guest and signed in, as an app using AWS's SDK would drive AWS.
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

    @Test(
        "aws CLI: a signed-in user writes public/ and their private/ folder; a guest reads public/ and is refused writes",
        .enabled(if: ThirdPartyClientTests.awsAvailable, "the aws CLI is not installed (pip install awscli); WIF_REQUIRE_PEERS=1 fails instead")
    )
    func awsCLI() async throws {
        let directory = TemporaryFolder.url("wif-third-party-pool-cli").path
        let work = TemporaryFolder.url("wif-aws-cli-pool")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer {
            try? FileManager.default.removeItem(atPath: directory)
            try? FileManager.default.removeItem(at: work)
        }
        try await LocalStack.run(.default(dataDirectory: directory)) { endpoint in
            let token = try endpoint.developmentToken(provider: "google", user: "alice").token
            let output = try await ThirdPartyProcess.run(
                ["bash", ThirdPartyClientTests.scripts.appendingPathComponent("aws_cli_identity_pool.sh").path],
                environment: ["WIF_ENDPOINT": endpoint.url, "WIF_POOL": IdentityPoolDefinition.defaultPoolId, "WIF_TOKEN": token, "WIF_WORK": work.path])
            var seen: [String: String] = [:]
            for line in output.split(separator: "\n") {
                guard let equals = line.firstIndex(of: "=") else { continue }
                seen[String(line[..<equals])] = String(line[line.index(after: equals)...])
            }
            let user = try #require(seen["userId"], "\(output)")
            #expect(user.hasPrefix("us-east-1:"))
            #expect(seen["guestId"] != user)
            #expect(seen["userCredentials"] == "ok")
            #expect(seen["userPutPublic"] == "ok")
            #expect(seen["userPutPrivate"] == "ok")
            #expect(seen["guestCredentials"] == "ok")
            #expect(seen["guestGetPublic"] == "equal")
            #expect(seen["guestPutPublic"] == "AccessDenied")
            #expect(seen["userWithoutLogins"] == "NotAuthorizedException")
        }
    }
}
