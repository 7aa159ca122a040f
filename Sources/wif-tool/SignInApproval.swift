import Foundation
import WIFFileStore

/// How `login --issuer` shows the user where to approve an OpenID Connect sign-in: the address (and
/// code) on standard output, never a token; for the browser flow, the address opened in a browser.
enum SignInApproval {
    /// The variable naming the browser command; `none` opens nothing (the address is printed anyway).
    static let browserVariable = "BROWSER"

    /// Prints where to approve the sign-in and, for the browser flow, opens the address.
    /// - Parameter environment: The process environment (`BROWSER`).
    /// - Returns: What ``OIDCSignIn/authorize(_:flow:httpClient:logger:approve:)`` calls.
    static func terminal(environment: [String: String]) -> @Sendable (OIDCSignIn.Approval) async throws -> Void {
        let browser = environment[Self.browserVariable]
        return { approval in
            switch approval {
            case .device(let authorization):
                printOut("To sign in, open \(authorization.verificationURI.absoluteString) and enter the code \(authorization.userCode)\n")
                if let complete = authorization.verificationURIComplete {
                    printOut("Or open \(complete.absoluteString)\n")
                }
                printOut("Waiting for the sign-in to be approved…\n")
            case .browser(let url):
                printOut("To sign in, open \(url.absoluteString)\n")
                Self.open(url, browser: browser)
                printOut("Waiting for the browser to come back…\n")
            }
        }
    }

    /// Opens `url` with `$BROWSER`, `xdg-open` or `open`, whichever is found first; does nothing when
    /// none is, or when `$BROWSER` is `none` (the address has been printed).
    static func open(_ url: URL, browser: String?) {
        if browser == "none" { return }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let candidates = [browser].compactMap { $0 }.filter { !$0.isEmpty } + ["xdg-open", "open"]
        for name in candidates {
            let executable =
                name.contains("/")
                ? name
                : path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
            guard let executable, FileManager.default.isExecutableFile(atPath: executable) else { continue }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = [url.absoluteString]
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            if (try? process.run()) != nil { return }
        }
    }
}
