import WIFFoundation

extension AssumeRoleWithWebIdentityRequest {
    /// The query-API version this client speaks.
    static let apiVersion = "2011-06-15"

    /// The request's query-API parameters, in sending order.
    /// - Parameter webIdentityToken: The token to send. The returned list contains it: never log it.
    /// - Returns: Name–value pairs, not yet encoded.
    package func formParameters(webIdentityToken: String) -> [(name: String, value: String)] {
        var parameters: [(name: String, value: String)] = [
            ("Action", "AssumeRoleWithWebIdentity"),
            ("Version", Self.apiVersion),
            ("RoleArn", self.roleArn),
            ("RoleSessionName", self.roleSessionName),
            ("WebIdentityToken", webIdentityToken),
        ]
        if let providerId = self.providerId {
            parameters.append(("ProviderId", providerId))
        }
        if let durationSeconds = self.durationSeconds {
            parameters.append(("DurationSeconds", String(durationSeconds)))
        }
        if let policy = self.policy {
            parameters.append(("Policy", policy))
        }
        for (index, arn) in self.policyArns.enumerated() {
            // Query-API lists are 1-based.
            parameters.append(("PolicyArns.member.\(index + 1).arn", arn))
        }
        return parameters
    }

    /// The `application/x-www-form-urlencoded` body of the request.
    /// - Parameter webIdentityToken: The token to send. The body contains it: never log it.
    /// - Returns: The encoded body.
    package func formBody(webIdentityToken: String) -> [UInt8] {
        Array(PercentEncoding.form(self.formParameters(webIdentityToken: webIdentityToken)).utf8)
    }
}
