import Testing
import WIFFileStore

/// Error answers of S3-compatible engines that mean the same as AWS's.
@Suite struct ServiceQuirksTests {
    @Test(arguments: [
        ("InvalidIdentityToken", nil, true), ("ExpiredTokenException", "Token expired", true),
        ("InvalidParameterValue", "failed to validate web identity token: invalid token audience", true),
        ("AccessDenied", "failed to validate web identity token: key with ID k not found in JWKS", true),
        ("InvalidParameterValue", "DurationSeconds must be between 900 and 43200 seconds", false),
        ("AccessDenied", "trust policy validation failed: trust policy denies web identity assumption", false),
        ("AccessDenied", nil, false), ("MissingParameter", "RoleSessionName is required", false),
    ] as [(String, String?, Bool)])
    func tokenRefusalsAreRecognisedWhateverTheEngineCallsThem(code: String, message: String?, refused: Bool) {
        #expect(ServiceQuirks.refusesToken(code: code, message: message) == refused)
    }
}
