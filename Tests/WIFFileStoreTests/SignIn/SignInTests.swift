import Foundation
import Testing
import WIFCredentials
import WIFFileStore
import WIFTestSupport

/// What goes to STS with a sign-in, and what the user is told when it must be made again.
@Suite struct SignInTests {
    @Test(arguments: [
        ("alice", "wif-alice"), ("bob smith", "wif-bob-smith"), ("ünï", "wif--n-"),
        (String(repeating: "x", count: 80), "wif-" + String(repeating: "x", count: 60)),
    ])
    func sessionNamesAreWhatSTSAccepts(_ user: String, _ name: String) {
        #expect(SignIn.sessionName(for: user) == name)
    }

    @Test func opaqueTokenProvidersNameThemselves() {
        #expect(SignIn.providerId(for: "facebook") == "graph.facebook.com")
        #expect(SignIn.providerId(for: "Amazon") == "www.amazon.com")
        #expect(SignIn.providerId(for: "google") == nil)
    }

    @Test func anEmptyTokenFileIsRefused() throws {
        let file = TemporaryFolder.url("wif-empty", suffix: ".jwt")
        try Data(" \n".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let empty = #expect(throws: FileStoreError.self) { try SignIn.token(fromFile: file.path) }
        #expect(empty?.code == .invalidToken)
        #expect(empty?.message == "the token file \(file.path) is empty")
        let missing = #expect(throws: FileStoreError.self) { try SignIn.token(fromFile: file.path + ".missing") }
        #expect(missing?.code == .fileError)
    }

    /// `login --token-file <(command)`: the shell passes a pipe, which has no size and is read once.
    @Test func aTokenFileMayBeAPipe() throws {
        let folder = try TemporaryFolder("wif-token-pipe")
        let pipe = try NamedPipe(at: folder.file("token"), feeding: Array("  eyJhbGciOi.payload.signature\n".utf8))
        #expect(try SignIn.token(fromFile: pipe.path) == "eyJhbGciOi.payload.signature")
        let folderAsFile = #expect(throws: FileStoreError.self) { try SignIn.token(fromFile: folder.path) }
        #expect(folderAsFile?.message == "cannot read the token file \(folder.path): it is a folder")
    }

    @Test func refusedTokensAreToldApartFromOtherFailures() {
        #expect(SignIn.refusesIdentity(.tokenExpired("expired")))
        #expect(SignIn.refusesIdentity(.service(AWSServiceError(code: "InvalidIdentityToken", httpStatus: 400))))
        // SeaweedFS refuses a wrong audience with InvalidParameterValue about the web identity token.
        let seaweed = AWSServiceError(code: "InvalidParameterValue", message: "failed to validate web identity token: audience", httpStatus: 400)
        #expect(SignIn.refusesIdentity(.service(seaweed)))
        #expect(!SignIn.refusesIdentity(.service(AWSServiceError(code: "AccessDenied", message: "not trusted", httpStatus: 403))))
        #expect(!SignIn.refusesIdentity(.network("could not reach STS")))
    }
}
