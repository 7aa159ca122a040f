import WIFFoundation

/// The parameters of an OAuth request, from a query or an `application/x-www-form-urlencoded` body.
///
/// A parameter sent with an empty value counts as omitted, and one sent twice is remembered so the
/// request can be refused (RFC 6749 §3.1, §3.2).
struct OAuthForm: Sendable {
    private var values: [String: String] = [:]
    /// The names given more than once, in order of their second appearance.
    private(set) var repeated: [String] = []

    /// Reads encoded text (`a=1&b=2`, `+` is a space).
    init(encoded text: some StringProtocol) {
        self.init(PercentEncoding.parameters(text, plusIsSpace: true))
    }

    /// Parameters already decoded.
    init(_ pairs: [(name: String, value: String)]) {
        for (name, value) in pairs where !value.isEmpty {
            if self.values[name] == nil {
                self.values[name] = value
            } else if !self.repeated.contains(name) {
                self.repeated.append(name)
            }
        }
    }

    /// The value of a parameter, `nil` when absent or empty.
    subscript(_ name: String) -> String? {
        self.values[name]
    }

    /// The error for the first repeated parameter among `names`, if any.
    func repetition(among names: [String]) -> OAuthError? {
        guard let name = self.repeated.first(where: names.contains) else { return nil }
        return .invalidRequest("the parameter \(name) is given more than once")
    }

    /// Every parameter, sorted by name, for carrying a request through an HTML form.
    var all: [(name: String, value: String)] {
        self.values.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }
}
