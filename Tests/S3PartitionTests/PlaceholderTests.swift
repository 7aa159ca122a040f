import Testing
@testable import S3Partition
