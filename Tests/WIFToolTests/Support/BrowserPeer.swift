import Foundation
import Testing
import WIFTestSupport

/// A person at a real browser: headless Chromium driven through ChromeDriver by `scripts/browser-sign-in`
/// (selenium), which fills in the local issuer's sign-in and device pages and keeps a screenshot of each.
///
/// Tests using it are enabled when `chromium`, `chromedriver` and Python's selenium are all installed, or
/// when `WIF_REQUIRE_PEERS=1`, in which case a missing one fails the test instead of skipping it.
enum BrowserPeer {
    /// The package's root folder, found from this file's path.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The driver script: a `BROWSER` program, and `--device URL CODE` for the verification page.
    static let script = packageRoot.appendingPathComponent("scripts").appendingPathComponent("browser-sign-in")

    /// What the driver needs and is not installed.
    static let missing: [String] = {
        var missing = ["chromium", "chromedriver"].filter { MotoPeer.onPath($0) == nil }
        if !ThirdPartyProcess.succeeds(["python3", "-c", "import selenium"]) { missing.append("selenium (Python)") }
        return missing
    }()

    static let peersRequired = ProcessInfo.processInfo.environment["WIF_REQUIRE_PEERS"] == "1"
    static let isAvailable = missing.isEmpty || peersRequired
    static let skipReason: Comment =
        "headless Chromium is not installed (apt-get install chromium chromium-driver; pip install selenium; scripts/test installs both); WIF_REQUIRE_PEERS=1 fails instead"

    /// The driver script, or an error naming what is missing (reached only when `WIF_REQUIRE_PEERS=1`
    /// enabled the test).
    static func driver() throws -> URL {
        guard missing.isEmpty else {
            throw ToolError(
                "WIF_REQUIRE_PEERS=1 but these are not installed: \(missing.joined(separator: ", ")); apt-get install chromium chromium-driver, pip install selenium")
        }
        return script
    }

    /// The folder that keeps a test's screenshots after the run: `$WIF_TEST_ARTIFACTS/browser/NAME`, or
    /// `.build/test-artifacts/browser/NAME` in the package. It is emptied first, so it holds the last run only.
    static func artifacts(_ name: String) throws -> URL {
        let base =
            ProcessInfo.processInfo.environment["WIF_TEST_ARTIFACTS"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? packageRoot.appendingPathComponent(".build").appendingPathComponent("test-artifacts")
        let folder = base.appendingPathComponent("browser").appendingPathComponent(name)
        try? FileManager.default.removeItem(at: folder)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// The environment that tells the driver who signs in and where its screenshots go.
    static func environment(user: String, artifacts: URL) -> [String: String] {
        ["WIF_BROWSER_USER": user, "WIF_BROWSER_ARTIFACTS": artifacts.path]
    }

    /// The driver's log in `artifacts`, for failure messages.
    static func log(_ artifacts: URL) -> String {
        (try? String(contentsOf: artifacts.appendingPathComponent("browser-sign-in.log"), encoding: .utf8)) ?? "(the driver wrote no log)"
    }

    /// Waits up to `timeout` for the driver's last log line, `result: …`, and returns it (nil if none came).
    /// A driver started as `BROWSER` by wif-tool cannot be waited for directly.
    static func result(_ artifacts: URL, timeout: Duration) async throws -> String? {
        let deadline = ContinuousClock.now + timeout
        repeat {
            if let line = Self.log(artifacts).split(separator: "\n").last(where: { $0.hasPrefix("result: ") }) {
                return String(line)
            }
            try await Task.sleep(for: .milliseconds(200))
        } while ContinuousClock.now < deadline
        return nil
    }

    /// The files in `artifacts` that are screenshots, sorted.
    static func screenshots(_ artifacts: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: artifacts.path)) ?? []).filter { $0.hasSuffix(".png") }.sorted()
    }

    /// The width and height of a PNG image, or nil when `data` is not one: the signature, then an IHDR
    /// chunk of non-zero width and height, and image data after it.
    static func pngSize(_ data: Data) -> (width: Int, height: Int)? {
        let bytes = [UInt8](data.prefix(24))
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard bytes.count == 24, Array(bytes[0..<8]) == signature, Array(bytes[12..<16]) == Array("IHDR".utf8) else { return nil }
        let width = bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }
        let height = bytes[20..<24].reduce(0) { $0 << 8 | Int($1) }
        guard width > 0, height > 0, data.count > 100 else { return nil }
        return (width, height)
    }
}
