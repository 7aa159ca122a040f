/// The package's version: what `wif-tool --version` prints, and what every request the package sends
/// names in its `User-Agent`, so that a server's logs tell which release called.
package enum SwiftWIFVersion {
    /// The version, `MAJOR.MINOR.PATCH`.
    package static let current = "0.1.0"

    /// `swift-wif/<version>`, or `swift-wif-<component>/<version>` for a part that calls on its own
    /// (`s3`, `rgw`).
    package static func userAgent(_ component: String? = nil) -> String {
        let product = component.map { "swift-wif-" + $0 } ?? "swift-wif"
        return product + "/" + Self.current
    }
}
