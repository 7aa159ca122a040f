import Testing

@testable import WIFLocal

/// Which redirect URIs a client accepts (RFC 6749 §3.1.2, RFC 8252 §7.3).
@Suite("OAuth redirect URIs")
struct RedirectURITests {
    static let native = OAuthClient(clientId: "cli", redirectURIs: ["http://127.0.0.1/callback", "http://[::1]/callback"])
    static let web = OAuthClient(clientId: "web", clientSecret: "0123456789", redirectURIs: ["https://app.example.test/cb?tenant=1"])

    @Test(
        "Registered URIs: loopback on any port with the same path; others exactly",
        arguments: [
            ("http://127.0.0.1/callback", true),
            ("http://127.0.0.1:53682/callback", true),
            ("http://127.0.0.1:1/callback", true),
            ("http://[::1]:8080/callback", true),
            ("http://127.0.0.1:53682/other", false),
            ("http://127.0.0.1:53682/callback/", false),
            ("http://localhost:53682/callback", false),
            ("https://127.0.0.1:53682/callback", false),
            ("http://127.0.0.1.attacker.test/callback", false),
            ("http://127.0.0.1:53682/callback?x=1", false),
        ]
    )
    func loopback(uri: String, accepted: Bool) throws {
        let parsed = try RedirectURI.parse(uri).get()
        #expect(parsed.isRegistered(for: Self.native) == accepted)
    }

    @Test(
        "A web redirect URI must match character for character",
        arguments: [
            ("https://app.example.test/cb?tenant=1", true),
            ("https://app.example.test/cb?tenant=2", false),
            ("https://app.example.test/cb", false),
            ("https://app.example.test:443/cb?tenant=1", false),
            ("https://APP.example.test/cb?tenant=1", false),
        ]
    )
    func exact(uri: String, accepted: Bool) throws {
        #expect(try RedirectURI.parse(uri).get().isRegistered(for: Self.web) == accepted)
    }

    @Test("A client that accepts any loopback redirect takes every http loopback URI and nothing else")
    func anyLoopback() throws {
        let client = OAuthClient.development()
        for uri in ["http://127.0.0.1:4000/cb", "http://localhost/", "http://[::1]:9/a/b?c=d"] {
            #expect(try RedirectURI.parse(uri).get().isRegistered(for: client), "\(uri)")
        }
        for uri in ["https://127.0.0.1/cb", "http://example.test/cb", "http://127.0.0.2/cb", "com.example.app:/cb"] {
            #expect(try !RedirectURI.parse(uri).get().isRegistered(for: client), "\(uri)")
        }
    }

    @Test(
        "Unusable redirect URIs are refused with the reason",
        arguments: [
            ("", "must be 1 to 2048 characters long"),
            ("/callback", "must be an absolute URI"),
            ("1http://x/", "must be an absolute URI"),
            ("http:/callback", "must be an absolute URI"),
            ("http://", "must name a host"),
            ("https://app.test/cb#x", "must not have a fragment"),
            ("https://user@app.test/cb", "must not carry user information"),
            ("http://127.0.0.1:99999/cb", "has a port that is not a number"),
            ("https://app.test/a b", "must not contain spaces"),
        ]
    )
    func refused(uri: String, reason: String) {
        guard case .failure(let problem) = RedirectURI.parse(uri) else {
            Issue.record("\(uri) was accepted")
            return
        }
        #expect(problem.reason.contains(reason), "\(problem.reason)")
    }

    @Test(
        "The origin a sign-in form's policy lets its redirect go to; none for a host a policy cannot carry",
        arguments: [
            ("http://127.0.0.1:53682/callback", "http://127.0.0.1:53682"),
            ("http://[::1]:8080/callback", "http://[::1]:8080"),
            ("HTTPS://App.Example.test/cb?tenant=1", "https://app.example.test"),
            ("com.example.app:/callback", "com.example.app:"),
            ("https://a;b.test/cb", nil),
            ("https://a'b.test/cb", nil),
            ("https://a,b.test/cb", nil),
        ] as [(String, String?)]
    )
    func policySource(uri: String, source: String?) throws {
        #expect(try RedirectURI.parse(uri).get().policySource == source)
    }

    @Test("Response parameters are added to the URI's query, percent-encoded")
    func adding() throws {
        let plain = try RedirectURI.parse("http://127.0.0.1:5/cb").get()
        #expect(plain.adding([("code", "a b"), ("state", "x&y=z")]) == "http://127.0.0.1:5/cb?code=a%20b&state=x%26y%3Dz")
        let withQuery = try RedirectURI.parse("https://app.example.test/cb?tenant=1").get()
        #expect(withQuery.adding([("code", "c")]) == "https://app.example.test/cb?tenant=1&code=c")
    }
}
