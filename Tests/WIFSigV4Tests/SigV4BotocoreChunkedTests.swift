import Foundation
import Testing
import WIFSigV4
import WIFTestSupport

/// `STREAMING-UNSIGNED-PAYLOAD-TRAILER` bodies framed by botocore (its `AwsChunkedWrapper`, which the
/// AWS CLI and boto3 send S3 uploads through) and by the Swift signer, compared byte for byte.
///
/// botocore is a peer: without it the test is skipped, unless `WIF_REQUIRE_PEERS=1`, which turns the skip
/// into a failure.
@Suite struct SigV4BotocoreChunkedTests {
    static let botocoreAvailable =
        MotoServer.peersRequired || ThirdPartyProcess.succeeds(["python3", "-c", "import botocore.httpchecksum"])

    /// Frames the body in `WIF_BODY` (hex) in chunks of `WIF_CHUNK` bytes with each algorithm botocore
    /// computes without the optional awscrt package, and prints {algorithm: framed body in hex or null}.
    static let script = """
        import io, json, os
        import botocore.httpchecksum as checksums
        from botocore.compat import HAS_CRT
        body = bytes.fromhex(os.environ["WIF_BODY"])
        classes = {"crc32": checksums.Crc32Checksum, "sha256": checksums.Sha256Checksum}
        classes["crc32c"] = checksums.CrtCrc32cChecksum if HAS_CRT else None
        framed = {}
        for name, cls in classes.items():
            if cls is None:
                framed[name] = None
                continue
            wrapper = checksums.AwsChunkedWrapper(
                io.BytesIO(body), checksum_cls=cls, checksum_name="x-amz-checksum-" + name,
                chunk_size=int(os.environ["WIF_CHUNK"]))
            framed[name] = wrapper.read().hex()
        print(json.dumps(framed))
        """

    static func swiftFraming(_ data: [UInt8], chunkSize: Int, trailer: SigV4Checksum) throws -> (body: [UInt8], contentLength: String?) {
        let signer = SigV4Signer(credentials: SigV4StreamingTests.credentials, region: "us-east-1", service: "s3")
        var request = SigV4StreamingTests.exampleRequest()
        var chunks = try signer.signStreamingUnsigned(
            &request, decodedContentLength: data.count, chunkSize: chunkSize, trailer: trailer, date: SigV4StreamingTests.date)
        var body: [UInt8] = []
        for start in stride(from: 0, to: data.count, by: chunkSize) {
            body += try chunks.frame(data[start..<min(start + chunkSize, data.count)])
        }
        body += try chunks.frame([UInt8]())
        return (body, SigV4StreamingTests.header("content-length", in: request))
    }

    @Test(
        .enabled(if: Self.botocoreAvailable, "python3 cannot import botocore (pip install botocore); WIF_REQUIRE_PEERS=1 fails instead"),
        arguments: [0, 5, 8_192, 20_000])
    func botocoreFramesTheSameBytes(length: Int) async throws {
        let data = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 17) }
        let chunkSize = 8_192
        let hex = data.map { String(format: "%02x", $0) }.joined()
        let output = try await ThirdPartyProcess.run(
            ["python3", "-c", Self.script], environment: ["WIF_BODY": hex, "WIF_CHUNK": String(chunkSize)])
        let framed = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any], "botocore printed \(output)")
        var compared: [String] = []
        for (name, algorithm) in [("crc32", SigV4Checksum.crc32), ("sha256", .sha256), ("crc32c", .crc32c)] {
            // botocore computes CRC-32C only with awscrt installed; without it there is nothing to compare.
            guard let botocoreHex = framed[name] as? String else { continue }
            let swift = try Self.swiftFraming(data, chunkSize: chunkSize, trailer: algorithm)
            let swiftHex = swift.body.map { String(format: "%02x", $0) }.joined()
            #expect(swiftHex == botocoreHex, "\(name): \(String(decoding: swift.body.suffix(80), as: UTF8.self))")
            #expect(swift.contentLength == String(botocoreHex.utf8.count / 2), "\(name): Content-Length")
            compared.append(name)
        }
        #expect(compared.contains("crc32") && compared.contains("sha256"), "botocore framed only \(compared)")
    }
}
