import Foundation
import S3Partition

extension FileServer {
    /// Where the server listens, which role its users federate into, and where their files live.
    ///
    /// ```swift
    /// var configuration = FileServer.Configuration(
    ///     roleArn: "arn:aws:iam::123456789012:role/personal-store-google",
    ///     bucket: "my-shared-bucket",
    ///     partitionTemplate: "google/{id}/"
    /// )
    /// configuration.region = "eu-west-1"
    /// ```
    public struct Configuration: Sendable {
        /// The address to listen on.
        public var host: String
        /// The port to listen on; `0` picks a free one.
        public var port: Int
        /// The role every user's token is sent to `AssumeRoleWithWebIdentity` for. Its trust policy says
        /// whose tokens are accepted; its permissions keep each user in their own folder.
        public var roleArn: String
        /// The shared bucket.
        public var bucket: String
        /// The user's folder in the bucket: `{id}` is replaced by STS's `SubjectFromWebIdentityToken`.
        public var partitionTemplate: String
        /// The region of STS and S3; `nil` reads `AWS_REGION` from the environment, else `us-east-1`.
        public var region: String?
        /// An STS endpoint replacing the regional one (a local stack, a VPC endpoint).
        public var stsEndpoint: String?
        /// An S3 endpoint replacing the regional one.
        public var s3Endpoint: String?
        /// How long the temporary credentials last, in seconds (900–43200); `nil` for the role's default.
        public var durationSeconds: Int?
        /// The largest upload accepted, in bytes; larger ones are answered `413`.
        public var maximumUploadBytes: Int64
        /// Where request and response bodies are spooled on their way to and from S3; `nil` creates a
        /// private folder in the temporary directory.
        public var spoolDirectory: String?
        /// How federated users are remembered between requests.
        public var sessions: Sessions
        /// The notes API (`/notes`), or `nil` for none.
        public var notes: NotesAPI?

        /// How federated users are remembered between requests, so that each request does not call STS.
        public struct Sessions: Sendable, Hashable {
            /// How many tokens are remembered; the least recently used is forgotten first.
            public var capacity: Int
            /// How long a token is trusted without asking STS again, at most; a token is never trusted
            /// past its own `exp`.
            public var maximumAge: Duration

            /// Creates the settings.
            /// - Parameters:
            ///   - capacity: How many tokens are remembered, at least 1.
            ///   - maximumAge: How long a token is trusted without asking STS again.
            public init(capacity: Int = 1000, maximumAge: Duration = .seconds(3600)) {
                self.capacity = capacity
                self.maximumAge = maximumAge
            }
        }

        /// Creates a configuration.
        /// - Parameters:
        ///   - host: The address to listen on.
        ///   - port: The port to listen on; `0` picks a free one.
        ///   - roleArn: The role users federate into.
        ///   - bucket: The shared bucket.
        ///   - partitionTemplate: The user's folder, `{id}` standing for the subject.
        ///   - region: The region of STS and S3.
        ///   - stsEndpoint: An STS endpoint replacing the regional one.
        ///   - s3Endpoint: An S3 endpoint replacing the regional one.
        public init(
            host: String = "127.0.0.1",
            port: Int = 8080,
            roleArn: String,
            bucket: String,
            partitionTemplate: String = PartitionPrefix.defaultTemplate,
            region: String? = nil,
            stsEndpoint: String? = nil,
            s3Endpoint: String? = nil
        ) {
            self.host = host
            self.port = port
            self.roleArn = roleArn
            self.bucket = bucket
            self.partitionTemplate = partitionTemplate
            self.region = region
            self.stsEndpoint = stsEndpoint
            self.s3Endpoint = s3Endpoint
            self.durationSeconds = nil
            self.maximumUploadBytes = 1 << 30
            self.spoolDirectory = nil
            self.sessions = Sessions()
            self.notes = nil
        }
    }
}
