import AccessRules
import Foundation
import WIFAPIClient
import WIFCredentials
import WIFFoundation
import WIFLocal

extension DemoScript {
    /// The stack's `todo` API: records with an owner, read by an API key and by signed-in IAM callers.
    func apiSteps(iamCredentials: AWSCredentials?) async throws {
        guard let api = self.endpoint.configuration.apis.first(where: { $0.name == APIDefinition.todoName }),
            let url = URL(string: "\(self.endpoint.url)/apis/\(api.name)")
        else { return }
        let endpoint = APIEndpoint(
            name: api.name, kind: .rest, url: url, region: self.endpoint.configuration.region, defaultMode: api.defaultMode,
            modes: api.authorizationModes, apiKey: api.apiKeys.first?.value)
        func userPool(_ user: String) throws -> APIClient {
            let token = try self.endpoint.developmentToken(provider: ProviderProfile.cognitoUserPoolName, user: user).token
            return APIClient(endpoint: endpoint, credentials: APIClientCredentials(userPoolTokens: StaticAPIToken(token), apiKey: ""))
        }
        let alice = try userPool("alice")
        let bob = try userPool("bob")
        let guest = APIClient(endpoint: endpoint, credentials: APIClientCredentials())

        let created = try await self.call(
            alice, actor: "alice (API)", action: "creates a Todo with her user pool token", expected: "201, owned by alice",
            "POST", "/Todo", body: #"{"content":"buy milk"}"#, mode: .userPools) { status, record in
                status == 201 && record["owner"] == "alice"
            }
        guard let id = created["id"] else { throw StepFailed() }
        _ = try await self.call(
            bob, actor: "bob (API)", action: "reads alice's Todo with his user pool token", expected: "refused: the owner rule",
            "GET", "/Todo/\(id)", mode: .userPools) { status, _ in status == 403 }
        _ = try await self.call(
            guest, actor: "guest (API key)", action: "reads alice's Todo with the API key", expected: "200: public reads with an API key",
            "GET", "/Todo/\(id)", mode: .apiKey) { status, record in status == 200 && record["content"] == "buy milk" }
        _ = try await self.call(
            guest, actor: "guest (API key)", action: "creates a Todo with the API key", expected: "refused: an API key only reads",
            "POST", "/Todo", body: #"{"content":"spam"}"#, mode: .apiKey) { status, _ in status == 403 }
        if let iamCredentials {
            let iam = APIClient(endpoint: endpoint, credentials: APIClientCredentials(iam: StaticCredentialProvider(credentials: iamCredentials)))
            _ = try await self.call(
                iam, actor: "bob (API)", action: "reads alice's Todo signed with his identity pool credentials (AWS_IAM)",
                expected: "200: signed-in IAM callers read", "GET", "/Todo/\(id)", mode: .iam) { status, _ in status == 200 }
        }
    }

    /// One API call as a step: its status and the string members of its record, checked by `expectation`.
    private func call(
        _ client: APIClient, actor: String, action: String, expected: String, _ method: String, _ path: String, body: String? = nil,
        mode: APIAuthorizationMode, _ expectation: (Int, [String: String]) -> Bool
    ) async throws -> [String: String] {
        do {
            let result = try await client.send(method, path, body: Array((body ?? "").utf8), mode: mode, logger: self.logger)
            let record = (try? JSONParser.parse(result.response.body))?.objectMembers?.compactMapValues(\.stringValue) ?? [:]
            let status = result.response.status
            let ok = expectation(status, record)
            var outcome = "HTTP \(status)"
            if let type = record["errorType"] { outcome += " \(type)" + (record["rule"].map { ", rule \($0)" } ?? "") }
            if let owner = record["owner"], status < 300 { outcome += ", owner \(owner)" }
            self.recorder.record(actor: actor, action: action, expected: expected, outcome: outcome + (ok && status >= 400 ? " (as expected)" : ""), ok: ok)
            return record
        } catch {
            self.recorder.record(actor: actor, action: action, expected: expected, outcome: Self.describe(error), ok: false)
            throw StepFailed()
        }
    }
}
