import AccessRules
import Testing
import WIFAPIServer
@testable import WIFLocal

/// APIs in the configuration file: read beside the default `todo`, and checked with paths.
@Suite struct APIConfigurationFileTests {
    @Test func anAPIIsReadBesideTheDefaultOne() throws {
        let loaded = try ConfigurationTestSupport.load(
            """
            {"apis": [{"name": "notes", "schemaFile": "notes.graphql", "authorizationModes": ["AMAZON_COGNITO_USER_POOLS", "API_KEY"],
              "defaultMode": "API_KEY", "apiKeys": [{"name": "web", "value": "da2-notes", "expires": "2030-01-01T00:00:00Z"}],
              "stage": "dev", "semantics": "v1"}]}
            """, files: ["notes.graphql": "type Note @model @auth(rules: [{allow: owner}]) { id: ID! owner: String }"])
        #expect(loaded.apis.map(\.name) == ["todo", "notes"])
        let notes = try #require(loaded.apis.last)
        #expect(notes.defaultMode == .apiKey)
        #expect(notes.authorizationModes == [.userPools, .apiKey])
        #expect(notes.apiKeys.first?.expires != nil)
        #expect(notes.stage == "dev")
        #expect(notes.semantics == .v1)
        #expect(notes.schema.contains("type Note"))
        // The file form reads back to the same APIs.
        let again = try ConfigurationTestSupport.load(loaded.fileRepresentation())
        #expect(again.apis.map(\.name) == ["todo", "notes"])
        #expect(again.apis.last?.apiKeys == notes.apiKeys)
        #expect(again.apis.last?.schema == notes.schema)
        #expect(again.apis.last?.semantics == .v1)
    }

    @Test func problemsNameTheirPath() throws {
        let message = try #require(try ConfigurationTestSupport.loadError("""
            {"apis": [
              {"name": "bad name", "schema": "type T @model @auth(rules: [{allow: sometimes}]) { id: ID! }",
               "authorizationModes": ["API_KEY", "AWS_MAGIC"], "defaultMode": "AWS_IAM", "semantics": "v3"},
              {"name": "todo", "schema": "type A { id: ID! }", "authorizationModes": ["AMAZON_COGNITO_USER_POOLS"], "userPoolProfile": "nobody"},
              {"name": "open", "schema": "type B @model @auth(rules: [{allow: owner}]) { id: ID! }", "authorizationModes": ["NONE"]}
            ]}
            """))
        #expect(message.contains("apis[0].authorizationModes[1]: unknown mode 'AWS_MAGIC'"))
        #expect(message.contains("apis[0].semantics: must be v1 or v2, not 'v3'"))
        #expect(message.contains("apis[0].name: 'bad name' must be 1 to 64 letters"))
        #expect(message.contains("apis[0].schema: "))
        #expect(message.contains("apis[0].defaultMode: AWS_IAM is not one of the API's authorizationModes"))
        #expect(message.contains("apis[0].apiKeys: API_KEY needs at least one key"))
        #expect(message.contains("apis[1].schema: declares no @model type"))
        #expect(message.contains("apis[1].userPoolProfile: no provider profile is named 'nobody'"))
        #expect(message.contains("apis[2].schema: an API whose only mode is NONE has no caller to apply @auth rules to"))
    }

    @Test func aLambdaAuthorizerIsReadWithItsProgramBesideTheFile() throws {
        let loaded = try ConfigurationTestSupport.load(
            """
            {"apis": [{"name": "custom", "schema": "type Job @model @auth(rules: [{allow: custom}]) { id: ID! }",
              "authorizationModes": ["AWS_LAMBDA"],
              "lambdaAuthorizer": {"command": ["./bin/authorizer", "--strict"], "resultTTLSeconds": 0, "timeoutSeconds": 3}},
              {"name": "onpath", "schema": "type Job @model @auth(rules: [{allow: custom}]) { id: ID! }",
              "authorizationModes": ["AWS_LAMBDA"], "lambdaAuthorizer": {"command": ["node", "authorizer.js"]}}]}
            """)
        let custom = try #require(loaded.apis.first { $0.name == "custom" }?.lambdaAuthorizer)
        // A program path is relative to the configuration file; a bare name is looked up on PATH when run.
        #expect(custom.command.first?.hasPrefix("/") == true)
        #expect(custom.command.first?.hasSuffix("/bin/authorizer") == true)
        #expect(custom.command.dropFirst() == ["--strict"])
        #expect(custom.resultTTLSeconds == 0)
        #expect(custom.timeoutSeconds == 3)
        let onPath = try #require(loaded.apis.first { $0.name == "onpath" }?.lambdaAuthorizer)
        #expect(onPath == LocalLambdaAuthorizer(command: ["node", "authorizer.js"]))
        // The file form reads back to the same function.
        let again = try ConfigurationTestSupport.load(loaded.fileRepresentation())
        #expect(again.apis.first { $0.name == "custom" }?.lambdaAuthorizer == custom)

        let message = try #require(try ConfigurationTestSupport.loadError("""
            {"apis": [
              {"name": "a", "schema": "type T @model { id: ID! }", "authorizationModes": ["AWS_LAMBDA"]},
              {"name": "b", "schema": "type T @model { id: ID! }", "authorizationModes": ["AWS_LAMBDA"],
               "lambdaAuthorizer": {"command": "authorizer", "timeoutSeconds": 600}},
              {"name": "c", "schema": "type T @model { id: ID! }", "authorizationModes": ["API_KEY"], "apiKeys": [{"name": "k", "value": "v"}],
               "lambdaAuthorizer": {"command": ["x"], "memory": 128, "resultTTLSeconds": 7200}},
              {"name": "d", "schema": "type T @model { id: ID! }", "authorizationModes": ["AWS_LAMBDA"],
               "lambdaAuthorizer": {"timeoutSeconds": 0}}
            ]}
            """))
        #expect(message.contains("apis[0].lambdaAuthorizer: AWS_LAMBDA needs a function"), "\(message)")
        #expect(message.contains("apis[1].lambdaAuthorizer.command: must be an array of strings, not a string"), "\(message)")
        // A function with a bad command is still a function: its other fields are checked, and the API is
        // not also said to lack one, nor its command reported twice.
        #expect(message.contains("apis[1].lambdaAuthorizer.timeoutSeconds: must be 1 to 60, not 600"), "\(message)")
        #expect(!message.contains("apis[1].lambdaAuthorizer: AWS_LAMBDA needs a function"), "\(message)")
        #expect(!message.contains("apis[1].lambdaAuthorizer.command: must name a program"), "\(message)")
        #expect(message.contains("apis[3].lambdaAuthorizer.command: is required"), "\(message)")
        #expect(message.contains("apis[3].lambdaAuthorizer.timeoutSeconds: must be 1 to 60, not 0"), "\(message)")
        #expect(!message.contains("apis[3].lambdaAuthorizer: AWS_LAMBDA needs a function"), "\(message)")
        #expect(message.contains("apis[2].lambdaAuthorizer.memory: unknown key"), "\(message)")
        #expect(message.contains("apis[2].lambdaAuthorizer: the API does not accept AWS_LAMBDA"), "\(message)")
        #expect(message.contains("apis[2].lambdaAuthorizer.resultTTLSeconds: must be 0 to 3600, not 7200"), "\(message)")
    }

    @Test func theDefaultStackServesTodo() throws {
        let configuration = LocalConfiguration.default(dataDirectory: "/unused")
        #expect(configuration.apis.map(\.name) == ["todo"])
        try configuration.validate()
        let authenticated = try #require(configuration.roles.first { $0.name == RoleDefinition.identityPoolAuthenticatedRole })
        #expect(authenticated.permissionPolicies.contains { $0.contains("arn:aws:execute-api:us-east-1:000000000000:todo/local/GET/*") })
    }
}
