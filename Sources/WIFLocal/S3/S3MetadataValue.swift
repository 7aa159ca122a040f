import WIFFoundation

/// User metadata values (`x-amz-meta-*`) as S3 carries them in headers: encoded-words (RFC 2047,
/// `=?UTF-8?B?…?=`) are decoded before a value is stored, and a stored value that is not printable
/// US-ASCII is sent back as one `=?UTF-8?B?…?=` word, so every value survives the trip through HTTP
/// headers byte for byte.
enum S3MetadataValue {
    /// The value to store for a header value as received.
    /// - Parameter value: The header value (the HTTP server reads header bytes as UTF-8).
    /// - Returns: The decoded value of a value made only of encoded-words, else the value itself; `nil`
    ///   when the value held bytes that are not UTF-8, which the server could not keep (they arrive as
    ///   U+FFFD).
    static func stored(_ value: String) -> String? {
        if value.unicodeScalars.contains("\u{FFFD}") { return nil }
        return EncodedWords.decode(value) ?? value
    }

    /// The header value that carries a stored value.
    static func header(_ value: String) -> String {
        EncodedWords.encodeIfNeeded(value)
    }
}
