import Foundation
import Testing

@testable import WIFLocal

/// The grants state machine, with no I/O: each rule checked directly.
@Suite("OAuth grants")
struct OAuthGrantsTests {
    static let start = Date(timeIntervalSince1970: 1_750_000_000)
    static let alice = OAuthAuthorization(clientId: "wif-local", subject: "alice", scopes: ["openid", "offline_access"], authTime: 1_750_000_000)

    private func grantsWithCode(challenge: String?) -> OAuthGrants {
        var grants = OAuthGrants()
        grants.addCode(
            digest: "code",
            OAuthGrants.AuthorizationCode(
                authorization: Self.alice, nonce: "n", redirectURI: "http://127.0.0.1:1/cb", codeChallenge: challenge,
                expiresAt: Self.start.addingTimeInterval(60)
            )
        )
        return grants
    }

    @Test("PKCE S256: the RFC 7636 appendix B example verifier matches its challenge")
    func pkceVector() {
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
        #expect(PKCE.challenge(of: verifier) == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        #expect(PKCE.verify(verifier, challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"))
        #expect(!PKCE.verify(verifier + "x", challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"))
        #expect(!PKCE.isWellFormed(String(repeating: "a", count: 42)))
        #expect(!PKCE.isWellFormed(String(repeating: "a", count: 129)))
        #expect(!PKCE.isWellFormed(String(repeating: "a", count: 42) + "+"))
    }

    @Test("A code is spent by a redemption with the wrong verifier, and kept for another client's attempt")
    func codeRules() {
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
        var grants = self.grantsWithCode(challenge: PKCE.challenge(of: verifier))
        let foreign = grants.redeemCode(digest: "code", clientId: "other", redirectURI: "http://127.0.0.1:1/cb", verifier: verifier, now: Self.start)
        #expect(foreign.result.error == .invalidGrant("the authorization code was issued to another client"))
        #expect(grants.codes["code"]?.spent == false)

        let wrong = grants.redeemCode(
            digest: "code", clientId: "wif-local", redirectURI: "http://127.0.0.1:1/cb", verifier: String(repeating: "b", count: 43), now: Self.start)
        #expect(wrong.result.error?.message == "code_verifier does not match the code_challenge of the authorization request")
        let right = grants.redeemCode(digest: "code", clientId: "wif-local", redirectURI: "http://127.0.0.1:1/cb", verifier: verifier, now: Self.start)
        #expect(right.result.error?.message.contains("already used") == true)
    }

    @Test("A code redeemed once gives the sign-in and nonce; past its lifetime it is refused")
    func codeLifetime() throws {
        var grants = self.grantsWithCode(challenge: nil)
        let late = grants.redeemCode(
            digest: "code", clientId: "wif-local", redirectURI: "http://127.0.0.1:1/cb", verifier: nil, now: Self.start.addingTimeInterval(60))
        #expect(late.result.error?.message == "the authorization code has expired")

        grants = self.grantsWithCode(challenge: nil)
        let redeemed = grants.redeemCode(digest: "code", clientId: "wif-local", redirectURI: "http://127.0.0.1:1/cb", verifier: nil, now: Self.start)
        let (authorization, nonce) = try redeemed.result.get()
        #expect(authorization == Self.alice)
        #expect(nonce == "n")
    }

    @Test("Rotation keeps one current token; a replaced one revokes the family and says families changed")
    func rotation() throws {
        var grants = OAuthGrants()
        grants.createFamily(id: "f", authorization: Self.alice, tokenDigest: "t1", now: Self.start, lifetime: 100)
        let rotated = grants.rotate(digest: "t1", clientId: "wif-local", newDigest: "t2", scopes: nil, now: Self.start, lifetime: 100)
        #expect(rotated.familiesChanged)
        #expect(try rotated.result.get() == Self.alice)
        #expect(grants.families["f"]?.currentDigest == "t2")
        #expect(grants.families["f"]?.spentDigests == ["t1"])

        let reuse = grants.rotate(digest: "t1", clientId: "wif-local", newDigest: "t3", scopes: nil, now: Self.start, lifetime: 100)
        #expect(reuse.familiesChanged)
        #expect(reuse.result.error == .invalidGrant(""))
        #expect(grants.families["f"]?.revokedAt == 1_750_000_000)
        #expect(grants.families["f"]?.currentDigest == nil)
        let current = grants.rotate(digest: "t2", clientId: "wif-local", newDigest: "t4", scopes: nil, now: Self.start, lifetime: 100)
        #expect(!current.familiesChanged)
        #expect(current.result.error?.message.contains("revoked") == true)
    }

    @Test("Families are pruned once their current token expired, and reload from their saved form")
    func pruneAndReload() throws {
        var grants = OAuthGrants()
        grants.createFamily(id: "old", authorization: Self.alice, tokenDigest: "a", now: Self.start, lifetime: 10)
        grants.createFamily(id: "new", authorization: Self.alice, tokenDigest: "b", now: Self.start, lifetime: 100)
        let early = grants.prune(now: Self.start.addingTimeInterval(9))
        #expect(!early)
        let due = grants.prune(now: Self.start.addingTimeInterval(10))
        #expect(due)
        #expect(grants.families.keys.sorted() == ["new"])
        #expect(grants.family(ofToken: "a") == nil)

        let data = try JSONEncoder().encode(grants.familyList)
        var reloaded = OAuthGrants(families: try JSONDecoder().decode([RefreshTokenFamily].self, from: data))
        #expect(reloaded.family(ofToken: "b")?.id == "new")
        let rotated = reloaded.rotate(digest: "b", clientId: "wif-local", newDigest: "c", scopes: nil, now: Self.start, lifetime: 100)
        #expect(rotated.result.error == nil)
    }

    @Test("Device polls: pending, slow_down growing the interval, approval once, denial, expiry")
    func devicePolls() throws {
        var grants = OAuthGrants()
        grants.addDevice(
            digest: "d",
            OAuthGrants.DeviceAuthorization(
                clientId: "wif-local", scopes: ["openid"], userCode: "BCDFGHJK", expiresAt: Self.start.addingTimeInterval(600), interval: 5))
        #expect(grants.poll(digest: "d", clientId: "wif-local", now: Self.start).error?.code == .authorizationPending)
        #expect(grants.poll(digest: "d", clientId: "wif-local", now: Self.start.addingTimeInterval(1)).error?.code == .slowDown)
        #expect(grants.devices["d"]?.interval == 10)
        #expect(grants.pendingDevice(userCode: "BCDFGHJK", now: Self.start) != nil)
        #expect(grants.decide(userCode: "BCDFGHJK", approvingAs: "bob", now: Self.start.addingTimeInterval(2)) == .approved)
        #expect(grants.decide(userCode: "BCDFGHJK", approvingAs: nil, now: Self.start.addingTimeInterval(2)) == .alreadyDecided)
        let approved = try grants.poll(digest: "d", clientId: "wif-local", now: Self.start.addingTimeInterval(3)).get()
        #expect(approved.subject == "bob")
        #expect(approved.authTime == 1_750_000_002)
        #expect(grants.poll(digest: "d", clientId: "wif-local", now: Self.start.addingTimeInterval(20)).error?.code == .invalidGrant)
        #expect(grants.poll(digest: "d", clientId: "wif-local", now: Self.start.addingTimeInterval(600)).error?.code == .expiredToken)
        #expect(grants.decide(userCode: "ZZZZZZZZ", approvingAs: nil, now: Self.start) == .unknown)
    }

    @Test("User codes are read as typed: any case, with or without the dash")
    func userCodes() {
        #expect(OAuthAuthorizationServer.normalize(userCode: "bcdf-ghjk") == "BCDFGHJK")
        #expect(OAuthAuthorizationServer.normalize(userCode: "BCDF GHJK") == "BCDFGHJK")
        #expect(OAuthAuthorizationServer.normalize(userCode: "ABCD-EFGH") == nil)  // vowels are not in the alphabet
        #expect(OAuthAuthorizationServer.normalize(userCode: "BCDF-GHJ") == nil)
        #expect(OAuthAuthorizationServer.display("BCDFGHJK") == "BCDF-GHJK")
    }

    @Test("Error descriptions hold only the characters RFC 6749 allows")
    func errorDescriptions() {
        let error = OAuthError.invalidRequest("bad \"value\" with \\ and é")
        #expect(error.message == "bad 'value' with ? and ??")
        #expect(error.json == #"{"error":"invalid_request","error_description":"bad 'value' with ? and ??"}"#)
        #expect(OAuthError.invalidClient("x").status == .unauthorized)
    }
}

extension Result {
    /// The failure, if any.
    fileprivate var error: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
