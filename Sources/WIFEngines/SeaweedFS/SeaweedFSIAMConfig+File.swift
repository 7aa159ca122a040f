import Foundation
import WIFFoundation

extension SeaweedFSIAMConfig {
    /// The config file's bytes: indented JSON whose members are always in the same order, so an unchanged
    /// configuration gives an unchanged file.
    /// - Returns: The file, ending with a newline.
    /// - Throws: ``EngineSetupError`` with code ``EngineSetupError/Code/invalidConfiguration`` naming the
    ///   setting that is wrong.
    package func fileContents() throws(EngineSetupError) -> Data {
        try self.validate()
        let permissionPolicy = try self.permissionPolicy()
        var writer = JSONWriter(pretty: true)
        writer.beginObject()
        writer.key("policies")
        writer.beginArray()
        writer.beginObject()
        writer.key("document")
        permissionPolicy.write(into: &writer)
        writer.member("name", self.policyName)
        writer.endObject()
        writer.endArray()

        writer.key("policy")
        writer.beginObject()
        writer.member("defaultEffect", "Deny")
        writer.member("storeType", "memory")
        writer.endObject()

        writer.key("roles")
        writer.beginArray()
        writer.beginObject()
        writer.key("attachedPolicies")
        writer.beginArray()
        writer.string(self.policyName)
        writer.endArray()
        writer.member("description", "Users of \(self.issuer.issuer); each keeps files under \(self.partitionTemplate) in \(self.bucket)")
        writer.member("roleArn", self.roleArn)
        writer.member("roleName", self.roleName)
        writer.key("trustPolicy")
        self.trustPolicy().write(into: &writer)
        writer.endObject()
        writer.endArray()

        writer.key("sts")
        self.writeSTS(into: &writer)
        writer.endObject()
        return Data((writer.output + "\n").utf8)
    }

    /// The `sts` section: session lengths (in nanoseconds), the signing key and the one OIDC provider.
    private func writeSTS(into writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("issuer", "seaweedfs-sts")
        writer.member("maxSessionLength", self.maximumSessionSeconds * 1_000_000_000)
        writer.key("providers")
        writer.beginArray()
        writer.beginObject()
        writer.key("config")
        writer.beginObject()
        writer.member("clientId", self.issuer.clientId)
        writer.member("issuer", self.issuer.issuer)
        writer.member("jwksUri", self.issuer.jwksURI)
        writer.endObject()
        writer.member("enabled", true)
        writer.member("name", self.providerName)
        writer.member("type", "oidc")
        writer.endObject()
        writer.endArray()
        writer.member("signingKey", self.signingKey)
        writer.member("tokenDuration", self.sessionSeconds * 1_000_000_000)
        writer.endObject()
    }

    /// The STS signing key of an existing config file, if it has a usable one.
    /// - Parameter data: The file's bytes.
    /// - Returns: The key, base64, or `nil` when the file is not JSON or has no key of at least 32 bytes.
    package static func existingSigningKey(in data: Data) -> String? {
        guard let root = try? JSONParser.parse(Array(data)), let key = root.member("sts")?.member("signingKey")?.stringValue,
            let bytes = Data(base64Encoded: key), bytes.count >= 32
        else { return nil }
        return key
    }

    /// A fresh signing key: 32 random bytes, base64.
    package static func newSigningKey() -> String {
        Data(SecureRandom.bytes(32)).base64EncodedString()
    }
}
