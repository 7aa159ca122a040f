/// A `Range` header of a `GET`: `bytes=a-b`, `bytes=a-` or `bytes=-n`.
///
/// S3 serves a single range. A header it cannot parse, or one asking for several ranges, is ignored and the
/// whole object returned; a well-formed range that does not fit the object is `InvalidRange` (416).
struct ByteRange: Sendable, Hashable, CustomStringConvertible {
    enum Kind: Sendable, Hashable {
        /// `bytes=first-last`, `last` `nil` for "to the end".
        case from(Int64, through: Int64?)
        /// `bytes=-count`: the last `count` bytes.
        case suffix(Int64)
    }

    /// The form of the range.
    let kind: Kind

    /// `bytes=first-last` (`last` `nil` for "to the end").
    static func from(_ first: Int64, through last: Int64? = nil) -> ByteRange { ByteRange(kind: .from(first, through: last)) }
    /// `bytes=-count`.
    static func suffix(_ count: Int64) -> ByteRange { ByteRange(kind: .suffix(count)) }

    private init(kind: Kind) {
        self.kind = kind
    }

    /// Parses a `Range` header; `nil` when the header is not a single well-formed byte range, in which case
    /// S3 ignores it.
    init?(header: String) {
        let text = header.trimmingSpaces
        guard text.hasPrefix("bytes=") else { return nil }
        let spec = text.dropFirst("bytes=".count)
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return nil }
        let firstText = spec[..<dash].trimmingSpaces
        let lastText = spec[spec.index(after: dash)...].trimmingSpaces
        if firstText.isEmpty {
            guard let count = Int64(decimalDigits: lastText) else { return nil }
            self.kind = .suffix(count)
        } else {
            guard let first = Int64(decimalDigits: firstText) else { return nil }
            if lastText.isEmpty {
                self.kind = .from(first, through: nil)
            } else {
                guard let last = Int64(decimalDigits: lastText), last >= first else { return nil }
                self.kind = .from(first, through: last)
            }
        }
    }

    var description: String {
        switch self.kind {
        case .from(let first, let last): "bytes=\(first)-\(last.map(String.init) ?? "")"
        case .suffix(let count): "bytes=-\(count)"
        }
    }

    /// The bytes the range selects in an object of the given size.
    /// - Returns: The first and last byte offsets, inclusive.
    /// - Throws: `InvalidRange` when no byte of the object is selected.
    func resolve(size: Int64) throws(AWSErrorResponse) -> ClosedRange<Int64> {
        switch self.kind {
        case .from(let first, let last):
            guard first < size else { throw ObjectStoreError.invalidRange(self.description, size: size) }
            return first...min(last ?? (size - 1), size - 1)
        case .suffix(let count):
            guard count > 0, size > 0 else { throw ObjectStoreError.invalidRange(self.description, size: size) }
            return max(0, size - count)...(size - 1)
        }
    }

}

extension Int64 {
    /// A count of bytes written as S3 writes one: decimal digits only, no sign or spaces; `nil` for
    /// anything else or a number too large.
    init?(decimalDigits text: some StringProtocol) {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }), let value = Int64(text) else {
            return nil
        }
        self = value
    }
}

extension StringProtocol {
    fileprivate var trimmingSpaces: Substring {
        var slice = Substring(self)
        while slice.first == " " { slice.removeFirst() }
        while slice.last == " " { slice.removeLast() }
        return slice
    }
}
