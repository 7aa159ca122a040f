import WIFFoundation

/// The errors of request authentication, in the codes and messages of the service being called: S3
/// answers in its own words (`InvalidAccessKeyId`, `RequestTimeTooSkewed`, `AuthorizationHeaderMalformed`…),
/// STS and the other query-API services in theirs (`InvalidClientTokenId`, `SignatureDoesNotMatch` with
/// "Signature expired", `IncompleteSignature`…).
///
/// No message carries a secret: not a session token, not a secret key, not a signature computed with one.
struct AuthenticationErrors: Sendable {
    /// Whether the service is S3.
    let isS3: Bool
    /// The service's signing name.
    let service: String
    /// The region the stack signs in.
    let region: String

    init(service: String, region: String) {
        self.isS3 = service == "s3"
        self.service = service
        self.region = region
    }

    private static let s3Mismatch =
        "The request signature we calculated does not match the signature you provided. Check your key and signing method."
    private static let queryMismatch =
        "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details."
    private static let credentialShape = "expecting \"<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/aws4_request\"."

    // MARK: Missing or unusable authentication

    /// No signature at all: S3 treats the request as anonymous and refuses it; query APIs require one.
    func missingAuthentication() -> AWSErrorResponse {
        if self.isS3 { return AWSErrorResponse("AccessDenied", "Access Denied", status: .forbidden) }
        return AWSErrorResponse("MissingAuthenticationToken", "Request is missing Authentication Token", status: .forbidden)
    }

    /// Both an `Authorization` header and query-string signature parameters.
    func twoMechanisms() -> AWSErrorResponse {
        let message =
            "Only one auth mechanism allowed; only the X-Amz-Algorithm query parameter, Signature query string parameter or the Authorization header should be specified"
        if self.isS3 {
            return AWSErrorResponse("InvalidArgument", message, details: [("ArgumentName", "Authorization")])
        }
        return AWSErrorResponse("IncompleteSignature", message)
    }

    /// An algorithm other than `AWS4-HMAC-SHA256` (Signature Version 2, SigV4a, anything else).
    func unsupportedAlgorithm(_ algorithm: String, presigned: Bool) -> AWSErrorResponse {
        if self.isS3 {
            if presigned {
                return AWSErrorResponse("AuthorizationQueryParametersError", "X-Amz-Algorithm only supports \"AWS4-HMAC-SHA256\"")
            }
            return AWSErrorResponse(
                "InvalidRequest", "The authorization mechanism you have provided is not supported. Please use AWS4-HMAC-SHA256.")
        }
        return AWSErrorResponse("IncompleteSignature", "Unsupported AWS 'algorithm': '\(algorithm.prefix(64))'")
    }

    /// An `Authorization` header without `Credential`, `SignedHeaders` or `Signature`, or with a part
    /// that is not `name=value`.
    func malformedHeader(missing: [String], unreadable: String?) -> AWSErrorResponse {
        if self.isS3 {
            if let unreadable {
                return AWSErrorResponse(
                    "AuthorizationHeaderMalformed",
                    "The authorization header is malformed; '\(unreadable.prefix(64))' is not a valid key=value pair.")
            }
            return AWSErrorResponse(
                "AuthorizationHeaderMalformed",
                "The authorization header is malformed; the authorization header requires three components: Credential, SignedHeaders, and Signature.")
        }
        if let unreadable {
            return AWSErrorResponse(
                "IncompleteSignature",
                "'\(unreadable.prefix(64))' not a valid key=value pair (missing equal-sign) in Authorization header.")
        }
        return AWSErrorResponse(
            "IncompleteSignature", missing.map { "Authorization header requires '\($0)' parameter." }.joined(separator: " "))
    }

    /// Query-string authentication without one of its parameters.
    func missingQueryParameters() -> AWSErrorResponse {
        if self.isS3 {
            return AWSErrorResponse(
                "AuthorizationQueryParametersError",
                "Query-string authentication version 4 requires the X-Amz-Algorithm, X-Amz-Credential, X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters.")
        }
        return AWSErrorResponse(
            "IncompleteSignature",
            "AWS query-string parameters must include 'X-Amz-Algorithm', 'X-Amz-Credential', 'X-Amz-Signature', 'X-Amz-SignedHeaders', 'X-Amz-Date'. Re-examine the query-string parameters.")
    }

    /// A credential that is not `AKID/DATE/REGION/SERVICE/aws4_request`.
    func malformedCredential(_ credential: String, presigned: Bool) -> AWSErrorResponse {
        if self.isS3 {
            return presigned
                ? AWSErrorResponse(
                    "AuthorizationQueryParametersError",
                    "Error parsing the X-Amz-Credential parameter; the Credential is mal-formed; \(Self.credentialShape)")
                : AWSErrorResponse(
                    "AuthorizationHeaderMalformed", "The authorization header is malformed; the Credential is mal-formed; \(Self.credentialShape)")
        }
        return AWSErrorResponse(
            "IncompleteSignature",
            "Credential must have exactly 5 slash-delimited elements, e.g. keyid/date/region/service/term, got '\(credential.prefix(128))'")
    }

    /// No usable `X-Amz-Date` or `Date`.
    func missingDate(presigned: Bool) -> AWSErrorResponse {
        if self.isS3 {
            if presigned {
                return AWSErrorResponse(
                    "AuthorizationQueryParametersError", "X-Amz-Date must be in the ISO8601 Long Format \"yyyyMMdd'T'HHmmss'Z'\"")
            }
            return AWSErrorResponse("AccessDenied", "AWS authentication requires a valid Date or x-amz-date header", status: .forbidden)
        }
        if presigned {
            return AWSErrorResponse("IncompleteSignature", "X-Amz-Date must be in the ISO8601 Long Format \"yyyyMMdd'T'HHmmss'Z'\"")
        }
        return AWSErrorResponse(
            "IncompleteSignature", "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header.")
    }

    /// `X-Amz-Expires` that is not a number from 0 to 604800.
    func invalidExpires(_ value: String) -> AWSErrorResponse {
        let code = self.isS3 ? "AuthorizationQueryParametersError" : "IncompleteSignature"
        guard let number = Int(value) else { return AWSErrorResponse(code, "X-Amz-Expires should be a number") }
        if number < 0 { return AWSErrorResponse(code, "X-Amz-Expires must be non-negative") }
        return AWSErrorResponse(code, "X-Amz-Expires must be less than a week (in seconds) that is 604800")
    }

    // MARK: Credential scope

    private func scopeError(_ s3Reason: String, presigned: Bool, details: [(String, String)] = []) -> AWSErrorResponse {
        presigned
            ? AWSErrorResponse("AuthorizationQueryParametersError", "Error parsing the X-Amz-Credential parameter; \(s3Reason)", details: details)
            : AWSErrorResponse("AuthorizationHeaderMalformed", "The authorization header is malformed; \(s3Reason)", details: details)
    }

    /// A credential scope in another region than the stack's.
    func wrongRegion(_ region: String, presigned: Bool) -> AWSErrorResponse {
        if self.isS3 {
            return self.scopeError(
                "the region '\(region.prefix(64))' is wrong; expecting '\(self.region)'", presigned: presigned,
                details: [("Region", self.region)])
        }
        return AWSErrorResponse(
            "SignatureDoesNotMatch", "Credential should be scoped to a valid region, not '\(region.prefix(64))'. ",
            status: .forbidden)
    }

    /// A credential scope for another service.
    func wrongService(_ service: String, presigned: Bool) -> AWSErrorResponse {
        if self.isS3 {
            return self.scopeError(
                "incorrect service \"\(service.prefix(64))\". This endpoint belongs to \"\(self.service)\".", presigned: presigned)
        }
        return AWSErrorResponse(
            "SignatureDoesNotMatch", "Credential should be scoped to correct service: '\(self.service)'. ", status: .forbidden)
    }

    /// A credential scope that does not end in `aws4_request`.
    func wrongTerminator(_ terminator: String, presigned: Bool) -> AWSErrorResponse {
        if self.isS3 {
            return self.scopeError(
                "incorrect terminal \"\(terminator.prefix(64))\". This endpoint uses \"aws4_request\".", presigned: presigned)
        }
        return AWSErrorResponse(
            "SignatureDoesNotMatch",
            "Credential should be scoped with a valid terminator: 'aws4_request', not '\(terminator.prefix(64))'. ",
            status: .forbidden)
    }

    /// A credential scope whose date is not the signing date's day.
    func wrongScopeDate(_ day: String, amzDate: String, presigned: Bool) -> AWSErrorResponse {
        if self.isS3 {
            return self.scopeError("Invalid credential date. Date is not the same as X-Amz-Date.", presigned: presigned)
        }
        return AWSErrorResponse(
            "SignatureDoesNotMatch",
            "Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '\(day.prefix(16))' != '\(amzDate.prefix(8))', from '\(amzDate)'.",
            status: .forbidden)
    }

    /// A signed header list without `host`.
    func hostNotSigned() -> AWSErrorResponse {
        if self.isS3 { return self.headersNotSigned(["host"]) }
        return AWSErrorResponse(
            "SignatureDoesNotMatch", "'Host' or ':authority' must be a 'SignedHeader' in the AWS Authorization.",
            status: .forbidden)
    }

    /// `x-amz-*` headers that the signature does not cover.
    func headersNotSigned(_ names: [String]) -> AWSErrorResponse {
        AWSErrorResponse(
            "AccessDenied", "There were headers present in the request which were not signed", status: .forbidden,
            details: [("HeadersNotSigned", names.joined(separator: ", "))])
    }

    // MARK: Payload

    /// S3 header authentication without `x-amz-content-sha256`.
    func missingContentSHA256() -> AWSErrorResponse {
        AWSErrorResponse("InvalidRequest", "Missing required header for this request: x-amz-content-sha256")
    }

    /// An `x-amz-content-sha256` that is neither a SHA-256 nor a known marker.
    func invalidContentSHA256(_ value: String) -> AWSErrorResponse {
        AWSErrorResponse(
            "InvalidArgument",
            "x-amz-content-sha256 must be UNSIGNED-PAYLOAD, STREAMING-UNSIGNED-PAYLOAD-TRAILER, STREAMING-AWS4-HMAC-SHA256-PAYLOAD, STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER or a valid sha256 value.",
            details: [("ArgumentName", "x-amz-content-sha256"), ("ArgumentValue", String(value.prefix(128)))])
    }

    // MARK: Credentials

    /// An access key id that names neither the administrator nor a session.
    func unknownAccessKey(_ accessKeyId: String) -> AWSErrorResponse {
        if self.isS3 {
            return AWSErrorResponse(
                "InvalidAccessKeyId", "The AWS Access Key Id you provided does not exist in our records.", status: .forbidden,
                details: [("AWSAccessKeyId", String(accessKeyId.prefix(128)))])
        }
        return self.invalidClientToken()
    }

    /// A session token that is not one of this stack's, or does not belong to the access key id.
    func invalidToken() -> AWSErrorResponse {
        if self.isS3 {
            return AWSErrorResponse("InvalidToken", "The provided token is malformed or otherwise invalid.")
        }
        return self.invalidClientToken()
    }

    private func invalidClientToken() -> AWSErrorResponse {
        AWSErrorResponse("InvalidClientTokenId", "The security token included in the request is invalid.", status: .forbidden)
    }

    /// A session past its expiry.
    func expiredToken() -> AWSErrorResponse {
        if self.isS3 { return AWSErrorResponse("ExpiredToken", "The provided token has expired.") }
        return AWSErrorResponse("ExpiredToken", "The security token included in the request is expired", status: .forbidden)
    }

    // MARK: Time

    /// A signing time further from the stack's clock than the allowed skew.
    func skewed(requestTime: Int64, requestTimeText: String, now: Int64, allowedSkew: Int) -> AWSErrorResponse {
        if self.isS3 {
            return AWSErrorResponse(
                "RequestTimeTooSkewed", "The difference between the request time and the current time is too large.",
                status: .forbidden,
                details: [
                    ("RequestTime", String(requestTimeText.prefix(64))), ("ServerTime", AWSDate.extended(now)),
                    ("MaxAllowedSkewMilliseconds", String(allowedSkew * 1000)),
                ])
        }
        let minutes = allowedSkew % 60 == 0 ? "\(allowedSkew / 60) min." : "\(allowedSkew) sec."
        let signed = AWSDate.basic(requestTime)
        if requestTime < now {
            return AWSErrorResponse(
                "SignatureDoesNotMatch",
                "Signature expired: \(signed) is now earlier than \(AWSDate.basic(now - Int64(allowedSkew))) (\(AWSDate.basic(now)) - \(minutes))",
                status: .forbidden)
        }
        return AWSErrorResponse(
            "SignatureDoesNotMatch",
            "Signature not yet current: \(signed) is still later than \(AWSDate.basic(now + Int64(allowedSkew))) (\(AWSDate.basic(now)) + \(minutes))",
            status: .forbidden)
    }

    /// A presigned URL used after `X-Amz-Date` + `X-Amz-Expires`.
    func presignExpired(expires: Int, expiry: Int64, now: Int64) -> AWSErrorResponse {
        AWSErrorResponse(
            "AccessDenied", "Request has expired", status: .forbidden,
            details: [("X-Amz-Expires", String(expires)), ("Expires", AWSDate.extended(expiry)), ("ServerTime", AWSDate.extended(now))])
    }

    /// A presigned URL used before its `X-Amz-Date`, beyond the allowed skew.
    func presignNotYetValid(date: Int64, now: Int64) -> AWSErrorResponse {
        AWSErrorResponse(
            "AccessDenied", "Request is not valid yet", status: .forbidden,
            details: [("X-Amz-Date", AWSDate.basic(date)), ("ServerTime", AWSDate.extended(now))])
    }

    // MARK: Signature

    /// A signature that does not match. S3 adds what it signed, so clients can compare; the canonical
    /// request is given with the session token removed.
    func signatureMismatch(
        accessKeyId: String, stringToSign: String, provided: String, canonicalRequest: String
    ) -> AWSErrorResponse {
        guard self.isS3 else { return AWSErrorResponse("SignatureDoesNotMatch", Self.queryMismatch, status: .forbidden) }
        return AWSErrorResponse(
            "SignatureDoesNotMatch", Self.s3Mismatch, status: .forbidden,
            details: [
                ("AWSAccessKeyId", String(accessKeyId.prefix(128))), ("StringToSign", stringToSign),
                ("SignatureProvided", String(provided.prefix(128))), ("CanonicalRequest", canonicalRequest),
            ])
    }
}
