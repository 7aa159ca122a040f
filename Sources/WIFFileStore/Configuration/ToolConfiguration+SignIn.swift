import Foundation

extension ToolConfiguration {
    /// The settings of a command that acts for `session`: with no endpoint of its own (no flag,
    /// `WIF_ENDPOINT` or config-file line), the sign-in's endpoint, STS endpoint, region and bucket, so
    /// that a user who signed in with `login --endpoint URL` need not repeat it; with one, these
    /// settings unchanged once the sign-in is found to be for the same target.
    /// - Parameters:
    ///   - session: The stored sign-in.
    /// - Returns: The settings to run with.
    /// - Throws: ``FileStoreError`` `signInRequired` when the command's own endpoint is not the one the
    ///   sign-in was made for, or the sign-in names an endpoint that is not a URL.
    public func forSignIn(_ session: StoredSession) throws(FileStoreError) -> ToolConfiguration {
        let hint = SignIn.loginHint(for: session, account: self.account)
        // The sign-in's folder is in its bucket, and without an endpoint of the command's own the sign-in's
        // region is used too. A bucket or region given on the command line would be answered from the
        // sign-in's, so it is refused rather than ignored; one from WIF_* or the config file is a default,
        // which the sign-in's overrides. (With an endpoint of its own, the command's region signs its S3
        // requests.)
        var named: [(String, String?, String?, String)] = [("bucket", self.bucket, self.bucketOrigin, session.bucket)]
        if self.endpointOrigin == nil { named.append(("region", self.region, self.regionOrigin, session.region)) }
        for (name, value, origin, stored) in named {
            guard let origin, origin.hasPrefix("--"), let value, value != stored else { continue }
            throw FileStoreError.signInRequired(
                "the stored sign-in is for \(name) '\(stored)', but this command uses '\(value)' (set by \(origin)); leave that out to use the sign-in's, or sign in again: \(hint)"
            )
        }
        if let origin = self.endpointOrigin {
            let target = self.target.identifier
            guard session.target == target else {
                throw FileStoreError.signInRequired(
                    "the stored sign-in is for \(StoreRuntime.describe(target: session.target)), but this command uses \(StoreRuntime.describe(target: target)) (set by \(origin)); leave that out to use the sign-in's, or sign in again: \(hint)"
                )
            }
            return self
        }
        var adopted = self
        adopted.region = session.region
        adopted.bucket = session.bucket
        if session.target == Self.embeddedName {
            adopted.target = .embedded(dataDirectory: self.home.appendingPathComponent("local"))
            return adopted
        }
        let origin = "the stored sign-in"
        do {
            let s3 = try Self.endpoint(Setting(value: session.target, origin: origin))
            let sts = try session.stsEndpoint.map { value throws(FileStoreError) in try Self.endpoint(Setting(value: value, origin: origin)) } ?? s3
            adopted.target = .remote(s3: s3, sts: sts)
        } catch {
            throw FileStoreError.signInRequired("\(error.message); sign in again: \(hint)")
        }
        return adopted
    }
}
