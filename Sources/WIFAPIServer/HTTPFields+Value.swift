import HTTPTypes

extension HTTPFields {
    /// The value of a field, as the name subscript gives it, without copying it when the field occurs once
    /// (the subscript joins every occurrence into a new string, which for a session token or a signature
    /// header is a copy on every request).
    /// - Parameter name: The field's name.
    /// - Returns: The value, the occurrences joined as the subscript joins them, or `nil` when absent.
    package func value(of name: HTTPField.Name) -> String? {
        guard let first = self.firstIndex(where: { $0.name == name }) else { return nil }
        let rest = self.index(after: first)
        if self[rest...].contains(where: { $0.name == name }) { return self[name] }
        return self[first].value
    }
}
