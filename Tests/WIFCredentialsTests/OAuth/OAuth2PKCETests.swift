import Foundation
import Testing

@testable import WIFCredentials

@Suite struct OAuth2PKCETests {
    /// RFC 7636 Appendix B.
    @Test func theRFCExampleVerifierGivesTheRFCChallenge() throws {
        let pkce = try OAuth2PKCE(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        #expect(pkce.challenge == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        #expect(pkce.method == "S256")
    }

    @Test func generatedVerifiersAreLongRandomAndUnreserved() throws {
        let pairs = (0..<50).map { _ in OAuth2PKCE.generate() }
        #expect(Set(pairs.map(\.verifier)).count == 50)
        for pair in pairs {
            #expect(pair.verifier.count == 43)
            // The challenge of a generated verifier is what the RFC's rule computes.
            #expect(try OAuth2PKCE(verifier: pair.verifier).challenge == pair.challenge)
        }
    }

    @Test(arguments: [
        ("short", "is 5"),
        (String(repeating: "a", count: 129), "is 129"),
        (String(repeating: "a", count: 42) + "!", "only letters, digits and - . _ ~"),
        (String(repeating: "a", count: 42) + " ", "only letters, digits and - . _ ~"),
    ])
    func badVerifiersAreRefusedSayingWhy(verifier: String, expected: String) {
        #expect {
            try OAuth2PKCE(verifier: verifier)
        } throws: { error in
            let error = error as? WIFCredentialsError
            return error?.code == .invalidParameter && error?.reason.contains(expected) == true
        }
    }

    @Test func theDescriptionLeavesOutTheVerifier() throws {
        let pkce = OAuth2PKCE.generate()
        #expect(!pkce.description.contains(pkce.verifier))
        #expect(pkce.description.contains(pkce.challenge))
    }

    @Test func stateAndNonceValuesAreUnique() {
        let values = (0..<100).map { _ in OAuth2Random.token() }
        #expect(Set(values).count == 100)
        #expect(values.allSatisfy { $0.count == 43 })
    }
}
