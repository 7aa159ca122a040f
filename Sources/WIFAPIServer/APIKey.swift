public import Foundation

/// An API key an API accepts in `x-api-key`, with the date it stops working.
public struct APIKey: Sendable, Hashable, CustomStringConvertible {
    /// A name for logs and errors (the key's id in AppSync), never the value.
    public var name: String
    /// The key sent in `x-api-key`.
    public var value: String
    /// When the key stops working; `nil` for never.
    public var expires: Date?

    /// Creates a key.
    /// - Parameters:
    ///   - name: Its name.
    ///   - value: The key itself.
    ///   - expires: When it stops working.
    public init(name: String, value: String, expires: Date? = nil) {
        self.name = name
        self.value = value
        self.expires = expires
    }

    /// The name and expiry only; the value is never printed.
    public var description: String {
        "APIKey(name: \(self.name), value: <redacted>\(self.expires.map { ", expires: \($0)" } ?? ""))"
    }
}

extension APIKey: CustomReflectable {
    /// No children: `dump` and `Mirror(reflecting:)` would otherwise list the stored secrets that
    /// ``description`` leaves out.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
