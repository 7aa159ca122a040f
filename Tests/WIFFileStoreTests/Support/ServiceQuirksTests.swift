import Testing
import WIFFileStore

/// Error answers of S3-compatible engines that mean the same as AWS's, told by their codes.
@Suite struct ServiceQuirksTests {
    @Test(arguments: [
        ("InvalidIdentityToken", true), ("ExpiredTokenException", true), ("ExpiredToken", true),
        // SeaweedFS's code for a wrong audience or a malformed token; every other parameter is checked
        // before sending, so the engine can only mean the token.
        ("InvalidParameterValue", true),
        // Both a refused token and a refused role on SeaweedFS and Ceph RGW: the token decides.
        ("AccessDenied", false), ("MissingParameter", false),
    ] as [(String, Bool)])
    func tokenRefusalsAreRecognisedWhateverTheEngineCallsThem(code: String, refused: Bool) {
        #expect(ServiceQuirks.refusesToken(code: code) == refused)
    }
}
