import S3Partition
import WIFCredentials

extension FileServerError {
    /// STS error codes that mean the identity provider's token itself was refused.
    static let refusedTokenCodes: Set<String> = ["InvalidIdentityToken", "ExpiredTokenException", "IDPRejectedClaim"]

    /// The answer for any failure: ``federation(_:)`` for STS's, ``storage(_:name:)`` for S3's,
    /// `502` for the rest; cancellation stays cancellation.
    static func answer(for error: any Error, name: String?) -> any Error {
        switch error {
        case let error as FileServerError:
            return error
        case let error as WIFCredentialsError:
            return Self.federation(error)
        case let error as S3Error:
            return Self.storage(error, name: name)
        default:
            return error is CancellationError ? error : Self.upstreamFailure("the request failed: \(type(of: error))")
        }
    }

    /// The answer for a failed federation: a refused token is `401`, a role whose trust policy refuses
    /// the identity `403`, anything else `502`.
    static func federation(_ error: WIFCredentialsError) -> FileServerError {
        switch error.code {
        case .service:
            guard let service = error.serviceError else { break }
            // STS's messages never contain the token (the client redacts it from answers anyway).
            let detail = service.message.map { ": \($0)" } ?? ""
            if Self.refusedTokenCodes.contains(service.code) {
                return .unauthorized("the identity token was refused (\(service.code)\(detail))", requestId: service.requestId)
            }
            if service.code == "AccessDenied" {
                return .accessDenied("this identity may not assume the role (\(service.code)\(detail))", requestId: service.requestId)
            }
            return .upstreamFailure("STS refused the federation with \(service.code)", requestId: service.requestId)
        case .tokenExpired:
            return .unauthorized("the identity token has expired; get a fresh one from the identity provider")
        case .invalidParameter:
            // The role and session settings are checked at start-up, so what is left is the token.
            return .unauthorized("the identity token is not one STS accepts: \(error.reason)")
        default:
            break
        }
        return .upstreamFailure("could not federate the token (\(error.code))")
    }

    /// The answer for a failed S3 request: a refused name is `400` with its rule, `AccessDenied` `403`,
    /// `NoSuchKey` `404`, a refused credential `401` or `403` as for federation, anything else `502`.
    static func storage(_ error: S3Error, name: String?) -> FileServerError {
        switch error.code {
        case .invalidObjectName, .keyTooLong:
            return .invalidName(error.message, rule: error.nameRule?.description)
        case .invalidArgument:
            return .invalidRequest(error.message)
        case .accessDenied, .preflightDenied:
            return .accessDenied("S3 refused the request (\(error.code))", requestId: error.requestId)
        case .noSuchKey, .notFound:
            return .noSuchFile(name ?? "")
        case .entityTooLarge:
            return Self(code: .tooLarge, status: .contentTooLarge, message: "S3 refused the upload as too large")
        case .expiredToken:
            return .unauthorized("the temporary credentials have expired; sign in again", requestId: error.requestId)
        case .credentialsUnavailable:
            guard let credentialsError = error.credentialsError else { break }
            return Self.federation(credentialsError)
        default:
            break
        }
        return .upstreamFailure("S3 failed with \(error.code)", requestId: error.requestId)
    }
}
