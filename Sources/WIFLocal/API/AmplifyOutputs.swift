import AccessRules
import WIFFoundation

/// The stack described as Amplify Gen 2's `amplify_outputs.json`, served at
/// `/.well-known/amplify_outputs.json` so any Amplify client (and `wif-tool request --api`) can be
/// pointed at it: `auth` (the identity pool, the user pool and its app client), `data` (an API's URL,
/// default mode, other modes, API key) and `storage` (the shared bucket). `?api=<name>` picks the API;
/// the first one by default.
enum AmplifyOutputs {
    static let path = "/.well-known/amplify_outputs.json"

    /// The document, with URLs under `baseURL` (`http://127.0.0.1:PORT`) and each API's rules as the
    /// service parsed them (`ruleSet`); `nil` for an unknown API.
    static func document(
        configuration: LocalConfiguration, baseURL: String, api name: String?, ruleSet: (String) -> RuleSet?
    ) -> String? {
        let region = configuration.region
        var sections: [String] = [#""version":"1""#]
        var auth = [#""aws_region":\#(JSONWriter.quoted(region))"#]
        if let profile = configuration.provider(named: ProviderProfile.cognitoUserPoolName), profile.isCognitoUserPool,
            let issuer = profile.issuer, let poolId = issuer.split(separator: "/").last
        {
            auth.append(#""user_pool_id":\#(JSONWriter.quoted(String(poolId)))"#)
            if let client = profile.clientIds.first { auth.append(#""user_pool_client_id":\#(JSONWriter.quoted(client))"#) }
        }
        if let pool = configuration.identityPools.first {
            auth.append(#""identity_pool_id":\#(JSONWriter.quoted(pool.id))"#)
            auth.append(#""unauthenticated_identities_enabled":\#(pool.allowUnauthenticatedIdentities)"#)
        }
        sections.append(#""auth":{\#(auth.joined(separator: ","))}"#)
        let api: APIDefinition?
        if let name {
            guard let found = configuration.apis.first(where: { $0.name == name }) else { return nil }
            api = found
        } else {
            api = configuration.apis.first
        }
        if let api {
            var data = [
                #""aws_region":\#(JSONWriter.quoted(region))"#,
                #""url":\#(JSONWriter.quoted("\(baseURL)\(APIService.prefix)\(api.name)"))"#,
                #""default_authorization_type":\#(JSONWriter.quoted(api.defaultMode.rawValue))"#,
                #""authorization_types":[\#(api.authorizationModes.filter { $0 != api.defaultMode }.map { JSONWriter.quoted($0.rawValue) }.joined(separator: ","))]"#,
            ]
            if let key = api.apiKeys.first { data.append(#""api_key":\#(JSONWriter.quoted(key.value))"#) }
            if let ruleSet = ruleSet(api.name) {
                data.append(#""model_introspection":\#(Self.modelIntrospection(ruleSet))"#)
            }
            sections.append(#""data":{\#(data.joined(separator: ","))}"#)
        }
        if let bucket = configuration.buckets.first {
            sections.append(#""storage":{"aws_region":\#(JSONWriter.quoted(region)),"bucket_name":\#(JSONWriter.quoted(bucket.name))}"#)
        }
        return "{" + sections.joined(separator: ",") + "}"
    }

    /// The models and their type-level `@auth` rules in the shape of Amplify's model introspection, which
    /// clients read to choose modes for multi-auth.
    static func modelIntrospection(_ ruleSet: RuleSet) -> String {
        let models = ruleSet.models.keys.sorted().compactMap { name -> String? in
            guard let model = ruleSet.models[name] else { return nil }
            let rules = model.rules.map(\.json).joined(separator: ",")
            let attributes = #"[{"type":"model","properties":{}},{"type":"auth","properties":{"rules":[\#(rules)]}}]"#
            return #"\#(JSONWriter.quoted(name)):{"name":\#(JSONWriter.quoted(name)),"attributes":\#(attributes)}"#
        }
        return #"{"version":1,"models":{\#(models.joined(separator: ","))},"enums":{},"nonModels":{}}"#
    }
}
