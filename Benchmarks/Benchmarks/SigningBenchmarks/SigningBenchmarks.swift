import Benchmark
import Foundation
import WIFCredentials

// The same three requests are signed by `peers/botocore_sigv4.py`; `Benchmarks/run` prints the ratio.
// Each measured iteration signs `BenchmarkShared.batch` requests (scaling factor .kilo), so per-signature
// figures are the reported time divided by 1,000.

let credentials = AWSCredentials(
    accessKeyId: "ASIAQEXAMPLEEXAMPLE1",
    secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
    sessionToken: "IQoJb3JpZ2luX2VjEXAMPLESESSIONTOKENEXAMPLESESSIONTOKENEXAMPLESESSIONTOKEN"
)
let signingDate = Date(timeIntervalSince1970: 1_700_000_000)
let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput],
        scalingFactor: .kilo,
        maxDuration: .seconds(3),
        maxIterations: 1_000_000
    )

    let s3 = SigV4Signer(credentials: credentials, region: "us-east-1", service: "s3")
    let getObject = SigV4Request(
        method: "GET",
        host: "wif-personal.s3.us-east-1.amazonaws.com",
        path: "/facebook/1234567890/photos/2026/holiday%20picture.jpg"
    )

    Benchmark("S3 GetObject header signing") { benchmark in
        for _ in benchmark.scaledIterations {
            var request = getObject
            try s3.sign(&request, payload: .hash(emptyPayloadHash), date: signingDate)
            blackHole(request)
        }
    }

    Benchmark("S3 GetObject presigning") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try s3.presign(getObject, date: signingDate, expires: 3600))
        }
    }

    let sts = SigV4Signer(credentials: credentials, region: "us-east-1", service: "sts")
    let form = Array(
        "Action=AssumeRole&Version=2011-06-15&RoleArn=arn%3Aaws%3Aiam%3A%3A123456789012%3Arole%2Fpersonal-store&RoleSessionName=bench-session&DurationSeconds=3600"
            .utf8)
    let stsRequest = SigV4Request(
        method: "POST",
        host: "sts.us-east-1.amazonaws.com",
        path: "/",
        headers: [.init("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")]
    )

    Benchmark("STS form signing") { benchmark in
        for _ in benchmark.scaledIterations {
            var request = stsRequest
            try sts.sign(&request, payload: .bytes(form), date: signingDate)
            blackHole(request)
        }
    }
}
