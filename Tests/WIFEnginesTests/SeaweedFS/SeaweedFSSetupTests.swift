import Foundation
import Testing

@testable import WIFEngines

/// How a SeaweedFS set-up reads SeaweedFS's answers.
@Suite("SeaweedFS set-up errors")
struct SeaweedFSSetupTests {
    @Test func s3ErrorRepliesAreReadLeniently() {
        let reply = S3ErrorReply(Data(
            "<?xml version=\"1.0\"?><Error><Code>BucketAlreadyOwnedByYou</Code><Message>You &amp; me</Message><RequestId>18EA</RequestId></Error>".utf8))
        #expect(reply == S3ErrorReply(code: "BucketAlreadyOwnedByYou", message: "You & me", requestId: "18EA"))
        #expect(S3ErrorReply(Data("<html>Bad Gateway</html>".utf8)) == S3ErrorReply(code: nil, message: nil, requestId: nil))
        #expect(S3ErrorReply(Data()).code == nil)
    }
}
