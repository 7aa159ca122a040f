import Foundation
import Testing
import WIFTestSupport

/// `login --issuer` with a person at a real browser: headless Chromium, driven by `scripts/browser-sign-in`,
/// is the `BROWSER` of `login --browser` and signs in at the local issuer's form, and it approves the
/// device flow with the user code typed into the verification page. Each page's screenshot is kept
/// (``BrowserPeer/artifacts(_:)``).
@Suite("Sign-in pages in headless Chromium", .enabled(if: BrowserPeer.isAvailable, BrowserPeer.skipReason), .serialized, .oneToolRunAtATime)
struct BrowserSignInTests {
    /// Chromium starting on a busy machine is slow; the sign-in itself takes a second.
    static let browserTimeout = Duration.seconds(120)

    /// Checks that the screenshots in `artifacts` are exactly `names`, each a PNG image.
    static func expectScreenshots(_ artifacts: URL, _ names: [String]) throws {
        #expect(BrowserPeer.screenshots(artifacts) == names, "\(BrowserPeer.log(artifacts))")
        for name in names {
            let data = try Data(contentsOf: artifacts.appendingPathComponent(name))
            let size = BrowserPeer.pngSize(data)
            #expect(size != nil, "\(name) is not a PNG image (\(data.count) bytes)")
            #expect((size?.width ?? 0) >= 400 && (size?.height ?? 0) >= 300, "\(name) is \(String(describing: size))")
        }
    }

    /// The signed-in user as `whoami` names them on the served stack.
    static func expectSignedIn(_ fixture: StoreFixture, _ served: OIDCLoginCommandTests.Served, as user: String) throws {
        let whoami = try fixture.run(["whoami", "--json"] + served.target)
        #expect(whoami.status == 0, "\(whoami.stderr)")
        let summary = try StoreFixture.object(whoami)
        #expect(summary["subject"] as? String == user)
        #expect(summary["prefix"] as? String == "oidc/\(user)/")
    }

    @Test func loginBrowserWithChromiumAsTheBrowser() async throws {
        let driver = try BrowserPeer.driver()
        let artifacts = try BrowserPeer.artifacts("login-browser")
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        let served = try await OIDCLoginCommandTests.serve(fixture)

        let browser = BrowserPeer.environment(user: "grace", artifacts: artifacts).merging(["BROWSER": driver.path]) { $1 }
        let login = try OIDCLoginCommandTests.launch(fixture, served.login + ["--browser"], environment: browser)
        let outcome = try await BrowserPeer.result(artifacts, timeout: Self.browserTimeout)
        // On failure the command, still waiting for the browser, is stopped as `login` goes.
        try #require(outcome == "result: signed in", "\(BrowserPeer.log(artifacts))")
        let result = try await OIDCLoginCommandTests.finish(login)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Signed in as grace (oidc)."), "\(result.stdout)")
        try Self.expectSignedIn(fixture, served, as: "grace")
        // The issuer's form, then the page of the command's loopback listener.
        try Self.expectScreenshots(artifacts, ["01-sign-in.png", "02-callback.png"])
        #expect(BrowserPeer.log(artifacts).contains("screenshot 02-callback.png: 'Signed in'"), "\(BrowserPeer.log(artifacts))")
    }

    /// Starts `login --device` and returns it with the verification address and user code it prints.
    static func startDeviceLogin(_ fixture: StoreFixture, _ served: OIDCLoginCommandTests.Served) async throws -> (ServeProcess, url: String, code: String) {
        let login = try OIDCLoginCommandTests.launch(fixture, served.login + ["--device"])
        let prompt = try await login.firstLine()
        let words = prompt.split(separator: " ").map(String.init)
        #expect(prompt.hasPrefix("To sign in, open \(served.endpoint)/oauth2/device and enter the code "), "\(prompt)")
        let url = try #require(words.count == 10 ? words[4] : nil, "no address in '\(prompt)'")
        let code = try #require(words.last)
        return (login, url, code)
    }

    @Test func loginDeviceWithTheCodeTypedInChromium() async throws {
        let driver = try BrowserPeer.driver()
        let artifacts = try BrowserPeer.artifacts("login-device")
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        let served = try await OIDCLoginCommandTests.serve(fixture)

        let (login, url, code) = try await Self.startDeviceLogin(fixture, served)
        _ = try await ThirdPartyProcess.run(
            [driver.path, "--device", url, code], environment: BrowserPeer.environment(user: "heidi", artifacts: artifacts))
        let result = try await OIDCLoginCommandTests.finish(login)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Signed in as heidi (oidc)."), "\(result.stdout)")
        try Self.expectSignedIn(fixture, served, as: "heidi")
        // The verification form, then the issuer's answer.
        try Self.expectScreenshots(artifacts, ["01-device.png", "02-answer.png"])
    }

    @Test func aWrongUserCodeIsRefusedOnThePageAndTheDriverSaysSo() async throws {
        let driver = try BrowserPeer.driver()
        let artifacts = try BrowserPeer.artifacts("device-wrong-code")
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        let served = try await OIDCLoginCommandTests.serve(fixture)

        let (login, url, code) = try await Self.startDeviceLogin(fixture, served)
        let wrong = code == "BCDF-GHJK" ? "BCDF-GHJL" : "BCDF-GHJK"
        let refused = await #expect(throws: ThirdPartyProcess.Failure.self) {
            try await ThirdPartyProcess.run(
                [driver.path, "--device", url, wrong], environment: BrowserPeer.environment(user: "ivan", artifacts: artifacts))
        }
        #expect(refused?.description.contains("exited with 1") == true, "\(String(describing: refused))")
        #expect(refused?.description.contains("The code \(wrong) is unknown") == true, "\(String(describing: refused))")
        try Self.expectScreenshots(artifacts, ["01-device.png", "02-answer.png"])
        // The right code still works: the wrong one approved nothing.
        let approve = try #require(URL(string: "\(url)?user_code=\(code)&login_hint=ivan"))
        #expect(try await OIDCLoginCommandTests.fetch(approve).status == 200)
        let result = try await OIDCLoginCommandTests.finish(login)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Signed in as ivan (oidc)."), "\(result.stdout)")
    }
}
