import Foundation
import WIFFileStore
import WIFFoundation

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
        let candidates = [browser].compactMap { $0 }.filter { !$0.isEmpty } + ["xdg-open", "open"]
        guard let null = FileHandle(forUpdatingAtPath: "/dev/null") else { return }
        defer { try? null.close() }
        let nothing = null.fileDescriptor
        for name in candidates {
            guard let executable = ChildProcess.executable(name) else { continue }
            // Started with no descriptor of ours but /dev/null, and reaped when it exits.
            guard case .success(let pid) = ChildProcess.spawn(
                executable, arguments: [name, url.absoluteString], standardInput: nothing, standardOutput: nothing, standardError: nothing)
            else { continue }
            Thread.detachNewThread { _ = ChildProcess.wait(pid) }
            return
        }
    }
}
