public import AccessRules
import AsyncHTTPClient
public import Foundation
public import Logging
public import WIFAPIClient
import WIFCredentials
import WIFFoundation
import WIFHTTP
import WIFLocal

/// Calls an Amplify API as the signed-in user (or signed out, with what the API's configuration
/// gives): the sign-in's identity token for user pool and OIDC modes, its identity pool or role
/// credentials for IAM, the configured API key.
///
/// The API is found in a configuration file (`amplifyconfiguration.json` or `amplify_outputs.json`),
/// or, without one, in the `amplify_outputs.json` the target stack publishes at
/// `/.well-known/amplify_outputs.json`: the embedded stack, or the one at the configured endpoint.
public enum SignedInAPI {
    /// One call. Its `description` leaves out the body and the Lambda token.
    public struct Call: Sendable, CustomStringConvertible {
        /// The API's name.
        public var api: String
        /// A configuration file's bytes, or `nil` to ask the target stack.
        public var configuration: [UInt8]?
        /// The configuration file's name, for messages.
        public var configurationName: String?
        /// The method.
        public var method: String
        /// The path below the API's URL.
        public var path: String
        /// The body.
        public var body: [UInt8]
        /// Extra headers: custom headers, set after the mode's authorization, which they may replace.
        public var headers: [(name: String, value: String)]
        /// How to choose the mode.
        public var modes: Modes
        /// The custom token for `AWS_LAMBDA`.
        public var lambdaToken: String?

        /// How a call chooses its mode.
        public enum Modes: Sendable {
            /// The API's default mode.
            case apiDefault
            /// One mode.
            case one(APIAuthorizationMode)
            /// Multi-auth for a model and operation, from the API's published rules.
            case multiAuth(model: String, operation: ModelOperation)
        }

        /// Creates a call.
        public init(
            api: String, configuration: [UInt8]?, method: String, path: String, body: [UInt8] = [], headers: [(name: String, value: String)] = [],
            modes: Modes = .apiDefault, lambdaToken: String? = nil, configurationName: String? = nil
        ) {
            self.api = api
            self.configuration = configuration
            self.configurationName = configurationName
            self.method = method
            self.path = path
            self.body = body
            self.headers = headers
            self.modes = modes
            self.lambdaToken = lambdaToken
        }

        /// The API, method and path; never the body, headers or token.
        public var description: String {
            "SignedInAPI.Call(\(self.api) \(self.method) \(self.path)\(self.lambdaToken == nil ? "" : ", lambdaToken: <redacted>"))"
        }
    }

    /// Sends a call.
    /// - Parameters:
    ///   - call: The call.
    ///   - configuration: The tool's settings.
    ///   - environment: The process environment (`WIF_PASSPHRASE`, `WIF_KEY_FILE`).
    ///   - logger: Where to log: each attempt's mode and outcome, never a credential.
    /// - Returns: The answer, with the mode that answered and every attempt.
    /// - Throws: ``FileStoreError`` for an unknown API or configuration problem; ``APIClientError`` when no
    ///   mode had credentials or the API cannot be reached.
    public static func send(
        _ call: Call, configuration: ToolConfiguration, environment: [String: String], logger: Logger
    ) async throws -> APIResult {
        var signedIn: (session: StoredSession, store: SessionStore, configuration: ToolConfiguration)?
        do {
            signedIn = try StoreRuntime.signedInSession(configuration, environment: environment)
        } catch let error as FileStoreError where error.code == .signInRequired {
            signedIn = nil
        }
        let target = signedIn?.configuration ?? configuration
        return try await StoreRuntime.withTarget(target, logger: logger) { context in
            let document: [UInt8]
            if let given = call.configuration {
                document = given
            } else {
                document = try await Self.publishedOutputs(context, api: call.api)
            }
            let source = call.configurationName ?? "published by \(context.local != nil ? "the embedded local stack" : context.s3Endpoint.absoluteString)"
            let endpoint: APIEndpoint
            do {
                endpoint = try AmplifyAPIConfiguration.endpoint(named: call.api, in: document)
            } catch {
                throw FileStoreError(.invalidSetting, Self.describe(error, in: source))
            }
            var credentials = APIClientCredentials()
            credentials.lambdaTokens = call.lambdaToken.map { StaticAPIToken($0) }
            if let (session, store, settings) = signedIn {
                let federation = try context.federation(
                    roleArn: session.roleArn, bucket: session.bucket, partitionTemplate: session.partitionTemplate, stsRegion: session.region)
                let provider = SessionCredentials(
                    session: session, store: store, account: settings.account, federation: federation, httpClient: context.httpClient,
                    identityPool: session.identityPool.map { IdentityPoolSignIn.Connection(context, stored: $0.endpoint) })
                credentials.iam = provider
                // The sign-in's token, read once for the command's one call; an expired one says to sign in again.
                if let value = try await provider.webIdentityToken(logger: logger) {
                    let token = StaticAPIToken(value)
                    let issuer = UnverifiedJWTClaims(token: value)?.issuer ?? ""
                    if ProviderProfile.keyPrefix(ofIssuer: issuer).hasPrefix("cognito-idp.") {
                        credentials.userPoolTokens = token
                    } else {
                        credentials.oidcTokens = token
                    }
                }
            }
            let modes: [APIAuthorizationMode]
            switch call.modes {
            case .apiDefault: modes = [endpoint.defaultMode]
            case .one(let mode): modes = [mode]
            case .multiAuth(let model, let operation):
                let rules: RuleSet?
                do {
                    rules = try AmplifyAPIConfiguration.rules(in: document)
                } catch {
                    throw FileStoreError(.invalidSetting, Self.describe(error, in: source))
                }
                guard let rules else {
                    throw FileStoreError(.invalidSetting, "the API configuration \(source) has no model introspection to choose modes from")
                }
                guard rules.models[model] != nil else {
                    throw FileStoreError(
                        .invalidSetting, "the API has no model '\(model)'; it has \(rules.models.keys.sorted().joined(separator: ", "))")
                }
                let isSignedIn = credentials.userPoolTokens != nil || credentials.oidcTokens != nil
                modes = MultiAuthOrder.modes(ruleSet: rules, model: model, operation: operation, signedIn: isSignedIn)
            }
            // The command's headers are custom headers, set after the mode's authorization as Amplify sets
            // them, so `-H 'x-api-key: …'` is the key sent.
            let client = APIClient(endpoint: endpoint, credentials: credentials, customHeaders: call.headers)
            return try await client.send(call.method, call.path, body: call.body, modes: modes, logger: logger)
        }
    }

    /// `the API configuration FILE PATH (line L, column C): message`, the path left out for the whole
    /// document.
    static func describe(_ error: any Error, in file: String) -> String {
        guard let error = error as? APIConfigurationError else { return "the API configuration \(file): \(error)" }
        var text = "the API configuration \(file)"
        if !error.path.isEmpty { text += " " + error.path }
        if let line = error.line, let column = error.column { text += " (line \(line), column \(column))" }
        return text + ": " + error.message
    }

    /// The `amplify_outputs.json` the target stack publishes about `api`.
    static func publishedOutputs(_ context: StoreContext, api: String) async throws -> [UInt8] {
        let base = context.local.flatMap { URL(string: $0.url) } ?? context.s3Endpoint
        var components = URLComponents(url: base.appendingPathComponent(".well-known/amplify_outputs.json"), resolvingAgainstBaseURL: false)
        components?.queryItems = [URLQueryItem(name: "api", value: api)]
        guard let url = components?.url else { throw FileStoreError(.invalidSetting, "cannot build the configuration URL from \(base)") }
        let request = TransportRequest(
            url: url, method: "GET", headers: [("Accept", "application/json"), ("User-Agent", SwiftWIFVersion.userAgent())])
        let response: TransportResponse
        do {
            response = try await AsyncHTTPClientTransport(httpClient: context.httpClient).send(
                request, timeout: .seconds(30), maximumBodyBytes: 4 << 20, logger: .noop)
        } catch {
            throw FileStoreError(.unreachable, "cannot read the API configuration from \(base): \(TransportFailure.reason(error))")
        }
        let body = response.body
        guard response.status == 200 else {
            let stack = context.local != nil ? "the embedded local stack" : base.absoluteString
            let reason = (try? JSONParser.parse(body))?.member("message")?.stringValue ?? "it answered HTTP \(response.status)"
            throw FileStoreError(.invalidSetting, "\(stack) publishes no configuration for API '\(api)': \(reason); give --config FILE")
        }
        return body
    }
}
