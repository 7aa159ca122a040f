import HTTPTypes
import WIFCredentials

/// The identity a request presents: `Authorization: Bearer <token>`, and for opaque access tokens
/// (Facebook, Login with Amazon) the provider they come from in `X-Provider-Id`.
///
/// The token is a credential: ``description`` never shows it.
struct BearerCredential: Sendable, Hashable, CustomStringConvertible {
    /// The header naming the OAuth 2.0 provider of an opaque access token (`graph.facebook.com`,
    /// `www.amazon.com`); ID tokens name their issuer themselves.
    static let providerIdHeader = HTTPField.Name("X-Provider-Id")!

    /// The identity provider's token, sent to STS as `WebIdentityToken`.
    let token: String
    /// The `ProviderId` sent with the token, for opaque access tokens.
    let providerId: String?

    /// Reads the credential of a request.
    /// - Parameter headers: The request's headers.
    /// - Throws: ``FileServerError`` `unauthorized` when there is no usable bearer token, or
    ///   `invalidRequest` for a malformed `X-Provider-Id`. Messages describe the problem, never the token.
    init(headers: HTTPFields) throws(FileServerError) {
        let values = headers[values: .authorization]
        guard let header = values.first else {
            throw .unauthorized("send the identity provider's token as 'Authorization: Bearer <token>'")
        }
        guard values.count == 1 else {
            throw .unauthorized("send one Authorization header, not \(values.count)")
        }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw .unauthorized("the Authorization header must use the Bearer scheme: 'Authorization: Bearer <token>'")
        }
        let token = parts[1].trimmingPrefix(while: { $0 == " " })
        let bounds = WebIdentityToken.minimumLength...WebIdentityToken.maximumLength
        guard bounds.contains(token.utf8.count) else {
            throw .unauthorized("the bearer token is \(token.utf8.count) bytes; a token is \(bounds.lowerBound) to \(bounds.upperBound)")
        }
        guard !token.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.properties.generalCategory == .control }) else {
            throw .unauthorized("the bearer token contains whitespace or control characters; a token is a single word")
        }
        self.token = String(token)

        let providers = headers[values: Self.providerIdHeader]
        guard providers.count <= 1 else {
            throw .invalidRequest("send one X-Provider-Id header, not \(providers.count)")
        }
        if let provider = providers.first {
            let lengths = AssumeRoleWithWebIdentityRequest.providerIdLengths
            guard lengths.contains(provider.utf8.count),
                provider.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F })
            else {
                throw .invalidRequest(
                    "X-Provider-Id must be \(lengths.lowerBound) to \(lengths.upperBound) printable ASCII characters, such as graph.facebook.com")
            }
            self.providerId = provider
        } else {
            self.providerId = nil
        }
    }

    /// The provider and the token's length; never the token.
    var description: String {
        "BearerCredential(\(self.token.utf8.count) bytes, providerId: \(self.providerId ?? "none"))"
    }
}
