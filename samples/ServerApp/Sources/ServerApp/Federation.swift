import Foundation
import Logging
import S3Partition
import WIFCredentials
import WIFFileStore

/// Trades a user's token for a ``UserSession``: ``WebIdentityFederation`` asks STS whose token it is
/// and for temporary credentials, and makes the user's folder; this adds the session's expiry and
/// the server's answers for failures.
struct Federation: Sendable {
    let federation: WebIdentityFederation
    let maximumAge: Duration

    var timeSource: TimeSource { self.federation.timeSource }

    /// Federates a token.
    /// - Throws: ``FileServerError``: `unauthorized` when STS refuses the token, `accessDenied` when the
    ///   role's trust policy refuses the identity, `upstreamFailure` when STS fails.
    func federate(_ credential: BearerCredential, logger: Logger) async throws -> UserSession {
        let now = self.timeSource.now()
        let user: WebIdentityFederation.FederatedUser
        do {
            user = try await self.federation.federate(token: credential.token, providerId: credential.providerId, logger: logger)
        } catch let error as FileStoreError where error.code == .folderRefused {
            throw FileServerError.accessDenied("this identity cannot have a folder: \(error.message)", requestId: error.requestId)
        } catch let error as FileStoreError {
            throw FileServerError.upstreamFailure(error.message, requestId: error.requestId)
        } catch let error as S3Error {
            throw FileServerError.upstreamFailure("the S3 settings are unusable: \(error.message)")
        } catch {
            throw FileServerError.answer(for: error, name: nil)
        }
        logger.info(
            "federated a user",
            metadata: [
                "server_app.subject": "\(user.subject)",
                "server_app.prefix": "\(user.folder.prefix.value)",
                "server_app.sts_request_id": "\(user.result.requestId ?? "-")",
            ])

        // The token's own `exp` bounds the session. Reading it unverified is safe here: STS has just
        // accepted these exact bytes.
        var expiry = now.addingTimeInterval(Self.seconds(self.maximumAge))
        if let tokenExpiry = UnverifiedJWTClaims(token: credential.token)?.expiration, tokenExpiry < expiry {
            expiry = tokenExpiry
        }
        return UserSession(subject: user.subject, folder: user.folder, expiry: expiry)
    }

    static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
