import PolicyEngine
import WIFFoundation

/// The `oauth` and `oauthClients` keys of configuration files, and their checks.
///
/// ```json
/// "oauth": {"idTokenLifetime": 300, "refreshTokenLifetime": 86400},
/// "oauthClients": [
///   {"clientId": "wif-local", "redirectURIs": ["http://127.0.0.1/callback"], "anyLoopbackRedirect": false},
///   {"clientId": "web-app", "clientSecret": "…", "redirectURIs": ["https://app.example.test/callback"]}
/// ]
/// ```
///
/// `oauth` changes only the lifetimes it gives. `oauthClients` entries are matched by `clientId`: a new id
/// adds a client, the id of the default client (`wif-local`, or the first client id of the `oidc` provider
/// after the file's changes) changes only the fields given, and `"clientSecret": null` makes it public.
extension ConfigurationFileReader {
    static let oauthKeys = LocalConfiguration.OAuth.names
    static let oauthClientKeys = ["clientId", "clientSecret", "redirectURIs", "anyLoopbackRedirect"]

    /// Reads `oauth` and `oauthClients` into a configuration whose providers are already read.
    mutating func readOAuth(
        _ settings: ConfigurationJSON?, clients: ConfigurationJSON?, useDefaults: Bool,
        into configuration: inout LocalConfiguration, labels: inout ConfigurationLabels
    ) {
        if let settings, let members = self.object(settings, path: "oauth", keys: Self.oauthKeys) {
            for (key, node) in members {
                guard let value = self.int(node, path: "oauth.\(key)") else { continue }
                switch key {
                case "idTokenLifetime": configuration.oauth.idTokenLifetime = value
                case "refreshTokenLifetime": configuration.oauth.refreshTokenLifetime = value
                case "authorizationCodeLifetime": configuration.oauth.authorizationCodeLifetime = value
                case "deviceCodeLifetime": configuration.oauth.deviceCodeLifetime = value
                case "deviceInterval": configuration.oauth.deviceInterval = value
                case "userCodeGuesses": configuration.oauth.userCodeGuesses = value
                case "userCodeGuessWindow": configuration.oauth.userCodeGuessWindow = value
                default: break
                }
            }
        }

        var list: [OAuthClient] = []
        if useDefaults {
            let clientId = configuration.provider(named: ProviderProfile.Kind.oidc.rawValue)?.clientIds.first
            list.append(.development(clientId: clientId ?? ProviderProfile.developmentClientId(for: .oidc)))
        }
        var clientLabels = list.map { "the default OAuth client '\($0.clientId)'" }
        for (path, entry) in self.entries(clients, path: "oauthClients") {
            self.mergeOAuthClient(entry, path: path, into: &list, labels: &clientLabels)
        }
        configuration.oauthClients = list
        labels.oauthClients = clientLabels
    }

    private mutating func mergeOAuthClient(_ node: ConfigurationJSON, path: String, into clients: inout [OAuthClient], labels: inout [String]) {
        guard let members = self.object(node, path: path, keys: Self.oauthClientKeys),
            let clientId = self.requiredString(members, "clientId", path: path)
        else { return }
        func member(_ key: String) -> ConfigurationJSON? { members.first { $0.key == key }?.value }
        let existing = clients.firstIndex { $0.clientId == clientId }
        if let existing, labels[existing].hasPrefix("oauthClients[") {
            self.problems.append("\(path).clientId: '\(clientId)' is already the client id of \(labels[existing])")
            return
        }
        var client = existing.map { clients[$0] } ?? OAuthClient(clientId: clientId)
        if let node = member("clientSecret") { client.clientSecret = self.optionalString(node, path: "\(path).clientSecret") }
        if let node = member("redirectURIs") {
            guard let values = self.strings(node, path: "\(path).redirectURIs") else { return }
            client.redirectURIs = values
        }
        if let node = member("anyLoopbackRedirect"), let value = self.bool(node, path: "\(path).anyLoopbackRedirect") {
            client.anyLoopbackRedirect = value
        }
        if let existing {
            clients[existing] = client
            labels[existing] = path
        } else {
            clients.append(client)
            labels.append(path)
        }
    }
}

extension LocalConfiguration {
    /// The `oauth` and `oauthClients` members of ``fileRepresentation()``; client secrets included, as the
    /// administrator's secret is.
    func oauthFileFields() -> [String] {
        let lifetimes = self.oauth.settings.map { "\(JSONWriter.quoted($0.name)): \($0.value)" }
            + ["\"userCodeGuesses\": \(self.oauth.userCodeGuesses)"]
        let clients = Self.array(self.oauthClients.map { client in
            var members = ["\"clientId\": \(JSONWriter.quoted(client.clientId))"]
            if let secret = client.clientSecret { members.append("\"clientSecret\": \(JSONWriter.quoted(secret))") }
            members.append("\"redirectURIs\": \(Self.strings(client.redirectURIs))")
            members.append("\"anyLoopbackRedirect\": \(client.anyLoopbackRedirect)")
            return members
        })
        return ["\"oauth\": {" + lifetimes.joined(separator: ", ") + "}", "\"oauthClients\": " + clients]
    }

    /// Checks the OAuth lifetimes and clients: ids unique and well formed, secrets long enough, redirect
    /// URIs absolute without fragments.
    func checkOAuth(labels: ConfigurationLabels, into problems: inout [String]) {
        for setting in self.oauth.settings where !setting.range.contains(setting.value) {
            problems.append("oauth.\(setting.name): must be \(setting.range.lowerBound) to \(setting.range.upperBound) seconds, not \(setting.value)")
        }
        let guesses = OAuth.userCodeGuessRange
        if !guesses.contains(self.oauth.userCodeGuesses) {
            problems.append("oauth.userCodeGuesses: must be \(guesses.lowerBound) to \(guesses.upperBound), not \(self.oauth.userCodeGuesses)")
        }
        var ids: [String: String] = [:]
        for (index, client) in self.oauthClients.enumerated() {
            let label = labels.oauthClient(index)
            let id = client.clientId
            if id.isEmpty || id.utf8.count > 255 || !id.utf8.allSatisfy({ $0 >= 0x21 && $0 <= 0x7E }) {
                problems.append("\(label).clientId: must be 1 to 255 visible ASCII characters, not '\(id)'")
            } else if let first = ids[id] {
                problems.append("\(label).clientId: '\(id)' is already the client id of \(first)")
            } else {
                ids[id] = label
            }
            if let secret = client.clientSecret, !(8...512).contains(secret.utf8.count) {
                problems.append("\(label).clientSecret: must be 8 to 512 characters long")
            }
            for (uriIndex, text) in client.redirectURIs.enumerated() {
                if case .failure(let problem) = RedirectURI.parse(text) {
                    problems.append("\(label).redirectURIs[\(uriIndex)]: \(problem.reason)")
                }
            }
        }
    }
}
