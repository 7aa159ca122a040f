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
        Array(STSFormEncoding.encode(self.formParameters(webIdentityToken: webIdentityToken)).utf8)
    }
}

/// Form encoding as AWS query APIs expect it: every byte outside the unreserved set
/// `A–Z a–z 0–9 - _ . ~` becomes `%XX` (upper-case hex, UTF-8), and a space is `%20`, never `+`.
package enum STSFormEncoding {
    /// Percent-encodes one name or value.
    /// - Parameter text: The text to encode.
    /// - Returns: The encoded text.
    package static func percentEncode(_ text: String) -> String {
        let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)
        var encoded: [UInt8] = []
        encoded.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if Self.isUnreserved(byte) {
                encoded.append(byte)
            } else {
                encoded.append(UInt8(ascii: "%"))
                encoded.append(hexDigits[Int(byte >> 4)])
                encoded.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: encoded, as: UTF8.self)
    }

    /// Joins name–value pairs as `name=value&name=value`, each percent-encoded.
    /// - Parameter parameters: The pairs, in order.
    /// - Returns: The encoded form.
    package static func encode(_ parameters: [(name: String, value: String)]) -> String {
        parameters.map { "\(Self.percentEncode($0.name))=\(Self.percentEncode($0.value))" }.joined(separator: "&")
    }

    static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
            UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }
}
