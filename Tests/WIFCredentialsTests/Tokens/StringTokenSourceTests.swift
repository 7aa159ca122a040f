import Foundation
import Testing
@testable import WIFCredentials

@Suite struct StringTokenSourceTests {
    @Test func returnsTrimmedTokenWithExpiration() async throws {
        let jwt = makeUnsignedTestJWT(payload: #"{"exp":1700000000}"#)
        let source: some WebIdentityTokenSource = .string("  \n\(jwt)\r\n")
        for force in [false, true] {
            let token = try await source.token(forceRefresh: force, logger: .noop)
            #expect(token.value == jwt)
            #expect(token.expiration == Date(timeIntervalSince1970: 1_700_000_000))
        }
    }

    @Test func opaqueTokenHasNoExpiration() async throws {
        let token = try await StringTokenSource("Atza|IwEBIOpaqueAmazonToken").token(forceRefresh: false, logger: .noop)
        #expect(token.value == "Atza|IwEBIOpaqueAmazonToken")
        #expect(token.expiration == nil)
    }

    @Test(arguments: [
        ("", "web-identity token string is empty"),
        (" \n\t ", "web-identity token string is empty"),
        ("abc", "web-identity token string is 3 bytes after trimming whitespace; STS requires at least 4"),
        (String(repeating: "x", count: 20_001), "web-identity token string is 20001 bytes after trimming whitespace; STS accepts at most 20000"),
        ("first-token\nsecond-token", "web-identity token string contains whitespace or control characters inside the token"),
        ("Bearer secret-token", "web-identity token string contains whitespace or control characters inside the token"),
        ("ctrl\u{1}inside", "web-identity token string contains whitespace or control characters inside the token"),
    ])
    func rejectsBadTokens(text: String, reason: String) async throws {
        let error = await #expect(throws: WIFCredentialsError.tokenUnavailable("")) {
            try await StringTokenSource(text).token(forceRefresh: false, logger: .noop)
        }
        #expect(error?.reason == reason)
    }

    @Test func acceptsBounds() async throws {
        for length in [WebIdentityToken.minimumLength, WebIdentityToken.maximumLength] {
            let text = String(repeating: "t", count: length)
            #expect(try await StringTokenSource(" \(text) ").token(forceRefresh: false, logger: .noop).value == text)
        }
    }

    @Test func descriptionHidesToken() async throws {
        let source = StringTokenSource("super-secret-token-value")
        let token = try await source.token(forceRefresh: false, logger: .noop)
        for text in [source.description, "\(source)", token.description, token.debugDescription, String(reflecting: token)] {
            #expect(!text.contains("super-secret"))
        }
        #expect(source.description == "StringTokenSource")
    }
}
