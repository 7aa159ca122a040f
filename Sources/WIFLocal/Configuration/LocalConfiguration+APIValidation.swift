import AccessRules

extension LocalConfiguration {
    /// APIs: unique names of letters, digits, `-` and `_`; a schema whose rules read without errors; at
    /// least one mode, the default among them; keys for `API_KEY`; the token profiles of the JWT modes.
    func checkAPIs(labels: ConfigurationLabels, into problems: inout [String]) {
        var names: Set<String> = []
        for (index, api) in self.apis.enumerated() {
            let path = labels.api(index)
            let validName = !api.name.isEmpty && api.name.utf8.count <= 64
                && api.name.unicodeScalars.allSatisfy { $0.properties.isAlphabetic && $0.isASCII || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" }
            if !validName { problems.append("\(path).name: '\(api.name)' must be 1 to 64 letters, digits, '-' or '_'") }
            if !names.insert(api.name).inserted { problems.append("\(path).name: another API is named '\(api.name)'") }
            let read = RuleSet.read(schema: api.schema)
            for diagnostic in read.diagnostics where diagnostic.severity == .error {
                problems.append("\(path).schema: \(diagnostic)")
            }
            if read.ruleSet.models.isEmpty, !read.hasErrors {
                problems.append("\(path).schema: declares no @model type")
            }
            if api.isOpen, read.ruleSet.models.values.contains(where: { !$0.rules.isEmpty || !$0.fieldRules.isEmpty }) {
                problems.append("\(path).schema: an API whose only mode is NONE has no caller to apply @auth rules to; remove them or add a mode")
            }
            if api.authorizationModes.isEmpty { problems.append("\(path).authorizationModes: must name at least one mode") }
            if !api.authorizationModes.isEmpty, !api.authorizationModes.contains(api.defaultMode) {
                problems.append("\(path).defaultMode: \(api.defaultMode) is not one of the API's authorizationModes")
            }
            if api.authorizationModes.contains(.apiKey), api.apiKeys.isEmpty {
                problems.append("\(path).apiKeys: API_KEY needs at least one key")
            }
            Self.checkLambda(api, path: path, into: &problems)
            if api.authorizationModes.contains(.userPools), self.provider(named: api.userPoolProfile) == nil {
                problems.append("\(path).userPoolProfile: no provider profile is named '\(api.userPoolProfile)'")
            }
            if api.authorizationModes.contains(.oidc), self.provider(named: api.oidcProfile)?.kind != .oidc {
                problems.append("\(path).oidcProfile: '\(api.oidcProfile)' is not an oidc provider profile")
            }
            if api.stage.isEmpty || api.stage.contains("/") { problems.append("\(path).stage: '\(api.stage)' must be a name without '/'") }
        }
    }

    /// `AWS_LAMBDA` and the function that decides its tokens go together; the command names a program,
    /// and its times are in AppSync's ranges.
    private static func checkLambda(_ api: APIDefinition, path: String, into problems: inout [String]) {
        guard let lambda = api.lambdaAuthorizer else {
            if api.authorizationModes.contains(.lambda) {
                problems.append("\(path).lambdaAuthorizer: AWS_LAMBDA needs a function: {\"command\": [\"program\", \"argument\", …]}")
            }
            return
        }
        if !api.authorizationModes.contains(.lambda) {
            problems.append("\(path).lambdaAuthorizer: the API does not accept AWS_LAMBDA; add it to authorizationModes or remove the function")
        }
        if lambda.command.first?.isEmpty ?? true { problems.append("\(path).lambdaAuthorizer.command: must name a program") }
        if !(0...LocalLambdaAuthorizer.longestTTLSeconds).contains(lambda.resultTTLSeconds) {
            problems.append("\(path).lambdaAuthorizer.resultTTLSeconds: must be 0 to \(LocalLambdaAuthorizer.longestTTLSeconds), not \(lambda.resultTTLSeconds)")
        }
        if !(1...LocalLambdaAuthorizer.longestTimeoutSeconds).contains(lambda.timeoutSeconds) {
            problems.append("\(path).lambdaAuthorizer.timeoutSeconds: must be 1 to \(LocalLambdaAuthorizer.longestTimeoutSeconds), not \(lambda.timeoutSeconds)")
        }
    }
}
