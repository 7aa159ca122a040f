import AsyncHTTPClient
import Foundation
import Logging
import S3Partition
import Synchronization
import WIFCredentials

/// Trades a user's token for a ``UserSession``: STS `AssumeRoleWithWebIdentity` says who the user
/// is and hands out temporary credentials; the user's folder is the partition template filled in with
/// that subject.
struct Federation: Sendable {
    let sts: STSClient
    let s3: S3Client.Configuration
    let roleArn: String
    let bucket: String
    let partitionTemplate: String
    let durationSeconds: Int?
    let maximumAge: Duration
    let environment: [String: String]
    let httpClient: HTTPClient
    let timeSource: TimeSource

    /// Federates a token.
    /// - Throws: ``FileServerError``: `unauthorized` when STS refuses the token, `accessDenied` when the
    ///   role's trust policy refuses the identity, `upstreamFailure` when STS fails.
    func federate(_ credential: BearerCredential, logger: Logger) async throws -> UserSession {
        let now = self.timeSource.now()
        let request = AssumeRoleWithWebIdentityRequest(
            roleArn: self.roleArn,
            roleSessionName: WebIdentityConfiguration.defaultRoleSessionName(at: now),
            providerId: credential.providerId,
            durationSeconds: self.durationSeconds
        )
        let result: AssumeRoleWithWebIdentityResult
        do {
            result = try await self.sts.assumeRoleWithWebIdentity(request, webIdentityToken: credential.token, logger: logger)
        } catch {
            throw FileServerError.answer(for: error, name: nil)
        }
        guard let subject = result.subjectFromWebIdentityToken else {
            throw FileServerError.upstreamFailure(
                "STS did not say whose token this is (no SubjectFromWebIdentityToken), so the user's folder is unknown",
                requestId: result.requestId)
        }
        let prefix: PartitionPrefix
        do throws(S3Error) {
            prefix = try PartitionPrefix.make(template: self.partitionTemplate, userId: subject)
        } catch {
            throw FileServerError.accessDenied("this identity cannot have a folder: \(error.message)", requestId: result.requestId)
        }

        // The credentials of this answer serve first; later ones come from sending the same token again,
        // which STS refuses once the token has expired.
        let first = FirstCredentials(result.credentials)
        let sts = self.sts
        let token = credential.token
        let credentials = RefreshingCredentialProvider(timeSource: self.timeSource) { logger in
            if let credentials = first.take() { return credentials }
            return try await sts.assumeRoleWithWebIdentity(request, webIdentityToken: token, logger: logger).credentials
        }
        let client: S3Client
        let folder: PartitionedBucket
        do throws(S3Error) {
            client = try S3Client(
                configuration: self.s3, credentialProvider: credentials, environment: self.environment, httpClient: self.httpClient,
                timeSource: self.timeSource)
            folder = try PartitionedBucket(client: client, bucket: self.bucket, prefix: prefix)
        } catch {
            throw FileServerError.upstreamFailure("the S3 settings are unusable: \(error.message)")
        }
        logger.info(
            "federated a user",
            metadata: [
                "server_app.subject": "\(subject)",
                "server_app.prefix": "\(prefix.value)",
                "server_app.sts_request_id": "\(result.requestId ?? "-")",
            ])

        // The token's own `exp` bounds the session. Reading it unverified is safe here: STS has just
        // accepted these exact bytes.
        var expiry = now.addingTimeInterval(Self.seconds(self.maximumAge))
        if let tokenExpiry = UnverifiedJWTClaims(token: token)?.expiration, tokenExpiry < expiry {
            expiry = tokenExpiry
        }
        return UserSession(subject: subject, folder: folder, expiry: expiry)
    }

    static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
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
