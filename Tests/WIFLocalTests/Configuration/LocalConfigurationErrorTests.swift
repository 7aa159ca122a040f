import Foundation
import Testing
@testable import WIFLocal

/// Every way a configuration file can be wrong, each refused at load time with the JSON path of the problem.
@Suite struct LocalConfigurationErrorTests {
    static let trust = """
        {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"Federated": "accounts.google.com"},
          "Action": "sts:AssumeRoleWithWebIdentity"}]}
        """

    static let permissionsNamingAPrincipal = """
        {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject", "Resource": "*"}]}
        """

    /// A configuration and the message it must be refused with (after `wif.json: `).
    struct Case: CustomTestStringConvertible, Sendable {
        var json: String
        var message: String
        var files: [String: String] = [:]
        var testDescription: String { self.message }
    }

    static let cases: [Case] = [
        Case(json: "[]", message: "the configuration: must be an object, not an array"),
        Case(json: #"{"rol": []}"#, message: "rol: unknown key; expected one of defaults, host, port"),
        Case(json: #"{"defaults": "no"}"#, message: "defaults: must be true or false, not a string"),
        Case(json: #"{"port": "4566"}"#, message: "port: must be a whole number, not a string"),
        Case(json: #"{"port": 1.5}"#, message: "port: must be a whole number, not 1.5"),
        Case(json: #"{"port": 70000}"#, message: "port: must be 0 (any free port) to 65535, not 70000"),
        Case(json: #"{"host": ""}"#, message: "host: must be a host name or address, not ''"),
        Case(json: #"{"issuer": "wif.localhost"}"#, message: "issuer: must be an https URL such as https://wif.localhost, not 'wif.localhost'"),
        Case(json: #"{"issuer": "https://wif.localhost?x=1"}"#, message: "issuer: must have no spaces, query or fragment"),
        Case(json: #"{"accountId": "123"}"#, message: "accountId: must be 12 digits, not '123'"),
        Case(json: #"{"region": "US East"}"#, message: "region: must be lower-case letters, digits and '-'"),
        Case(json: #"{"allowedClockSkew": -1}"#, message: "allowedClockSkew: must be 0 to 86400 seconds, not -1"),
        Case(json: #"{"tokenLeeway": 7200}"#, message: "tokenLeeway: must be 0 to 3600 seconds, not 7200"),
        Case(json: #"{"adminCredentials": {"accessKeyId": "AKIAWIFLOCALADMIN001"}}"#, message: "adminCredentials: needs secretAccessKey"),
        Case(
            json: #"{"adminCredentials": {"accessKeyId": "ASIAWIFLOCALADMIN001", "secretAccessKey": "0123456789"}}"#,
            message: "adminCredentials.accessKeyId: must not start with ASIA"),
        Case(
            json: #"{"adminCredentials": {"accessKeyId": "AKIA-X", "secretAccessKey": "0123456789"}}"#,
            message: "adminCredentials.accessKeyId: must be 16 to 128 letters and digits"),
        Case(
            json: #"{"adminCredentials": {"accessKeyId": "AKIAWIFLOCALADMIN001", "secretAccessKey": "short"}}"#,
            message: "adminCredentials.secretAccessKey: must be at least 8 characters long"),
        Case(json: #"{"providers": {}}"#, message: "providers: must be an array, not an object"),
        Case(json: #"{"providers": [{"kind": "oidc"}]}"#, message: "providers[0]: needs name"),
        Case(json: #"{"providers": [{"name": "corp", "clientIds": ["x"]}]}"#, message: "providers[0]: a new provider needs a kind"),
        Case(
            json: #"{"providers": [{"name": "corp", "kind": "github", "clientIds": ["x"]}]}"#,
            message: "providers[0].kind: must be one of facebook, amazon, google, cognito, oidc, not 'github'"),
        Case(json: #"{"providers": [{"name": "corp", "kind": "oidc", "issuer": "https://corp.example.test"}]}"#, message: "providers[0]: a new provider needs clientIds"),
        Case(json: #"{"providers": [{"name": "google", "clientIds": []}]}"#, message: "providers[0].clientIds: must name at least one client id"),
        Case(json: #"{"providers": [{"name": "google", "clientIds": [""]}]}"#, message: "providers[0].clientIds[0]: must be 1 to 255 characters long"),
        Case(json: #"{"providers": [{"name": "google", "clientIds": [7]}]}"#, message: "providers[0].clientIds[0]: must be a string, not a number"),
        Case(
            json: #"{"providers": [{"name": "corp/x", "kind": "oidc", "clientIds": ["x"], "issuer": "https://corp.example.test"}]}"#,
            message: "providers[0].name: must be 1 to 64 letters, digits, '.', '_' or '-', not 'corp/x'"),
        Case(
            json: #"{"providers": [{"name": "corp", "kind": "oidc", "clientIds": ["x"]}]}"#,
            message: "providers[0].issuer: 'https://wif.localhost' is already the issuer of the default provider 'oidc'"),
        Case(
            json: #"{"providers": [{"name": "fb2", "kind": "facebook", "clientIds": ["1"], "issuer": "https://facebook.com"}]}"#,
            message: "providers[0].issuer: a facebook profile takes opaque access tokens and has no issuer"),
        Case(
            json: #"{"providers": [{"name": "google", "clientIds": ["a"]}, {"name": "google", "clientIds": ["b"]}]}"#,
            message: "providers[1].name: 'google' is already the name of providers[0]"),
        Case(json: #"{"externalIssuers": [{"issuer": "https://ci.example.test", "clientIds": ["sts"]}]}"#, message: "externalIssuers[0]: needs jwksURL or jwksFile"),
        Case(
            json: #"{"externalIssuers": [{"issuer": "https://ci.example.test", "jwksURL": "https://ci.example.test/k", "jwksFile": "k.json", "clientIds": ["sts"]}]}"#,
            message: "externalIssuers[0]: give jwksURL or jwksFile, not both"),
        Case(
            json: #"{"externalIssuers": [{"issuer": "https://ci.example.test", "jwksURL": "ftp://ci.example.test/k", "clientIds": ["sts"]}]}"#,
            message: "externalIssuers[0].jwksURL: must be an http or https URL, not 'ftp://ci.example.test/k'"),
        Case(json: #"{"externalIssuers": [{"issuer": "https://ci.example.test", "jwksURL": "https://ci.example.test/k"}]}"#, message: "externalIssuers[0]: needs clientIds"),
        Case(
            json: #"{"externalIssuers": [{"issuer": "https://accounts.google.com", "jwksURL": "https://x.example.test/k", "clientIds": ["a"]}]}"#,
            message: "externalIssuers[0].issuer: 'https://accounts.google.com' is already the issuer of the default provider 'google'"),
        Case(json: #"{"buckets": [{"name": "Team_Share"}]}"#, message: "buckets[0].name: must be lower-case letters, digits, '.' and '-', not 'Team_Share'"),
        Case(json: #"{"buckets": [{"name": "ab"}]}"#, message: "buckets[0].name: must be 3 to 63 characters long, not 2 ('ab')"),
        Case(json: #"{"buckets": [{"name": "-team"}]}"#, message: "buckets[0].name: must start and end with a letter or digit, not '-team'"),
        Case(json: #"{"buckets": [{"name": "team..share"}]}"#, message: "buckets[0].name: must not contain two adjacent periods"),
        Case(json: #"{"buckets": [{"name": "192.168.1.10"}]}"#, message: "buckets[0].name: must not look like an IP address"),
        Case(json: #"{"buckets": [{"name": "team"}, {"name": "team"}]}"#, message: "buckets[1].name: 'team' is already the name of buckets[0]"),
        Case(json: #"{"buckets": [{"name": "team", "policy": 3}]}"#, message: "buckets[0].policy: must be a policy object or the name of a policy file, not a number"),
        Case(
            json: #"{"buckets": [{"name": "team", "policy": {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:GetObject", "Resource": "*"}]}}]}"#,
            message: "buckets[0].policy: Statement[0]"),
        Case(json: #"{"roles": [{"trustPolicy": {}}]}"#, message: "roles[0]: needs name"),
        Case(json: #"{"roles": [{"name": "team"}]}"#, message: "roles[0]: a new role needs a trustPolicy that says who may assume it"),
        Case(json: #"{"roles": [{"name": "team", "trustPolicy": 1}]}"#, message: "roles[0].trustPolicy: must be a policy object or the name of a policy file, not a number"),
        Case(
            json: #"{"roles": [{"name": "team", "trustPolicy": "missing.json"}]}"#,
            message: "roles[0].trustPolicy: cannot read the policy file missing.json ("),
        Case(
            json: #"""
                {"roles": [{"name": "team", "trustPolicy":
                  {"Version": "2012-10-17", "Statement": [{"Effect": "Maybe", "Principal": {"Federated": "accounts.google.com"},
                   "Action": "sts:AssumeRoleWithWebIdentity"}]}}]}
                """#,
            message: "roles[0].trustPolicy: Statement[0].Effect: "),
        Case(
            json: #"{"roles": [{"name": "team", "trustPolicy": "trust.json"}]}"#,
            message: "roles[0].trustPolicy: Statement[0].Effect: ",
            files: ["trust.json": "{\"Version\": \"2012-10-17\",\n \"Statement\": [{\"Effect\": \"Maybe\", \"Principal\": {\"Federated\": \"x\"}, \"Action\": \"sts:AssumeRoleWithWebIdentity\"}]}"]),
        Case(
            json: #"{"roles": [{"name": "team", "trustPolicy": \#(Self.trust), "permissionPolicies": [\#(Self.permissionsNamingAPrincipal)]}]}"#,
            message: "roles[0].permissionPolicies[0]: Statement[0].Principal"),
        Case(json: #"{"roles": [{"name": "team", "trustPolicy": \#(Self.trust), "permissionPolicies": {}}]}"#, message: "roles[0].permissionPolicies: must be an array of policies, not an object"),
        Case(json: #"{"roles": [{"name": "team", "trustPolicy": \#(Self.trust), "provider": "nope"}]}"#, message: "roles[0].provider: no provider is named 'nope'"),
        Case(json: #"{"roles": [{"name": "team", "trustPolicy": \#(Self.trust), "bucket": "nope"}]}"#, message: "roles[0].bucket: no bucket is named 'nope'"),
        Case(
            json: #"{"roles": [{"name": "team", "trustPolicy": \#(Self.trust), "partitionTemplate": "team/"}]}"#,
            message: "roles[0].partitionTemplate: must contain {id}, where the user id goes, not 'team/'"),
        Case(
            json: #"{"roles": [{"name": "team", "trustPolicy": \#(Self.trust), "partitionTemplate": "/team/{id}/"}]}"#,
            message: "roles[0].partitionTemplate: must not start with '/'"),
        Case(
            json: #"{"roles": [{"name": "team", "trustPolicy": \#(Self.trust), "partitionTemplate": "team/{id}"}]}"#,
            message: "roles[0].partitionTemplate: must end with '/'"),
        Case(json: #"{"roles": [{"name": "team", "trustPolicy": \#(Self.trust), "maxSessionDuration": 60}]}"#, message: "roles[0].maxSessionDuration: must be 3600 to 43200 seconds, not 60"),
        Case(json: #"{"roles": [{"name": "personal-store-google", "maxSessionDuration": 86400}]}"#, message: "roles[0].maxSessionDuration: must be 3600 to 43200 seconds, not 86400"),
        Case(json: #"{"roles": [{"name": "team", "trustPolicy": \#(Self.trust), "path": "teams"}]}"#, message: "roles[0].path: must start and end with '/'"),
        Case(json: #"{"roles": [{"name": "team role", "trustPolicy": \#(Self.trust)}]}"#, message: "roles[0].name: must be 1 to 64 letters, digits and '+=,.@_-', not 'team role'"),
        Case(
            json: #"{"roles": [{"name": "team", "trustPolicy": \#(Self.trust)}, {"name": "TEAM", "trustPolicy": \#(Self.trust)}]}"#,
            message: "roles[1].name: 'TEAM' is already the name of roles[0]"),
        Case(json: #"{"defaults": false, "roles": [{"name": "personal-store-google"}]}"#, message: "roles[0]: a new role needs a trustPolicy"),
        Case(json: #"{"defaults": false, "providers": [{"name": "google", "clientIds": ["x"]}]}"#, message: "providers[0]: a new provider needs a kind"),
        Case(json: #"{"providers": [{"name": "google", "clientIds": ["x"], "color": "red"}]}"#, message: "providers[0].color: unknown key; expected one of name, kind, clientIds, issuer"),
    ]

    @Test(arguments: Self.cases)
    func isRefusedWithItsPath(_ testCase: Case) throws {
        let message = try #require(try ConfigurationTestSupport.loadError(testCase.json, files: testCase.files))
        #expect(message.hasPrefix("wif.json: \(testCase.message)"), "got: \(message)")
    }

    @Test func syntaxErrorsNameTheLineAndColumn() throws {
        let message = try ConfigurationTestSupport.loadError("{\n  \"port\": 4566,\n  \"host\" \"x\"\n}")
        // One JSON reader serves policies and configuration files, so this is its wording.
        #expect(message == "wif.json:3:10: not valid JSON: expected ':' after key \"host\"")
        let duplicate = try ConfigurationTestSupport.loadError(#"{"port": 1, "port": 2}"#)
        #expect(duplicate == "wif.json:1:13: not valid JSON: the key 'port' appears twice in the same object")
        for bad in ["", "{", #"{"a": tru}"#, #"{"a": 01}"#, #"{"a": "\x"}"#, "{\"a\": \"\u{01}\"}", #"{"a": 1} x"#, #"{"a": "\ud800"}"#] {
            let message = try #require(try ConfigurationTestSupport.loadError(bad), "accepted \(bad)")
            #expect(message.hasPrefix("wif.json:1:"), "got: \(message)")
            #expect(message.contains("not valid JSON"))
        }
    }

    @Test func policyProblemsGiveTheirLine() throws {
        let inline = try ConfigurationTestSupport.loadError("""
            {
              "roles": [{
                "name": "team",
                "trustPolicy": {
                  "Version": "2012-10-17",
                  "Statement": [{"Effect": "Maybe", "Principal": {"Federated": "x"}, "Action": "sts:AssumeRoleWithWebIdentity"}]
                }
              }]
            }
            """)
        #expect(inline?.hasSuffix("(line 6)") == true, "got: \(inline ?? "nil")")
        let file = try ConfigurationTestSupport.loadError(
            #"{"roles": [{"name": "team", "trustPolicy": "trust.json"}]}"#,
            files: ["trust.json": "{\"Version\": \"2012-10-17\",\n \"Statement\": [{\"Effect\": \"Maybe\", \"Principal\": {\"Federated\": \"x\"}, \"Action\": \"sts:AssumeRoleWithWebIdentity\"}]}"])
        #expect(file?.hasSuffix("(in trust.json, line 2)") == true, "got: \(file ?? "nil")")
    }

    @Test func everyProblemIsListed() throws {
        let message = try ConfigurationTestSupport.loadError(#"{"port": -1, "accountId": "x", "roles": [{"name": "team", "trustPolicy": {}}]}"#)
        let lines = try #require(message).split(separator: "\n").map(String.init)
        #expect(lines.first == "wif.json has 3 problems:", "got: \(lines)")
        #expect(lines.contains { $0.hasPrefix("  port: must be 0") })
        #expect(lines.contains { $0.hasPrefix("  accountId: must be 12 digits") })
        #expect(lines.contains { $0.hasPrefix("  roles[0].trustPolicy: ") })
    }

    @Test func aMissingFileIsNamed() throws {
        try ConfigurationTestSupport.withFolder { folder in
            let path = folder.appendingPathComponent("absent.json").path
            #expect(throws: LocalStackError.self) { try LocalConfiguration.load(file: path, dataDirectory: folder.path) }
            do {
                _ = try LocalConfiguration.load(file: path, dataDirectory: folder.path)
            } catch let error as LocalStackError {
                #expect(error.message == "cannot read the configuration file \(path): no such file")
            }
        }
    }

    @Test func programmaticConfigurationsAreCheckedToo() throws {
        var configuration = LocalConfiguration.default(dataDirectory: "/unused")
        configuration.roles[1].partitionTemplate = "amazon/"
        configuration.roles[2].provider = "nobody"
        configuration.roles[3].trustPolicy = "{"
        do {
            try configuration.validate()
            Issue.record("an invalid configuration was accepted")
        } catch {
            let lines = error.message.split(separator: "\n").map(String.init)
            #expect(lines.first == "the configuration has 3 problems:")
            #expect(lines.contains("  roles[1].partitionTemplate: must contain {id}, where the user id goes, not 'amazon/'"))
            #expect(lines.contains("  roles[2].provider: no provider is named 'nobody'"))
            #expect(lines.contains { $0.hasPrefix("  roles[3].trustPolicy: ") })
        }
        configuration = LocalConfiguration.default(dataDirectory: "/unused")
        configuration.buckets = []
        do {
            try configuration.validate()
            Issue.record("roles naming a missing bucket were accepted")
        } catch {
            #expect(error.message.contains("roles[0].bucket: no bucket is named 'wif-personal'"))
        }
    }
}
