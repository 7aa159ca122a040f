import Foundation
import Testing
@testable import WIFLocal
import WIFTestSupport

/// boto3 against the local stack on the answers in which it once differed from S3.
///
/// boto3 is a peer: missing, it skips this test, unless `WIF_REQUIRE_PEERS=1` (as in CI).
@Suite("Third-party clients: S3 answers as S3 gives them")
struct ThirdPartyConformanceTests {
    static let admin = AdminCredentials(accessKeyId: "AKIACONFORMANCE00001", secretAccessKey: "conformance-admin-secret-0123456789")

    @Test(
        "boto3: listings, multipart completion, part reads, copy ranges, presigned expiry, encodings, bucket pages, conditional deletes, ACLs, encryption, checksums, form uploads, Expect: 100-continue, encoded metadata",
        .enabled(if: ThirdPartyClientTests.boto3Available, "boto3 is not installed (pip install boto3); WIF_REQUIRE_PEERS=1 fails instead")
    )
    func boto3() async throws {
        let directory = TemporaryFolder.url("wif-conformance").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var configuration = LocalConfiguration.default(dataDirectory: directory)
        configuration.adminCredentials = Self.admin
        let output = try await LocalStack.run(configuration) { endpoint in
            try await ThirdPartyProcess.run(
                ["python3", ThirdPartyClientTests.scripts.appendingPathComponent("boto3_conformance.py").path],
                environment: [
                    "WIF_ENDPOINT": endpoint.url, "WIF_ACCESS_KEY": Self.admin.accessKeyId,
                    "WIF_SECRET_KEY": Self.admin.secretAccessKey, "WIF_BUCKET": LocalConfiguration.defaultBucket,
                ]
            )
        }
        let seen = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any], "boto3 printed \(output)")
        #expect(seen["metadataWords"] as? [String: String] == ["plain": "abc", "word": "=?UTF-8?B?Y2Fmw6k=?=", "q": "=?UTF-8?B?Y2Fmw6k=?="])
        #expect(seen.keys.filter { $0.hasSuffix("Failed") }.isEmpty, "\(seen)")
        #expect(seen["listV1PastPrefix"] as? [String] == ["cquux/"])
        #expect(seen["listV1Paginated"] as? [String] == ["boo/", "cquux/"])
        #expect(seen["completeAgain"] as? String == "same")
        #expect(seen["completeIfNoneMatch"] as? String == "PreconditionFailed")
        #expect(seen["existingKept"] as? Bool == true)
        #expect(seen["partRead"] as? [AnyHashable] == [206, 2, "bytes 5242880-5243903/5243904", "same"])
        #expect(seen["partHeadLength"] as? Int == 5 * 1024 * 1024)
        #expect(seen["partBeyond"] as? String == "InvalidPartNumber")
        #expect(seen["checksumPartsWithGap"] as? String == "InvalidPartOrder")
        #expect(seen["wrongObjectSize"] as? String == "InvalidRequest")
        #expect(seen["rightObjectSize"] as? String == "OK")
        #expect(seen["wholeHasNoPartsCount"] as? Bool == true)
        #expect(seen["copyRangeBeyond"] as? String == "InvalidRange")
        #expect(seen["copyRangeInside"] as? String == "OK")
        #expect(seen["presignedZero"] as? Int == 403)
        #expect(seen["presignedMinute"] as? Int == 200)
        #expect(seen["contentEncoding"] as? String == "deflate, gzip")
        #expect(seen["bucketPages"] as? Int == 3)
        #expect(seen["bucketNames"] as? Bool == true)
        #expect(seen["deleteIfMatchWrong"] as? String == "PreconditionFailed")
        #expect(seen["deleteIfMatchRight"] as? String == "OK")
        #expect(seen["batchDeleted"] as? [String] == ["batch/1"])
        #expect(seen["batchErrors"] as? [String] == ["PreconditionFailed"])
        #expect(seen["aclPrivate"] as? String == "OK")
        #expect(seen["aclPublicRead"] as? String == "AccessControlListNotSupported")
        #expect(seen["sseKMS"] as? String == "NotImplemented")
        #expect(seen["sseStored"] as? String == "404", "nothing stored under a refused encryption request")
        #expect(seen["sseS3"] as? [String] == ["AES256", "AES256", "secret"])
        #expect(seen["sseCWithoutKey"] as? String == "InvalidRequest")
        #expect(seen["sseCWrongKey"] as? String == "AccessDenied")
        #expect(seen["sseCWithKey"] as? String == "customer")
        #expect(seen["formUpload"] as? Int == 501)
        #expect(seen["putCRC32"] as? Bool == true)
        #expect(seen["putCRC32Type"] as? String == "FULL_OBJECT")
        #expect(seen["getSHA256"] as? Bool == true)
        #expect(seen["headWithoutMode"] as? Bool == false)
        #expect(seen["multipartCOMPOSITE"] as? String == "complete:equal head:equal COMPOSITE")
        #expect(seen["multipartFULL_OBJECT"] as? String == "complete:equal head:equal FULL_OBJECT")
        #expect(seen["malformedChecksum"] as? String == "InvalidRequest")
        // boto3 waits for `100 Continue` before sending a file body: a refused upload is answered first,
        // so its body never leaves the client, and an accepted one is told to go on.
        #expect(seen["continueRefusedCode"] as? String == "SignatureDoesNotMatch")
        let refusedLog = seen["continueRefusedLog"] as? [String] ?? []
        #expect(refusedLog.contains { $0.contains("NOT sending request body") }, "\(refusedLog)")
        #expect(!refusedLog.contains { $0.contains("now sending request body") }, "\(refusedLog)")
        #expect(seen["continueRefusedStored"] as? String == "404")
        #expect(seen["continueAcceptedCode"] as? String == "OK")
        let acceptedLog = seen["continueAcceptedLog"] as? [String] ?? []
        #expect(acceptedLog.contains { $0.contains("100 Continue response seen") }, "\(acceptedLog)")
        #expect(seen["metadataWords"] as? [String: String] == ["plain": "abc", "word": "=?UTF-8?B?Y2Fmw6k=?=", "q": "=?UTF-8?B?Y2Fmw6k=?="])
        #expect(seen.keys.filter { $0.hasSuffix("Failed") }.isEmpty, "\(seen.filter { $0.key.hasSuffix("Failed") })")
    }
}
