public import AccessRules
import Foundation
import WIFCredentials
import WIFFoundation

extension APIClient {
    /// Who the API's access rules will see when this client calls in `mode`: the claims of the mode's
    /// token (read here, verified by the server), the identity pool role for IAM, no identity for an API
    /// key, `nil` for `NONE` or a mode without credentials.
    /// - Parameter mode: The mode.
    /// - Returns: The caller.
    public func ruleCaller(mode: APIAuthorizationMode) async throws -> Caller? {
        switch mode {
        case .userPools, .oidc, .lambda:
            let provider = mode == .userPools ? self.credentials.userPoolTokens : mode == .oidc ? self.credentials.oidcTokens : self.credentials.lambdaTokens
            guard let provider else { return nil }
            let claims = Self.claims(ofToken: try await provider.latestToken())
            switch mode {
            case .userPools: return Caller(authMode: .userPools, claims: claims)
            case .oidc: return .oidc(claims: claims)
            default: return .function(claims: claims)
            }
        case .iam:
            guard self.credentials.iam != nil else { return nil }
            let signedIn = self.credentials.userPoolTokens != nil || self.credentials.oidcTokens != nil
            return .iam(signedIn ? .authenticated : .unauthenticated)
        case .apiKey:
            return self.credentials.apiKey ?? self.endpoint.apiKey == nil ? nil : .apiKey
        case .none:
            return nil
        }
    }

    /// Checks a save against the API's rules before sending it, with the evaluator the server runs, so
    /// a save that would be refused is known with its reason without a round trip.
    /// - Parameters:
    ///   - evaluator: The API's rules.
    ///   - model: The model.
    ///   - stored: The record as last read; `nil` for a create.
    ///   - changes: The whole new record, or an update's changed fields.
    ///   - mode: The mode the save will be sent in.
    /// - Returns: The decision; a denial's ``RuleDecision/explanation`` says why.
    public func checkSave(
        _ evaluator: RuleEvaluator, model: String, stored: Record?, changes: Record, mode: APIAuthorizationMode
    ) async throws -> RuleDecision {
        evaluator.checkSave(model: model, caller: try await self.ruleCaller(mode: mode), stored: stored, changes: changes)
    }

    /// The claims of a JWT's payload, unverified; none for a token that is not a JWT.
    static func claims(ofToken token: String) -> [String: ClaimValue] {
        let parts = token.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = TokenEncoding.decodeBase64URL(parts[1]),
            let node = try? JSONParser.parse(payload)
        else { return [:] }
        return ClaimValue.claims(of: node)
    }
}
