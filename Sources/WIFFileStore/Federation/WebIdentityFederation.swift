import AsyncHTTPClient
import Foundation
import Logging
import S3Partition
import Synchronization
import WIFCredentials
import WIFHTTP

/// Federates web-identity tokens into one shared bucket: STS `AssumeRoleWithWebIdentity` says whose
/// token it is and hands out temporary credentials, and the user's folder is the partition template
/// filled in with that subject.
///
/// ```swift
/// let federation = WebIdentityFederation(
///     sts: try STSClient(configuration: .init(region: "eu-west-1")),
///     s3: S3Client.Configuration(region: "eu-west-1"),
///     roleArn: "arn:aws:iam::123456789012:role/personal-store", bucket: "wif-personal")
/// let user = try await federation.federate(token: idToken, logger: logger)
/// try await user.folder.put("notes.txt", fromFile: "notes.txt", logger: logger)
/// ```
///
/// The folder's credentials renew themselves by sending the same token to STS again, which STS
/// refuses once the token has expired.
public struct WebIdentityFederation: Sendable {
    /// The STS client that federates the tokens.
    public let sts: STSClient
    /// Where the folders' S3 requests go.
    public let s3: S3Client.Configuration
    /// The role every user assumes.
    public let roleArn: String
    /// The shared bucket.
    public let bucket: String
    /// The folder of a user: `{id}` stands for STS's `SubjectFromWebIdentityToken`.
    public let partitionTemplate: String
    /// The credentials' lifetime asked of STS, or `nil` for the role's.
    public let durationSeconds: Int?
    /// Environment variables the S3 clients consult for the region and endpoint.
    public let environment: [String: String]
    /// The HTTP client of the folders' S3 requests.
    public let httpClient: HTTPClient
    /// The clock of the default role session names, credential expiry and S3 signatures.
    public let timeSource: TimeSource

    /// Creates a federation.
    /// - Parameters:
    ///   - sts: The STS client that federates the tokens.
    ///   - s3: Where the folders' S3 requests go.
    ///   - roleArn: The role every user assumes.
    ///   - bucket: The shared bucket.
    ///   - partitionTemplate: The folder of a user, `{id}` standing for the subject.
    ///   - durationSeconds: The credentials' lifetime, 900 to 43200 seconds, or `nil` for the role's.
    ///   - environment: Environment variables the S3 clients consult; by default none.
    ///   - httpClient: The HTTP client of the S3 requests.
    ///   - timeSource: The clock.
    public init(
        sts: STSClient,
        s3: S3Client.Configuration,
        roleArn: String,
        bucket: String,
        partitionTemplate: String = PartitionPrefix.defaultTemplate,
        durationSeconds: Int? = nil,
        environment: [String: String] = [:],
        httpClient: HTTPClient = S3Client.sharedHTTPClient,
        timeSource: TimeSource = .system
    ) {
        self.sts = sts
        self.s3 = s3
        self.roleArn = roleArn
        self.bucket = bucket
        self.partitionTemplate = partitionTemplate
        self.durationSeconds = durationSeconds
        self.environment = environment
        self.httpClient = httpClient
        self.timeSource = timeSource
    }

    /// A federated user: who STS says the token belongs to, and their folder.
    public struct FederatedUser: Sendable {
        /// STS's `SubjectFromWebIdentityToken` (or the fallback given): the user id the folder is named after.
        public let subject: String
        /// The user's folder, reached with credentials that renew themselves.
        public let folder: PartitionedBucket
        /// STS's answer: the first credentials, the assumed-role user, the request id.
        public let result: AssumeRoleWithWebIdentityResult
    }

    /// Trades a token for temporary credentials, without making a folder.
    /// - Parameters:
    ///   - token: The OIDC ID token or OAuth 2.0 access token.
    ///   - providerId: The `ProviderId` of opaque access tokens (`graph.facebook.com`, `www.amazon.com`).
    ///   - roleSessionName: The role session name; by default one made from the time.
    ///   - logger: Where to log; never the token or the credentials.
    /// - Returns: STS's answer.
    /// - Throws: ``WIFCredentialsError`` from STS.
    public func assumeRole(
        token: String, providerId: String? = nil, roleSessionName: String? = nil, logger: Logger = .noop
    ) async throws -> AssumeRoleWithWebIdentityResult {
        let request = self.request(providerId: providerId, roleSessionName: roleSessionName)
        return try await self.exchange(request, token: token, logger: logger)
    }

    /// Federates a token into its user's folder.
    /// - Parameters:
    ///   - token: The OIDC ID token or OAuth 2.0 access token.
    ///   - providerId: The `ProviderId` of opaque access tokens.
    ///   - roleSessionName: The role session name; by default one made from the time.
    ///   - fallbackSubject: The user id to use when STS names none (some S3 engines do not); `nil`
    ///     makes that an error.
    ///   - logger: Where to log; never the token or the credentials.
    /// - Returns: The user and their folder.
    /// - Throws: ``WIFCredentialsError`` from STS; ``FileStoreError`` `unknownSubject` when STS names no
    ///   subject and there is no fallback, `folderRefused` when the subject cannot name a folder;
    ///   `S3Error` for unusable S3 settings.
    public func federate(
        token: String, providerId: String? = nil, roleSessionName: String? = nil, fallbackSubject: String? = nil,
        logger: Logger = .noop
    ) async throws -> FederatedUser {
        let request = self.request(providerId: providerId, roleSessionName: roleSessionName)
        let result = try await self.exchange(request, token: token, logger: logger)
        guard let subject = result.subjectFromWebIdentityToken ?? fallbackSubject else {
            throw FileStoreError(
                .unknownSubject, "STS did not say whose token this is (no SubjectFromWebIdentityToken), so the user's folder is unknown",
                requestId: result.requestId)
        }
        // The credentials of this answer serve first; later ones come from sending the same token again.
        let first = FirstCredentials(result.credentials)
        let sts = self.sts
        let credentials = RefreshingCredentialProvider(timeSource: self.timeSource) { logger in
            if let credentials = first.take() { return credentials }
            return try await sts.assumeRoleWithWebIdentity(request, webIdentityToken: token, logger: logger).credentials
        }
        let folder = try self.folder(subject: subject, credentialProvider: credentials, requestId: result.requestId)
        return FederatedUser(subject: subject, folder: folder, result: result)
    }

    /// The folder of a user already federated, reached with `credentialProvider`.
    /// - Parameters:
    ///   - subject: The user id.
    ///   - credentialProvider: Where the folder's credentials come from.
    ///   - requestId: The request id of the STS answer that named the subject, for errors.
    /// - Returns: The folder.
    /// - Throws: ``FileStoreError`` `folderRefused` when the subject cannot name a folder under the
    ///   template; `S3Error` for unusable S3 settings.
    public func folder(subject: String, credentialProvider: some CredentialProvider, requestId: String? = nil) throws -> PartitionedBucket {
        let prefix: PartitionPrefix
        do throws(S3Error) {
            prefix = try PartitionPrefix.make(template: self.partitionTemplate, userId: subject)
        } catch {
            throw FileStoreError(.folderRefused, error.message, requestId: requestId, s3Error: error)
        }
        let client = try S3Client(
            configuration: self.s3, credentialProvider: credentialProvider, environment: self.environment, httpClient: self.httpClient,
            timeSource: self.timeSource)
        return try PartitionedBucket(client: client, bucket: self.bucket, prefix: prefix)
    }

    private func request(providerId: String?, roleSessionName: String?) -> AssumeRoleWithWebIdentityRequest {
        AssumeRoleWithWebIdentityRequest(
            roleArn: self.roleArn,
            roleSessionName: roleSessionName ?? WebIdentityConfiguration.defaultRoleSessionName(at: self.timeSource.now()),
            providerId: providerId,
            durationSeconds: self.durationSeconds)
    }

    /// Sends the token to STS; a refusal whose code could mean the token or the role is told apart by
    /// checking the token against its issuer (``TokenRefusalCheck``).
    private func exchange(
        _ request: AssumeRoleWithWebIdentityRequest, token: String, logger: Logger
    ) async throws -> AssumeRoleWithWebIdentityResult {
        do {
            return try await self.sts.assumeRoleWithWebIdentity(request, webIdentityToken: token, logger: logger)
        } catch let error as WIFCredentialsError {
            throw await TokenRefusalCheck.refine(error, token: token, httpClient: self.httpClient, now: self.timeSource.now(), logger: logger)
        }
    }
}

/// Credentials handed out once: those of the answer that federated the user.
private final class FirstCredentials: Sendable {
    private let credentials: Mutex<AWSCredentials?>

    init(_ credentials: AWSCredentials) {
        self.credentials = Mutex(credentials)
    }

    func take() -> AWSCredentials? {
        self.credentials.withLock { $0.take() }
    }
}
