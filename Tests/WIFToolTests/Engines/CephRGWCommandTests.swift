import Foundation
import Testing
import WIFTestSupport

/// `wif-tool engine ceph-rgw` without a gateway: its help, and every refusal that happens before RGW is
/// asked anything.
@Suite(.oneToolRunAtATime) struct CephRGWCommandTests {
    func run(_ arguments: [String], _ extra: [String: String] = [:]) throws -> ToolRunner.Result {
        let home = try ToolRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        return try ToolRunner.run(["engine", "ceph-rgw"] + arguments, environment: ToolRunner.cleanEnvironment(home: home, extra: extra))
    }

    static let admin = ["WIF_CEPH_RGW_ACCESS_KEY": "AK", "WIF_CEPH_RGW_SECRET_KEY": "SK"]

    @Test func helpNamesTheStrategiesAndTheSettings() throws {
        let group = try self.run(["--help"])
        #expect(group.status == 0)
        for text in ["role-per-user", "session-tags", "session-policy", "WIF_CEPH_RGW_ENDPOINT", "WIF_CEPH_RGW_ACCESS_KEY", "setup", "remove", "credentials"] {
            #expect(group.stdout.contains(text), "missing \(text)")
        }
        let setup = try self.run(["setup", "--help"])
        for text in ["--issuer-url", "--client-id", "--thumbprint", "--strategy", "--user", "--broker-client-id", "Exit status"] {
            #expect(setup.stdout.contains(text), "missing \(text)")
        }
        let credentials = try self.run(["credentials", "--help"])
        for text in ["session policy", "credential_process", "never hand the role's tokens to users"] {
            #expect(credentials.stdout.replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "  ", with: " ").contains(text), "missing \(text)")
        }
    }

    @Test(arguments: [
        (["setup", "--issuer-url", "http://127.0.0.1:1"], [String: String](), "give the gateway with --endpoint URL"),
        (["setup", "--endpoint", "not a url", "--issuer-url", "http://127.0.0.1:1"], [:], "--endpoint 'not a url' is not an http or https URL"),
        (["setup", "--endpoint", "http://127.0.0.1:1", "--issuer-url", "http://127.0.0.1:1", "--strategy", "per-user"], [:], "--strategy must be one of role-per-user, session-tags, session-policy"),
        (["setup", "--endpoint", "http://127.0.0.1:1", "--issuer-url", "wif.localhost"], [:], "the issuer must be an http or https URL"),
        (["setup", "--endpoint", "http://127.0.0.1:1", "--issuer-url", "http://127.0.0.1:1", "--user", "a*"], [:], "would widen to other users' folders"),
        (["setup", "--endpoint", "http://127.0.0.1:1", "--issuer-url", "http://127.0.0.1:1", "--user", "a/b"], [:], "must not contain '/'"),
        (["setup", "--endpoint", "http://127.0.0.1:1", "--issuer-url", "http://127.0.0.1:1", "--thumbprint", "xyz"], [:], "40 hex digits"),
        (["setup", "--endpoint", "http://127.0.0.1:1", "--issuer-url", "http://127.0.0.1:1", "--strategy", "session-policy", "--broker-client-id", "wif-local"], [:], "users would get tokens the shared role accepts"),
        (["credentials", "--endpoint", "http://127.0.0.1:1", "--role-arn", "arn:aws:iam:::role/wif-broker"], [:], "give the token with --token TOKEN or --token-file FILE"),
        (["credentials", "--endpoint", "http://127.0.0.1:1", "--role-arn", "arn:aws:iam:::role/wif-broker", "--token", "t", "--bucket", "Bad_Bucket"], [:], "is not a bucket name"),
    ])
    func badOptionsAreUsageErrors(arguments: [String], extra: [String: String], message: String) throws {
        let result = try self.run(arguments, extra.merging(Self.admin) { $1 })
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    @Test func anUnreachableIssuerIsANetworkFailure() throws {
        let port = try MotoPeer.freePort()
        let result = try self.run(["setup", "--endpoint", "http://127.0.0.1:\(port)", "--issuer-url", "http://127.0.0.1:\(port)"], Self.admin)
        #expect(result.status == 7, "\(result.stderr)")
        #expect(result.stderr.contains("InvalidIssuer: the issuer's discovery document http://127.0.0.1:\(port)/.well-known/openid-configuration cannot be read"))
    }

    @Test func withoutAdministratorCredentialsNothingIsSent() throws {
        let result = try self.run(["setup", "--endpoint", "http://127.0.0.1:1", "--issuer-url", "http://127.0.0.1:1"], ["WIF_CEPH_RGW_ACCESS_KEY": "AK"])
        #expect(result.status == 3, "\(result.stderr)")
        #expect(result.stderr.contains("WIF_CEPH_RGW_ACCESS_KEY is set but WIF_CEPH_RGW_SECRET_KEY is not"))
        let none = try self.run(["remove", "--endpoint", "http://127.0.0.1:1", "--issuer-url", "http://127.0.0.1:1"])
        #expect(none.status == 3, "\(none.stderr)")
        #expect(none.stderr.contains("no administrator credentials for the gateway"))
    }

    @Test func theTrustedServerNeedsATokenWithASub() throws {
        func base64URL(_ text: String) -> String {
            Data(text.utf8).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        let noSub = base64URL(#"{"alg":"RS256"}"#) + "." + base64URL(#"{"iss":"http://127.0.0.1:1","aud":"wif-broker"}"#) + ".c2ln"
        let widening = base64URL(#"{"alg":"RS256"}"#) + "." + base64URL(#"{"iss":"http://127.0.0.1:1","sub":"*"}"#) + ".c2ln"
        for (token, status, message) in [
            ("opaque-token", Int32(3), "not a JWT with a sub claim"), (noSub, 3, "not a JWT with a sub claim"),
            (widening, 64, "would widen to other users' folders"),
        ] {
            let result = try self.run(["credentials", "--endpoint", "http://127.0.0.1:1", "--role-arn", "arn:aws:iam:::role/wif-broker", "--token", token])
            #expect(result.status == status, "\(result.stderr)")
            #expect(result.stderr.contains(message), "\(result.stderr)")
        }
    }
}
