import Foundation

/// An OpenID Connect discovery document (OpenID Connect Discovery 1.0 §3, RFC 8414 and RFC 8628 §4):
/// the issuer identifier and where its endpoints and keys are.
///
/// Members this client does not use are ignored. Endpoint members must be absolute URLs; a document
/// whose member is not is refused with the member's name.
public struct OIDCProviderMetadata: Codable, Sendable, Hashable {
    /// The issuer identifier: the `iss` of its ID tokens.
    public var issuer: String
    /// The authorization endpoint, for browser sign-in.
    public var authorizationEndpoint: URL?
    /// The token endpoint.
    public var tokenEndpoint: URL?
    /// The device authorization endpoint (RFC 8628).
    public var deviceAuthorizationEndpoint: URL?
    /// The revocation endpoint (RFC 7009).
    public var revocationEndpoint: URL?
    /// The JSON Web Key Set that verifies ID tokens.
    public var jwksURI: URL?
    /// The UserInfo endpoint.
    public var userinfoEndpoint: URL?
    /// `response_types_supported`.
    public var responseTypesSupported: [String]?
    /// `grant_types_supported`.
    public var grantTypesSupported: [String]?
    /// `code_challenge_methods_supported` (PKCE, RFC 7636).
    public var codeChallengeMethodsSupported: [String]?
    /// `scopes_supported`.
    public var scopesSupported: [String]?
    /// `token_endpoint_auth_methods_supported`.
    public var tokenEndpointAuthMethodsSupported: [String]?
    /// `id_token_signing_alg_values_supported`.
    public var idTokenSigningAlgValuesSupported: [String]?

    /// Creates a document.
    /// - Parameters:
    ///   - issuer: The issuer identifier.
    ///   - authorizationEndpoint: The authorization endpoint.
    ///   - tokenEndpoint: The token endpoint.
    ///   - deviceAuthorizationEndpoint: The device authorization endpoint.
    ///   - revocationEndpoint: The revocation endpoint.
    ///   - jwksURI: The JWKS URL.
    ///   - userinfoEndpoint: The UserInfo endpoint.
    ///   - responseTypesSupported: Supported response types.
    ///   - grantTypesSupported: Supported grant types.
    ///   - codeChallengeMethodsSupported: Supported PKCE methods.
    ///   - scopesSupported: Supported scopes.
    ///   - tokenEndpointAuthMethodsSupported: Supported client authentication methods.
    ///   - idTokenSigningAlgValuesSupported: Algorithms of ID token signatures.
    public init(
        issuer: String,
        authorizationEndpoint: URL? = nil,
        tokenEndpoint: URL? = nil,
        deviceAuthorizationEndpoint: URL? = nil,
        revocationEndpoint: URL? = nil,
        jwksURI: URL? = nil,
        userinfoEndpoint: URL? = nil,
        responseTypesSupported: [String]? = nil,
        grantTypesSupported: [String]? = nil,
        codeChallengeMethodsSupported: [String]? = nil,
        scopesSupported: [String]? = nil,
        tokenEndpointAuthMethodsSupported: [String]? = nil,
        idTokenSigningAlgValuesSupported: [String]? = nil
    ) {
        self.issuer = issuer
        self.authorizationEndpoint = authorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.deviceAuthorizationEndpoint = deviceAuthorizationEndpoint
        self.revocationEndpoint = revocationEndpoint
        self.jwksURI = jwksURI
        self.userinfoEndpoint = userinfoEndpoint
        self.responseTypesSupported = responseTypesSupported
        self.grantTypesSupported = grantTypesSupported
        self.codeChallengeMethodsSupported = codeChallengeMethodsSupported
        self.scopesSupported = scopesSupported
        self.tokenEndpointAuthMethodsSupported = tokenEndpointAuthMethodsSupported
        self.idTokenSigningAlgValuesSupported = idTokenSigningAlgValuesSupported
    }

    enum CodingKeys: String, CodingKey {
        case issuer
        case authorizationEndpoint = "authorization_endpoint"
        case tokenEndpoint = "token_endpoint"
        case deviceAuthorizationEndpoint = "device_authorization_endpoint"
        case revocationEndpoint = "revocation_endpoint"
        case jwksURI = "jwks_uri"
        case userinfoEndpoint = "userinfo_endpoint"
        case responseTypesSupported = "response_types_supported"
        case grantTypesSupported = "grant_types_supported"
        case codeChallengeMethodsSupported = "code_challenge_methods_supported"
        case scopesSupported = "scopes_supported"
        case tokenEndpointAuthMethodsSupported = "token_endpoint_auth_methods_supported"
        case idTokenSigningAlgValuesSupported = "id_token_signing_alg_values_supported"
    }

    /// Reads a document; endpoint members are read as text and must be absolute URLs.
    /// - Throws: `DecodingError` naming the member that is missing or malformed.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func url(_ key: CodingKeys) throws -> URL? {
            guard let text = try container.decodeIfPresent(String.self, forKey: key) else { return nil }
            guard let url = URL(string: text), url.scheme != nil, url.host != nil else {
                throw DecodingError.dataCorruptedError(
                    forKey: key, in: container, debugDescription: "\(key.rawValue) '\(text.prefix(200))' is not an absolute URL")
            }
            return url
        }
        func strings(_ key: CodingKeys) -> [String]? {
            // A malformed list of capabilities is treated as absent rather than failing discovery.
            (try? container.decodeIfPresent([String].self, forKey: key)) ?? nil
        }
        self.issuer = try container.decode(String.self, forKey: .issuer)
        self.authorizationEndpoint = try url(.authorizationEndpoint)
        self.tokenEndpoint = try url(.tokenEndpoint)
        self.deviceAuthorizationEndpoint = try url(.deviceAuthorizationEndpoint)
        self.revocationEndpoint = try url(.revocationEndpoint)
        self.jwksURI = try url(.jwksURI)
        self.userinfoEndpoint = try url(.userinfoEndpoint)
        self.responseTypesSupported = strings(.responseTypesSupported)
        self.grantTypesSupported = strings(.grantTypesSupported)
        self.codeChallengeMethodsSupported = strings(.codeChallengeMethodsSupported)
        self.scopesSupported = strings(.scopesSupported)
        self.tokenEndpointAuthMethodsSupported = strings(.tokenEndpointAuthMethodsSupported)
        self.idTokenSigningAlgValuesSupported = strings(.idTokenSigningAlgValuesSupported)
    }

    /// Decodes a discovery document fetched from `source`.
    /// - Parameters:
    ///   - bytes: The document.
    ///   - source: Where it came from, for messages.
    /// - Returns: The document.
    /// - Throws: ``WIFCredentialsError`` with code `malformedResponse` naming the problem.
    public static func decode(_ bytes: [UInt8], source: String) throws(WIFCredentialsError) -> OIDCProviderMetadata {
        do {
            return try JSONDecoder().decode(OIDCProviderMetadata.self, from: Data(bytes))
        } catch let DecodingError.keyNotFound(key, _) {
            throw .malformedResponse("the discovery document at \(source) has no '\(key.stringValue)'")
        } catch let DecodingError.dataCorrupted(context) {
            throw .malformedResponse("the discovery document at \(source) is not valid: \(context.debugDescription)")
        } catch let DecodingError.typeMismatch(_, context) {
            let member = context.codingPath.map(\.stringValue).joined(separator: ".")
            throw .malformedResponse("the discovery document at \(source) has a '\(member)' of the wrong type")
        } catch {
            throw .malformedResponse("the discovery document at \(source) is not a JSON object: \(error)")
        }
    }

    /// This document with the configuration's explicit endpoints put over the discovered ones.
    func overridden(by endpoints: OAuth2ClientConfiguration.Endpoints) -> OIDCProviderMetadata {
        var result = self
        if let url = endpoints.authorization { result.authorizationEndpoint = url }
        if let url = endpoints.token { result.tokenEndpoint = url }
        if let url = endpoints.deviceAuthorization { result.deviceAuthorizationEndpoint = url }
        if let url = endpoints.revocation { result.revocationEndpoint = url }
        if let url = endpoints.jwks { result.jwksURI = url }
        return result
    }
}
