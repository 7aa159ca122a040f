import AccessRules
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdAuth
import HummingbirdTesting
import NIOCore
import Testing
import WIFAPIServer
import WIFCredentials
import WIFTestSupport

/// The middleware on a Hummingbird router, in every mode a server can check by itself, with good and
/// bad credentials of each.
@Suite struct APIAuthenticatorTests {
    static let poolIssuer = "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_test"
    static let oidcIssuer = "https://login.example.com"

    /// A P-256 key that signs test tokens, with its JWKS.
    struct Signer {
        let key = P256.Signing.PrivateKey()
        let keyId = "test-key"

        var jwks: [UInt8] {
            let raw = self.key.publicKey.rawRepresentation
            let x = Self.base64URL(Array(raw.prefix(32)))
            let y = Self.base64URL(Array(raw.suffix(32)))
            return Array(#"{"keys":[{"kty":"EC","crv":"P-256","alg":"ES256","use":"sig","kid":"\#(self.keyId)","x":"\#(x)","y":"\#(y)"}]}"#.utf8)
        }

        func token(_ claims: String, algorithm: String = "ES256") throws -> String {
            let header = Self.base64URL(Array(#"{"alg":"\#(algorithm)","kid":"\#(self.keyId)","typ":"JWT"}"#.utf8))
            let payload = Self.base64URL(Array(claims.utf8))
            let input = "\(header).\(payload)"
            let signature = try self.key.signature(for: Array(input.utf8)).rawRepresentation
            return "\(input).\(Self.base64URL(Array(signature)))"
        }

        static func base64URL(_ bytes: [UInt8]) -> String {
            Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
    }

    static func now() -> Int { Int(Date().timeIntervalSince1970) }

    static func authenticator(signer: Signer, clock: ManualTimeSource? = nil, modes: [APIAuthorizationMode]) -> APIAuthenticator {
        let time = clock?.timeSource ?? .system
        return APIAuthenticator(
            modes: modes,
            apiKeys: [
                APIKey(name: "web", value: "da2-goodkey", expires: Date().addingTimeInterval(3600)),
                APIKey(name: "old", value: "da2-oldkey", expires: Date().addingTimeInterval(-60)),
            ],
            userPool: APITokenAuthority(kind: .userPool, issuer: Self.poolIssuer, clientIds: ["appclient"], timeSource: time, loadJWKS: { signer.jwks }),
            oidc: APITokenAuthority(
                kind: .oidc, issuer: Self.oidcIssuer, clientIds: ["web"], issuedAtLimit: .seconds(600), timeSource: time,
                loadJWKS: { signer.jwks }),
            lambda: { request in
                request.token == "custom-allow" ? APILambdaDecision(isAuthorized: true, resolvedContext: ["tenant": "blue"]) : APILambdaDecision(isAuthorized: false)
            },
            timeSource: time)
    }

    /// Runs `body` against a router whose `/whoami` answers the caller's mode, `sub`, groups and tenant.
    static func withApp(_ authenticator: APIAuthenticator, _ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let router = Router(context: BasicAuthRequestContext<APICaller>.self)
        router.add(middleware: APIAuthenticatorMiddleware(authenticator))
        router.get("/whoami") { _, context -> String in
            let caller = try context.requireIdentity()
            let claims = caller.caller?.claims ?? [:]
            var groups = ""
            if case .strings(let list)? = claims["cognito:groups"] { groups = list.joined(separator: ",") }
            var sub = ""
            if case .string(let value)? = claims["sub"] { sub = value }
            var tenant = ""
            if case .string(let value)? = claims["tenant"] { tenant = value }
            return "\(caller.mode.rawValue) \(sub) \(groups) \(tenant) \(caller.apiKeyName ?? "")"
        }
        try await Application(router: router).test(.router, body)
    }

    static func get(_ client: any TestClientProtocol, _ headers: [(HTTPField.Name, String)] = []) async throws -> (status: Int, body: String) {
        var fields = HTTPFields()
        for (name, value) in headers { fields[name] = value }
        return try await client.execute(uri: "/whoami", method: .get, headers: fields) { response in
            (Int(response.status.code), String(buffer: response.body))
        }
    }

    @Test func apiKeysAreCheckedWithTheirExpiry() async throws {
        let signer = Signer()
        try await Self.withApp(Self.authenticator(signer: signer, modes: [.apiKey])) { client in
            let good = try await Self.get(client, [(APIAuthenticator.apiKeyHeader, "da2-goodkey")])
            #expect(good.status == 200)
            #expect(good.body.hasPrefix("API_KEY"))
            #expect(good.body.hasSuffix("web"))
            let old = try await Self.get(client, [(APIAuthenticator.apiKeyHeader, "da2-oldkey")])
            #expect(old.status == 401)
            #expect(old.body.contains("'old' expired"))
            #expect(!old.body.contains("da2-oldkey"))
            let wrong = try await Self.get(client, [(APIAuthenticator.apiKeyHeader, "da2-wrong")])
            #expect(wrong.status == 401)
            #expect(wrong.body.contains(#""errorType":"UnauthorizedException""#))
            let none = try await Self.get(client)
            #expect(none.status == 401)
            #expect(none.body.contains("API_KEY"))
        }
    }

    @Test func userPoolIDAndAccessTokensAreAccepted() async throws {
        let signer = Signer()
        let now = Self.now()
        let idToken = try signer.token(
            #"{"iss":"\#(Self.poolIssuer)","sub":"u-1","aud":"appclient","token_use":"id","cognito:username":"alice","cognito:groups":["admin"],"iat":\#(now),"exp":\#(now + 600)}"#)
        let accessToken = try signer.token(
            #"{"iss":"\#(Self.poolIssuer)","sub":"u-1","client_id":"appclient","token_use":"access","username":"alice","iat":\#(now),"exp":\#(now + 600)}"#)
        let otherClient = try signer.token(
            #"{"iss":"\#(Self.poolIssuer)","sub":"u-1","client_id":"other","token_use":"access","iat":\#(now),"exp":\#(now + 600)}"#)
        let noUse = try signer.token(#"{"iss":"\#(Self.poolIssuer)","sub":"u-1","aud":"appclient","iat":\#(now),"exp":\#(now + 600)}"#)
        let expired = try signer.token(
            #"{"iss":"\#(Self.poolIssuer)","sub":"u-1","aud":"appclient","token_use":"id","iat":\#(now - 7200),"exp":\#(now - 3600)}"#)
        let forged = try Signer().token(
            #"{"iss":"\#(Self.poolIssuer)","sub":"u-1","aud":"appclient","token_use":"id","iat":\#(now),"exp":\#(now + 600)}"#)
        try await Self.withApp(Self.authenticator(signer: signer, modes: [.userPools])) { client in
            let id = try await Self.get(client, [(.authorization, idToken)])
            #expect(id.status == 200)
            #expect(id.body == "AMAZON_COGNITO_USER_POOLS u-1 admin  ")
            let bearer = try await Self.get(client, [(.authorization, "Bearer \(accessToken)")])
            #expect(bearer.status == 200)
            for (token, reason) in [(otherClient, "client_id"), (noUse, "token_use"), (expired, "expired"), (forged, "signature")] {
                let refused = try await Self.get(client, [(.authorization, token)])
                #expect(refused.status == 401)
                #expect(refused.body.contains(reason), "\(refused.body)")
                #expect(!refused.body.contains(token))
            }
            // An unsigned token is refused whatever it claims.
            let header = Signer.base64URL(Array(#"{"alg":"none"}"#.utf8))
            let payload = Signer.base64URL(Array(#"{"iss":"\#(Self.poolIssuer)","token_use":"id","aud":"appclient","exp":\#(now + 600)}"#.utf8))
            let unsigned = try await Self.get(client, [(.authorization, "\(header).\(payload).")])
            #expect(unsigned.status == 401)
        }
    }

    /// A token verified once is remembered by its exact bytes: a copy with a `K` swapped for U+212A
    /// KELVIN SIGN, equal to it as a Swift string, is not the token that was verified and is refused.
    @Test func rememberedTokensMatchOnlyTheirExactBytes() async throws {
        let signer = Signer()
        let now = Self.now()
        var token = ""
        // The signature is random, so some token soon holds a `K` to swap.
        for attempt in 0..<50 where !token.contains("K") {
            token = try signer.token(
                #"{"iss":"\#(Self.poolIssuer)","sub":"u-1","aud":"appclient","token_use":"id","n":\#(attempt),"iat":\#(now),"exp":\#(now + 600)}"#)
        }
        try #require(token.contains("K"))
        let verified = token
        let lookalike = verified.replacingOccurrences(of: "K", with: "\u{212A}")
        #expect(lookalike == verified)  // equal as strings…
        try await Self.withApp(Self.authenticator(signer: signer, modes: [.userPools])) { client in
            #expect(try await Self.get(client, [(.authorization, verified)]).status == 200)
            let refused = try await Self.get(client, [(.authorization, lookalike)])
            #expect(refused.status == 401)  // …but not the token that was verified
            #expect(try await Self.get(client, [(.authorization, verified)]).status == 200)
        }
    }

    @Test func oidcTokensNeedTheAudienceAndARecentIssue() async throws {
        let signer = Signer()
        let now = Self.now()
        let good = try signer.token(#"{"iss":"\#(Self.oidcIssuer)","sub":"o-1","aud":"web","iat":\#(now),"exp":\#(now + 3600)}"#)
        let wrongAudience = try signer.token(#"{"iss":"\#(Self.oidcIssuer)","sub":"o-1","aud":"mobile","iat":\#(now),"exp":\#(now + 3600)}"#)
        let stale = try signer.token(#"{"iss":"\#(Self.oidcIssuer)","sub":"o-1","aud":"web","iat":\#(now - 3000),"exp":\#(now + 3600)}"#)
        try await Self.withApp(Self.authenticator(signer: signer, modes: [.oidc, .userPools])) { client in
            #expect(try await Self.get(client, [(.authorization, good)]).body.hasPrefix("OPENID_CONNECT o-1"))
            let audience = try await Self.get(client, [(.authorization, wrongAudience)])
            #expect(audience.status == 401)
            #expect(audience.body.contains("aud"))
            let old = try await Self.get(client, [(.authorization, stale)])
            #expect(old.status == 401)
            #expect(old.body.contains("issued at"))
        }
    }

    @Test func lambdaTokensGoToTheAuthorizer() async throws {
        let signer = Signer()
        try await Self.withApp(Self.authenticator(signer: signer, modes: [.lambda, .userPools])) { client in
            let allowed = try await Self.get(client, [(.authorization, "custom-allow")])
            #expect(allowed.status == 200)
            #expect(allowed.body.hasPrefix("AWS_LAMBDA"))
            #expect(allowed.body.contains("blue"))
            let denied = try await Self.get(client, [(.authorization, "custom-deny")])
            #expect(denied.status == 401)
            #expect(!denied.body.contains("custom-deny"))
        }
    }

    @Test func noneAndMissingModes() async throws {
        let signer = Signer()
        try await Self.withApp(Self.authenticator(signer: signer, modes: [.none])) { client in
            let open = try await Self.get(client)
            #expect(open.status == 200)
            #expect(open.body.hasPrefix("NONE"))
            // An API key where the API takes none is refused, not ignored.
            let keyed = try await Self.get(client, [(APIAuthenticator.apiKeyHeader, "da2-goodkey")])
            #expect(keyed.status == 401)
            // A SigV4 request where no verifier is configured is refused.
            let signed = try await Self.get(client, [(.authorization, "AWS4-HMAC-SHA256 Credential=AKIA/20260101/us-east-1/execute-api/aws4_request, SignedHeaders=host, Signature=00")])
            #expect(signed.status == 401)
            #expect(signed.body.contains("AWS_IAM"))
        }
    }

    @Test func theResourceOfACall() {
        let resource = APIResource(region: "us-east-1", accountId: "000000000000", apiId: "todo", stage: "local")
        #expect(resource.arn(method: "GET", path: "/Todo/1") == "arn:aws:execute-api:us-east-1:000000000000:todo/local/GET/Todo/1")
        #expect(resource.arn(method: "POST", path: "Todo") == "arn:aws:execute-api:us-east-1:000000000000:todo/local/POST/Todo")
    }

    @Test func descriptionsHideKeys() {
        let key = APIKey(name: "web", value: "da2-secretvalue")
        #expect(!key.description.contains("da2-secretvalue"))
        #expect(!"\(APICaller(mode: .apiKey, caller: .apiKey, apiKeyName: "web"))".contains("da2"))
    }
}
