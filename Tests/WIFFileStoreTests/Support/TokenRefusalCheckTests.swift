import AsyncHTTPClient
import Foundation
import Logging
import Testing
import WIFCredentials
import WIFFileStore
import WIFLocal
import WIFTestSupport

/// A refusal whose code could mean the token or the role is told apart by checking the token against
/// its own issuer, never by the engine's message text.
///
/// The check asks the in-process issuer with the product's 5 s time-out; under a full run's load that
/// issuer needs a free thread, so these tests take turns with the tool's tests (whose waits hold one).
@Suite(.takesTurnsWithToolRuns)
struct TokenRefusalCheckTests {
    /// Runs `body` with a local issuer reachable at its own `iss` (`http://127.0.0.1:PORT`), as the
    /// issuer an engine trusts is.
    static func withReachableIssuer(_ body: (LocalEndpoint, HTTPClient) async throws -> Void) async throws {
        let root = TemporaryFolder.url("wif-refusal")
        defer { try? FileManager.default.removeItem(at: root) }
        var configuration = LocalConfiguration.default(dataDirectory: root.path)
        configuration.port = try Loopback.freePort()
        configuration.issuer = "http://127.0.0.1:\(configuration.port)"
        configuration.providers = configuration.providers.map { profile in
            var profile = profile
            if profile.name == "oidc" { profile.issuer = configuration.issuer }
            return profile
        }
        try await StoreRuntime.withHTTPClient { httpClient in
            try await LocalStack.run(configuration, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })) { endpoint in
                try await body(endpoint, httpClient)
            }
        }
    }

    static func refusal(_ code: String) -> WIFCredentialsError {
        .service(AWSServiceError(code: code, httpStatus: code == "AccessDenied" ? 403 : 400))
    }

    /// The token with the last characters of its signature changed.
    static func forged(_ token: String) -> String {
        String(token.dropLast(4)) + (token.hasSuffix("AAAA") ? "BBBB" : "AAAA")
    }

    @Test func engineCodesAloneSayWhetherTheTokenWasRefused() {
        for code in ["InvalidIdentityToken", "ExpiredTokenException", "ExpiredToken", "InvalidParameterValue"] {
            #expect(SignIn.refusesIdentity(Self.refusal(code)), "\(code)")
        }
        for code in ["AccessDenied", "MissingParameter", "Throttling", "InternalFailure"] {
            #expect(!SignIn.refusesIdentity(Self.refusal(code)), "\(code)")
        }
        // The message text plays no part: a trust-policy message on a token code, and the reverse.
        let worded = AWSServiceError(code: "AccessDenied", message: "failed to validate web identity token", httpStatus: 403)
        #expect(!SignIn.refusesIdentity(.service(worded)))
        let silent = AWSServiceError(code: "InvalidParameterValue", message: "trust policy denies", httpStatus: 400)
        #expect(SignIn.refusesIdentity(.service(silent)))
    }

    @Test(.timeLimit(.minutes(10)))
    func aTokenThatVerifiesWasRefusedByTheRole() async throws {
        try await Self.withReachableIssuer { endpoint, httpClient in
            let token = try endpoint.developmentToken(provider: "oidc", user: "alice").token
            let refined = await TokenRefusalCheck.refine(Self.refusal("AccessDenied"), token: token, httpClient: httpClient)
            #expect(refined.code == .service)
            #expect(refined.serviceError?.code == "AccessDenied")
            #expect(!SignIn.refusesIdentity(refined))
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func aTokenWhoseSignatureFailsWasRefused() async throws {
        try await Self.withReachableIssuer { endpoint, httpClient in
            let token = Self.forged(try endpoint.developmentToken(provider: "oidc", user: "alice").token)
            let refined = await TokenRefusalCheck.refine(Self.refusal("AccessDenied"), token: token, httpClient: httpClient)
            #expect(refined.code == .invalidIDToken)
            #expect(refined.reason.contains("AccessDenied"), "\(refined.reason)")
            #expect(refined.reason.contains("does not verify against its issuer's keys"), "\(refined.reason)")
            #expect(!refined.reason.contains(token), "the token never appears in an error")
            #expect(SignIn.refusesIdentity(refined))

            // Codes that are not ambiguous are left as they are, whatever the token.
            let throttled = await TokenRefusalCheck.refine(Self.refusal("Throttling"), token: token, httpClient: httpClient)
            #expect(throttled.serviceError?.code == "Throttling")
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func anExpiredTokenWasRefused() async throws {
        try await Self.withReachableIssuer { endpoint, httpClient in
            let token = try endpoint.developmentToken(provider: "oidc", user: "alice", ttl: 60).token
            let refined = await TokenRefusalCheck.refine(
                Self.refusal("AccessDenied"), token: token, httpClient: httpClient, now: Date().addingTimeInterval(3600))
            #expect(refined.code == .tokenExpired)
            #expect(refined.reason.contains("expired"), "\(refined.reason)")
            #expect(SignIn.refusesIdentity(refined))
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func aTokenThatCannotBeCheckedLeavesTheAnswerAsItWas() async throws {
        let port = try Loopback.freePort()
        let header = Data(#"{"alg":"RS256","kid":"k"}"#.utf8).base64URLEncodedForTest()
        let claims = Data(#"{"iss":"http://127.0.0.1:\#(port)","aud":"app","sub":"alice","exp":4102444800}"#.utf8).base64URLEncodedForTest()
        let unreachable = "\(header).\(claims).c2lnbmF0dXJl"
        try await StoreRuntime.withHTTPClient { httpClient in
            for token in [unreachable, "an-opaque-access-token"] {
                let refined = await TokenRefusalCheck.refine(Self.refusal("AccessDenied"), token: token, httpClient: httpClient)
                #expect(refined.serviceError?.code == "AccessDenied")
                #expect(!SignIn.refusesIdentity(refined))
            }
        }
    }
}

extension Data {
    fileprivate func base64URLEncodedForTest() -> String {
        self.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
