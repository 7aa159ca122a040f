/// The query parameters of an S3 request, percent-decoded once, in order.
///
/// A parameter without `=` (`?uploads`) has an empty value; `+` stands for a space, as in forms.
struct S3Query: Sendable, Hashable {
    /// The parameters in the order sent.
    var parameters: [(name: String, value: String)]

    init(_ parameters: [(name: String, value: String)] = []) {
        self.parameters = parameters
    }

    /// Parses a raw query string.
    /// - Parameter raw: The text after `?`, still encoded; `nil` for none.
    /// - Throws: `InvalidURI` for a malformed escape.
    init(raw: String?) throws(AWSErrorResponse) {
        var parameters: [(name: String, value: String)] = []
        if let raw, !raw.isEmpty {
            for pair in raw.split(separator: "&", omittingEmptySubsequences: true) {
                let equals = pair.firstIndex(of: "=")
                let rawName = equals.map { pair[..<$0] } ?? pair
                let rawValue = equals.map { pair[pair.index(after: $0)...] } ?? ""
                guard let name = S3PercentDecoding.decode(rawName, plusIsSpace: true),
                    let value = S3PercentDecoding.decode(rawValue, plusIsSpace: true)
                else { throw S3Errors.invalidURI("?" + raw) }
                parameters.append((name, value))
            }
        }
        self.parameters = parameters
    }

    /// The first value of a parameter.
    subscript(name: String) -> String? {
        self.parameters.first { $0.name == name }?.value
    }

    /// Whether the parameter is present, with or without a value.
    func has(_ name: String) -> Bool {
        self.parameters.contains { $0.name == name }
    }

    static func == (lhs: S3Query, rhs: S3Query) -> Bool {
        lhs.parameters.elementsEqual(rhs.parameters) { $0.name == $1.name && $0.value == $1.value }
    }

    func hash(into hasher: inout Hasher) {
        for (name, value) in self.parameters {
            hasher.combine(name)
            hasher.combine(value)
        }
    }
}
