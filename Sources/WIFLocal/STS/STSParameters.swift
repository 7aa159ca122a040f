import HTTPTypes
import Hummingbird
import WIFFoundation
import WIFAPIServer

/// The parameters of an STS query-API call: those of the URL's query, then those of an
/// `application/x-www-form-urlencoded` body. The first value of a name wins.
struct STSParameters: Sendable {
    private var values: [String: String] = [:]

    /// Reads a request's query and, for a form body, its body.
    /// - Parameters:
    ///   - request: The request.
    ///   - body: The body as received.
    init(request: Request, body: ByteBuffer) {
        let query = RequestAuthenticator.split(request.head.path ?? "/").query
        if !query.isEmpty { self.add(PercentEncoding.parameters(query, plusIsSpace: true)) }
        if body.readableBytes > 0, Self.isForm(request.headers.value(of: .contentType)) {
            self.add(PercentEncoding.parameters(String(buffer: body), plusIsSpace: true))
        }
    }

    /// Parameters given directly, for tests.
    init(_ pairs: [(name: String, value: String)]) {
        self.add(pairs)
    }

    private mutating func add(_ pairs: [(name: String, value: String)]) {
        for (name, value) in pairs where self.values[name] == nil {
            self.values[name] = value
        }
    }

    /// Whether a `Content-Type` is a form (`application/x-www-form-urlencoded`, with or without a charset).
    static func isForm(_ contentType: String?) -> Bool {
        guard var contentType else { return false }
        let form = "application/x-www-form-urlencoded".utf8
        return contentType.withUTF8 { bytes in
            var start = 0
            var end = bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.count
            while start < end, bytes[start] == UInt8(ascii: " ") { start += 1 }
            while end > start, bytes[end - 1] == UInt8(ascii: " ") { end -= 1 }
            guard end - start == form.count else { return false }
            // ASCII case folding: the name is ASCII, so any other byte fails to match it anyway.
            var index = start
            for expected in form {
                let byte = bytes[index]
                if (byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) != expected { return false }
                index += 1
            }
            return true
        }
    }

    /// The value of a parameter.
    subscript(_ name: String) -> String? {
        self.values[name]
    }

    /// The members of a query-API list, `Name.member.1.field`, `Name.member.2.field`…, ordered by their
    /// number.
    /// - Parameters:
    ///   - name: The list's name, such as `PolicyArns`.
    ///   - field: The member's field, such as `arn`.
    /// - Returns: The values in member order.
    func list(_ name: String, field: String) -> [String] {
        let prefix = "\(name).member."
        let suffix = ".\(field)"
        var members: [(Int, String)] = []
        for (key, value) in self.values where key.hasPrefix(prefix) && key.hasSuffix(suffix) {
            let number = key.dropFirst(prefix.count).dropLast(suffix.count)
            if let index = Int(number), index >= 1 { members.append((index, value)) }
        }
        return members.sorted { $0.0 < $1.0 }.map(\.1)
    }
}
