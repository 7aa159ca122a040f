import AsyncHTTPClient
import Foundation
import WIFTestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import NIOCore
import Testing

@testable import WIFCredentials

/// The browser sign-in end to end on loopback: the "browser" asks the test issuer for the redirect and
/// follows it to the client's listener with a real HTTP request.
@Suite struct OAuth2LoopbackRedirectTests {
    let issuer: OAuthTestIssuer

    init() {
        self.issuer = OAuthTestIssuer(now: { Date() })
    }

    struct Page: Sendable {
        var status: Int
        var body: String
    }

    static func get(_ url: String) async throws -> Page {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 1 << 16)
        return Page(status: Int(response.status.code), body: String(buffer: body))
    }

    /// Whether something accepts TCP connections on a loopback port (a plain connect answers at once).
    static func isListening(port: Int) -> Bool {
        Loopback.acceptsConnections(port: port)
    }

    @Test func theListenerTakesOneRedirectShowsAPageAndCloses() async throws {
        let client = try self.issuer.client(timeSource: .system)
        let pages = PageLog()
        let tokens = try await client.authorizeWithBrowser(timeout: .seconds(60)) { url in
            let redirect = try self.issuer.authorize(url, subject: "alice")
            #expect(redirect.host == "127.0.0.1")
            #expect(redirect.port != nil && redirect.port != 0)
            // A browser's side request does not count as the redirect.
            let favicon = try await Self.get("http://127.0.0.1:\(redirect.port ?? 0)/favicon.ico")
            #expect(favicon.status == 404)
            pages.append(try await Self.get(redirect.absoluteString))
            pages.append(redirect.absoluteString)
        }
        #expect(tokens.subject == "alice")
        let page = try #require(pages.pages.first)
        #expect(page.status == 200)
        #expect(page.body.contains("Signed in"))
        // The page says nothing secret, and the listener is gone afterwards.
        #expect(!page.body.contains("code="))
        let redirect = try #require(pages.urls.first.flatMap(URL.init(string:)))
        #expect(!Self.isListening(port: redirect.port ?? 0))
    }

    @Test func aForgedStateFailsTheSignInAndTellsTheBrowser() async throws {
        let client = try self.issuer.client(timeSource: .system)
        let pages = PageLog()
        await #expect {
            _ = try await client.authorizeWithBrowser(timeout: .seconds(60)) { url in
                let redirect = try self.issuer.authorize(url)
                var components = try #require(URLComponents(url: redirect, resolvingAgainstBaseURL: false))
                components.queryItems = components.queryItems?.map { $0.name == "state" ? URLQueryItem(name: "state", value: "forged") : $0 }
                pages.append(try await Self.get(try #require(components.url).absoluteString))
            }
        } throws: { error in
            let error = error as? WIFCredentialsError
            return error?.code == .authorizationFailed && error?.reason.contains("state does not match") == true
        }
        #expect(pages.pages.first?.status == 400)
        #expect(pages.pages.first?.body.contains("Sign-in failed") == true)
        #expect(self.issuer.forms(to: "/token").isEmpty)
    }

    @Test func noRedirectInTimeIsAClearError() async throws {
        let clock = ManualTimeSource()
        let client = try self.issuer.client(timeSource: clock.timeSource)
        let task = Task {
            try await client.authorizeWithBrowser(timeout: .seconds(120)) { _ in }
        }
        try await clock.waitForSleepers(count: 1)
        clock.advance(by: .seconds(120))
        await #expect {
            _ = try await task.value
        } throws: { error in
            let error = error as? WIFCredentialsError
            return error?.code == .authorizationFailed && error?.reason.contains("no sign-in redirect arrived within") == true
        }
    }

    @Test func aFailingBrowserStopsTheListener() async throws {
        struct NoBrowser: Error {}
        let client = try self.issuer.client(timeSource: .system)
        let uri = URIHolder()
        await #expect(throws: NoBrowser.self) {
            _ = try await client.authorizeWithBrowser { url in
                let query = try #require(OAuth2FormDecoding.parameters(of: url))
                uri.value.withLock { $0 = query["redirect_uri"] }
                throw NoBrowser()
            }
        }
        let redirect = try #require(uri.value.withLock { $0 }.flatMap(URL.init(string:)))
        #expect(redirect.port != nil)
        #expect(!Self.isListening(port: redirect.port ?? 0))
    }
}

import Synchronization

final class PageLog: Sendable {
    private let storage = Mutex<(pages: [OAuth2LoopbackRedirectTests.Page], urls: [String])>(([], []))
    var pages: [OAuth2LoopbackRedirectTests.Page] { self.storage.withLock { $0.pages } }
    var urls: [String] { self.storage.withLock { $0.urls } }
    func append(_ page: OAuth2LoopbackRedirectTests.Page) { self.storage.withLock { $0.pages.append(page) } }
    func append(_ url: String) { self.storage.withLock { $0.urls.append(url) } }
}

final class URIHolder: Sendable {
    let value = Mutex<String?>(nil)
}
