import AccessRules
import Foundation
import Testing
import WIFAPIClient

/// Amplify's configuration files, in the shapes its documentation gives, and the errors of bad ones.
@Suite struct APIConfigurationTests {
    /// A Gen 1 `amplifyconfiguration.json` with a GraphQL API on API keys and a REST API on IAM, beside
    /// the other categories such a file holds.
    static let gen1 = """
        {
            "UserAgent": "aws-amplify-cli/2.0",
            "Version": "1.0",
            "api": {
                "plugins": {
                    "awsAPIPlugin": {
                        "todoapi": {
                            "endpointType": "GraphQL",
                            "endpoint": "https://aaaaaaaaaaaaaaaaaaaaaaaaaa.appsync-api.us-east-1.amazonaws.com/graphql",
                            "region": "us-east-1",
                            "authorizationType": "API_KEY",
                            "apiKey": "da2-xxxxxxxxxxxxxxxxxxxxxxxxxx"
                        },
                        "items": {
                            "endpointType": "REST",
                            "endpoint": "https://aaaaaaaaaa.execute-api.us-east-1.amazonaws.com/api",
                            "region": "us-east-1",
                            "authorizationType": "AWS_IAM"
                        }
                    }
                }
            },
            "auth": {"plugins": {"awsCognitoAuthPlugin": {"IdentityManager": {"Default": {}}}}}
        }
        """

    /// A Gen 2 `amplify_outputs.json` with a data API in three modes and a custom REST API.
    static let gen2 = """
        {
          "auth": {
            "user_pool_id": "us-east-1_abcd1234",
            "aws_region": "us-east-1",
            "user_pool_client_id": "abcdefghij1234567890",
            "identity_pool_id": "us-east-1:00000000-0000-0000-0000-000000000000",
            "unauthenticated_identities_enabled": true
          },
          "data": {
            "url": "https://abcdefghij1234567890.appsync-api.us-east-1.amazonaws.com/graphql",
            "aws_region": "us-east-1",
            "api_key": "da2-abcdefghij1234567890",
            "default_authorization_type": "AMAZON_COGNITO_USER_POOLS",
            "authorization_types": ["API_KEY", "AWS_IAM"]
          },
          "custom": {
            "API": {
              "myRestApi": {"endpoint": "https://abcdefghij.execute-api.us-east-1.amazonaws.com/prod/", "region": "us-east-1", "apiName": "myRestApi"}
            }
          },
          "version": "1"
        }
        """

    @Test func gen1FilesNameEachAPI() throws {
        let endpoints = try AmplifyAPIConfiguration.read(Array(Self.gen1.utf8))
        #expect(endpoints.map(\.name) == ["todoapi", "items"])
        let graphQL = try AmplifyAPIConfiguration.endpoint(named: "todoapi", in: Array(Self.gen1.utf8))
        #expect(graphQL.kind == .graphQL)
        #expect(graphQL.defaultMode == .apiKey)
        #expect(graphQL.apiKey == "da2-xxxxxxxxxxxxxxxxxxxxxxxxxx")
        #expect(graphQL.signingService == "appsync")
        let rest = try AmplifyAPIConfiguration.endpoint(named: "items", in: Array(Self.gen1.utf8))
        #expect(rest.signingService == "execute-api")
        #expect(rest.defaultMode == .iam)
    }

    @Test func gen2FilesHaveTheDataAPIAndCustomRESTAPIs() throws {
        let endpoints = try AmplifyAPIConfiguration.read(Array(Self.gen2.utf8))
        #expect(endpoints.map(\.name) == ["data", "myRestApi"])
        #expect(endpoints[0].modes == [.userPools, .apiKey, .iam])
        #expect(endpoints[0].kind == .graphQL)
        #expect(endpoints[1].url.host == "abcdefghij.execute-api.us-east-1.amazonaws.com")
    }

    @Test(arguments: [
        (#"{"api":{"plugins":{"awsAPIPlugin":{"x":{"endpointType":"GraphQL","endpoint":"https://a.example/graphql","region":"us-east-1","authorizationType":"API_KEYS"}}}}}"#,
            "api.plugins.awsAPIPlugin.x.authorizationType", "unknown authorization type 'API_KEYS'"),
        (#"{"api":{"plugins":{"awsAPIPlugin":{"x":{"endpointType":"GraphQL","endpoint":"https://a.example/graphql","region":"us-east-1","authorizationType":"API_KEY"}}}}}"#,
            "api.plugins.awsAPIPlugin.x", "needs apiKey"),
        (#"{"api":{"plugins":{"awsAPIPlugin":{"x":{"endpointType":"SOAP"}}}}}"#, "api.plugins.awsAPIPlugin.x.endpointType", "GraphQL or REST"),
        (#"{"data":{"url":"ftp://nope","aws_region":"us-east-1","default_authorization_type":"AWS_IAM"}}"#, "data.url", "not an http"),
        (#"{"data":{"url":"https://a.example/graphql","aws_region":"us-east-1","default_authorization_type":"AWS_IAM","authorization_types":["AWS_IAM", 7]}}"#,
            "data.authorization_types[1]", "must be a string"),
        (#"{"version":"1","data":{"url":"https://a.example/graphql","aws_region":"us-east-1"}}"#, "data", "needs default_authorization_type"),
    ])
    func badFilesNameThePath(text: String, path: String, message: String) {
        do {
            _ = try AmplifyAPIConfiguration.read(Array(text.utf8))
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.path == path)
            #expect(error.message.contains(message), "\(error.message)")
            #expect(error.line == 1)
        }
    }

    @Test func syntaxErrorsHaveALineAndColumn() {
        do {
            _ = try AmplifyAPIConfiguration.read(Array("{\n  \"api\": {,}\n}".utf8))
            Issue.record("accepted broken JSON")
        } catch {
            #expect(error.line == 2)
            #expect(error.description.contains("line 2"))
        }
    }

    @Test func anUnknownAPIListsTheKnownOnes() {
        do {
            _ = try AmplifyAPIConfiguration.endpoint(named: "nope", in: Array(Self.gen1.utf8))
            Issue.record("found nope")
        } catch {
            #expect(error.message.contains("todoapi, items"))
        }
    }
}
