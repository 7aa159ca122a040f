import Foundation
import Testing
@testable import WIFCredentials

/// Builds a compact JWS whose signature is junk: these tests only look at the payload.
func makeUnsignedTestJWT(payload: String, header: String = #"{"alg":"RS256","typ":"JWT"}"#, padded: Bool = false) -> String {
    func encode(_ text: String) -> String {
        var base64 = Data(text.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
        if !padded { base64 = base64.replacingOccurrences(of: "=", with: "") }
        return base64
    }
    return "\(encode(header)).\(encode(payload)).c2lnbmF0dXJl"
}

@Suite struct UnverifiedJWTClaimsTests {
    @Test func readsStandardClaims() throws {
        let token = makeUnsignedTestJWT(
            payload: #"{"iss":"https://issuer.example","sub":"user-42","aud":"client-a","exp":1700000000,"iat":1699996400,"nbf":1699996300}"#
        )
        let claims = try #require(UnverifiedJWTClaims(token: token))
        #expect(claims.issuer == "https://issuer.example")
        #expect(claims.subject == "user-42")
        #expect(claims.audience == ["client-a"])
        #expect(claims.expiration == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(claims.issuedAt == Date(timeIntervalSince1970: 1_699_996_400))
        #expect(claims.notBefore == Date(timeIntervalSince1970: 1_699_996_300))
    }

    @Test func audienceArray() throws {
        let claims = try #require(UnverifiedJWTClaims(token: makeUnsignedTestJWT(payload: #"{"aud":["a","b"],"exp":5}"#)))
        #expect(claims.audience == ["a", "b"])
        #expect(claims.expiration == Date(timeIntervalSince1970: 5))
    }

    @Test func fractionalExpiration() throws {
        let claims = try #require(UnverifiedJWTClaims(token: makeUnsignedTestJWT(payload: #"{"exp":1700000000.5}"#)))
        #expect(claims.expiration == Date(timeIntervalSince1970: 1_700_000_000.5))
    }

    /// Payload lengths 0, 1 and 2 modulo 3 give base64url with 0, 2 and 1 padding characters dropped.
    @Test(arguments: [#"{"exp":12}"#, #"{"exp":123}"#, #"{"exp":1234}"#, #"{"sub":"a?>","exp":7}"#, #"{"sub":"~~~","exp":7}"#])
    func paddingLessAndPaddedBase64URL(payload: String) throws {
        let expected = try #require(
            (try JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any])?["exp"] as? Double
        )
        for padded in [false, true] {
            let claims = try #require(UnverifiedJWTClaims(token: makeUnsignedTestJWT(payload: payload, padded: padded)))
            #expect(claims.expiration == Date(timeIntervalSince1970: expected))
        }
    }

    @Test func urlSafeAlphabetIsDecoded() throws {
        // "?>" and "~~~" encode to characters that differ between base64 and base64url.
        let token = makeUnsignedTestJWT(payload: #"{"sub":"a?>~~~","exp":9}"#)
        #expect(token.contains("-") || token.contains("_"))
        let claims = try #require(UnverifiedJWTClaims(token: token))
        #expect(claims.subject == "a?>~~~")
    }

    @Test func wrongTypedClaimsAreDroppedOthersKept() throws {
        let token = makeUnsignedTestJWT(payload: #"{"exp":"1700000000","iat":true,"sub":42,"iss":"i","aud":[1,2]}"#)
        let claims = try #require(UnverifiedJWTClaims(token: token))
        #expect(claims.expiration == nil)
        #expect(claims.issuedAt == nil)
        #expect(claims.subject == nil)
        #expect(claims.audience.isEmpty)
        #expect(claims.issuer == "i")
    }

    @Test func absurdExpirationIsIgnored() throws {
        let claims = try #require(UnverifiedJWTClaims(token: makeUnsignedTestJWT(payload: #"{"exp":1e300}"#)))
        #expect(claims.expiration == nil)
    }

    @Test(arguments: [
        "",
        "opaque-facebook-access-token",
        "Atza|IwEBIExampleAmazonToken",
        "a.b",
        "a.b.c.d",
        ".e30.",
        "eyJhbGciOiJub25lIn0..sig",
        "eyJhbGciOiJub25lIn0.!!!.sig",
        "eyJhbGciOiJub25lIn0.e.sig",
        "eyJhbGciOiJub25lIn0.bm90IGpzb24.sig",
        "eyJhbGciOiJub25lIn0.WzEsMl0.sig",
        "eyJhbGciOiJub25lIn0.ImEi.sig",
        "eyJhbGciOiJub25lIn0.eyJleHAiOjE.sig",
        "eyJhbGciOiJub25lIn0.e30=.=.sig",
    ])
    func junkHasNoClaims(token: String) {
        #expect(UnverifiedJWTClaims(token: token) == nil)
    }

    @Test func emptyObjectHasEmptyClaims() throws {
        let claims = try #require(UnverifiedJWTClaims(token: makeUnsignedTestJWT(payload: "{}")))
        #expect(claims == UnverifiedJWTClaims())
    }

    @Test func tokenInspection() {
        let jwt = WebIdentityToken(inspecting: makeUnsignedTestJWT(payload: #"{"exp":1700000000,"sub":"s"}"#))
        #expect(jwt.expiration == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(jwt.unverifiedClaims?.subject == "s")

        let opaque = WebIdentityToken(inspecting: "EAAGm0PX4ZCpsBAOpaqueFacebookToken")
        #expect(opaque.expiration == nil)
        #expect(opaque.unverifiedClaims == nil)
    }

    @Test func descriptionListsClaims() throws {
        let claims = try #require(UnverifiedJWTClaims(token: makeUnsignedTestJWT(payload: #"{"iss":"i","sub":"s","aud":["a","b"],"exp":0}"#)))
        #expect(claims.description == "UnverifiedJWTClaims(iss: i, sub: s, aud: a,b, exp: 1970-01-01T00:00:00Z)")
    }
}
