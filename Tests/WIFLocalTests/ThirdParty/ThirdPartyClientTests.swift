import Foundation
import Testing
@testable import WIFLocal
import WIFTestSupport

/// The local stack driven by third-party clients, boto3 and the aws CLI, as their users would drive AWS:
/// federate with `AssumeRoleWithWebIdentity`, then use S3 with the temporary credentials.
///
/// The clients are peers: a missing one skips these tests, unless `WIF_REQUIRE_PEERS=1` (as in CI), which
/// turns the skip into a failure.
@Suite("Third-party clients against the local stack", .serialized)
struct ThirdPartyClientTests {
    static let peersRequired = ProcessInfo.processInfo.environment["WIF_REQUIRE_PEERS"] == "1"
    static let scripts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scripts")
    static let boto3Available = Self.peersRequired || ThirdPartyProcess.succeeds(["python3", "-c", "import boto3"])
    static let awsAvailable = Self.peersRequired || ThirdPartyProcess.succeeds(["aws", "--version"])

    /// The provider profiles with a role of their own; the user pool profile signs in through the identity pool.
    static func federatedProviders(_ endpoint: LocalEndpoint) -> [ProviderProfile] {
        endpoint.configuration.providers.filter { endpoint.roleArn(forProvider: $0.name) != nil }
    }

    /// alice's and bob's grants for every provider profile of the default stack that has a role.
    static func grants(_ endpoint: LocalEndpoint) throws -> [String: [String: [String: String]]] {
        var grants: [String: [String: [String: String]]] = [:]
        for provider in Self.federatedProviders(endpoint) {
            for user in ["alice", "bob"] {
                let token = try endpoint.developmentToken(provider: provider.name, user: user)
                var grant = ["token": token.token, "roleArn": token.roleArn ?? "", "bucket": token.bucket ?? "", "prefix": token.prefix ?? ""]
                if let providerId = token.providerId { grant["providerId"] = providerId }
                grants[provider.name, default: [:]][user] = grant
            }
        }
        return grants
    }

    @Test(
        "boto3: every provider's users federate, use their own folder, and are refused each other's",
        .enabled(if: Self.boto3Available, "boto3 is not installed (pip install boto3); WIF_REQUIRE_PEERS=1 fails instead")
    )
    func boto3() async throws {
        try await withStack { endpoint in
            let grants = try Self.grants(endpoint)
            let grantsJSON = String(decoding: try JSONSerialization.data(withJSONObject: grants), as: UTF8.self)
            let output = try await ThirdPartyProcess.run(
                ["python3", Self.scripts.appendingPathComponent("boto3_flow.py").path],
                environment: ["WIF_ENDPOINT": endpoint.url, "WIF_GRANTS": grantsJSON]
            )
            let observations = try #require(
                try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: [String: Any]], "boto3 flow printed \(output)"
            )
            #expect(Set(observations.keys) == Set(Self.federatedProviders(endpoint).map(\.name)))
            for (provider, seen) in observations {
                let prefix = try #require(endpoint.partitionPrefix(provider: provider, user: "alice"))
                #expect(seen["accessKeyPrefix"] as? String == "ASIA", "\(provider)")
                #expect(seen["subject"] as? String == "alice", "\(provider)")
                #expect(seen["assumedRoleArn"] as? String == "arn:aws:sts::000000000000:assumed-role/personal-store-\(provider)/boto3-test")
                #expect(seen["callerArn"] as? String == seen["assumedRoleArn"] as? String, "\(provider)")
                #expect(seen["getEqual"] as? Bool == true, "\(provider)")
                #expect(seen["getMetadata"] as? String == "boto3", "\(provider)")
                #expect(seen["getContentType"] as? String == "text/plain", "\(provider)")
                #expect(seen["range"] as? String == "hello", "\(provider)")
                #expect(seen["listPrefixes"] as? [String] == ["\(prefix)notes/"], "\(provider)")
                #expect(seen["listKeys"] as? [String] == ["\(prefix)notes/hello.txt"], "\(provider)")
                #expect(seen["multipartETagSuffix"] as? String == "3", "\(provider): 12 MiB in 5 MiB parts")
                #expect(seen["multipartEqual"] as? Bool == true, "\(provider)")
                #expect(seen["presigned"] as? Bool == true, "\(provider)")
                #expect(seen["presignedTampered"] as? Int == 403, "\(provider)")
                for attempt in ["crossGet", "crossPut", "crossDelete", "crossList", "rootList"] {
                    #expect(seen[attempt] as? String == "AccessDenied", "\(provider) \(attempt)")
                }
                #expect(seen["crossHead"] as? String == "403", "\(provider): HEAD errors carry only the status")
                #expect(seen["bobStillHasSecret"] as? Bool == true, "\(provider)")
                #expect(seen["deleted"] as? [String] == ["big.bin", "notes/hello.txt"], "\(provider)")
                // S3 answers NoSuchKey only to callers allowed s3:ListBucket on the bucket itself; the role may list
                // only under its own s3:prefix, so a missing key is AccessDenied, as on AWS.
                #expect(seen["afterDelete"] as? String == "AccessDenied", "\(provider)")
            }
        }
    }

    @Test(
        "aws CLI: a Facebook user federates with ProviderId, copies files in and out, and is refused another folder",
        .enabled(if: Self.awsAvailable, "the aws CLI is not installed (pip install awscli); WIF_REQUIRE_PEERS=1 fails instead")
    )
    func awsCLI() async throws {
        try await withStack { endpoint in
            let alice = try endpoint.developmentToken(provider: "facebook", user: "alice")
            let bobPrefix = try #require(endpoint.partitionPrefix(provider: "facebook", user: "bob"))
            let work = TemporaryFolder.url("wif-aws-cli")
            try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: work) }
            let output = try await ThirdPartyProcess.run(
                ["bash", Self.scripts.appendingPathComponent("aws_cli_flow.sh").path],
                environment: [
                    "WIF_ENDPOINT": endpoint.url, "WIF_TOKEN": alice.token, "WIF_PROVIDER_ID": alice.providerId ?? "",
                    "WIF_ROLE_ARN": alice.roleArn ?? "", "WIF_BUCKET": alice.bucket ?? "", "WIF_PREFIX": alice.prefix ?? "",
                    "WIF_OTHER_PREFIX": bobPrefix, "WIF_WORK": work.path,
                ]
            )
            var seen: [String: String] = [:]
            for line in output.split(separator: "\n") {
                guard let equals = line.firstIndex(of: "=") else { continue }
                seen[String(line[..<equals])] = String(line[line.index(after: equals)...])
            }
            #expect(seen["assume"] == "ok", "\(output)")
            #expect(seen["caller"] == "arn:aws:sts::000000000000:assumed-role/personal-store-facebook/aws-cli-test")
            #expect(seen["putSmall"] == "ok")
            #expect(seen["putLarge"] == "ok")
            #expect(seen["etag"]?.hasSuffix("-2\"") == true, "9 MiB in the CLI's 8 MiB parts: \(seen["etag"] ?? "")")
            #expect(seen["list"] == "large.bin,small.txt,")
            #expect(seen["getLarge"] == "equal")
            #expect(seen["getSmall"] == "equal")
            #expect(seen["crossPut"] == "AccessDenied")
            #expect(seen["crossList"] == "AccessDenied")
            #expect(seen["remove"] == "ok")
            #expect(seen["listAfter"] == "0")
        }
    }

    private func withStack<T: Sendable>(_ body: (LocalEndpoint) async throws -> T) async throws -> T {
        let directory = TemporaryFolder.url("wif-third-party").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        return try await LocalStack.run(.default(dataDirectory: directory)) { endpoint in try await body(endpoint) }
    }
}
