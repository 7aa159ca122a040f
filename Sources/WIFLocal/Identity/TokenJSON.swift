import Foundation
import WIFFoundation

/// A JSON value of a token's header or claims.
///
/// Token JSON is small and read on every `AssumeRoleWithWebIdentity`, so it is read with the package's
/// strict JSON reader instead of `JSONDecoder`, which rejects duplicate member names (RFC 7519 §4 lets a reader refuse them,
/// and accepting the last of two `sub` claims is how some forgeries slip past other checks), nesting
/// deeper than ``maximumDepth``, and anything after the value.
enum TokenJSON: Sendable, Equatable {
    case string(String)
    case number(Double)
    case bool(Bool)
    case null
    case array([TokenJSON])
    case object([String: TokenJSON])

    /// The deepest nesting accepted.
    static let maximumDepth = JSONParser.Options.token.maximumDepth

    /// Why some text is not acceptable JSON; says where, never quotes the text.
    struct SyntaxError: Error, Sendable, Equatable {
        var reason: String
    }

    /// Reads one JSON value that spans all of `bytes`, with surrounding white space.
    static func parse<Bytes: Collection>(_ bytes: Bytes) throws(SyntaxError) -> TokenJSON where Bytes.Element == UInt8 {
        let node: JSONNode
        do {
            node = try JSONParser.parse(Array(bytes), options: Self.options)
        } catch {
            // The reader's messages name keys and positions, never values.
            throw SyntaxError(reason: "\(error.message) at offset \(error.offset)")
        }
        return try TokenJSON(node)
    }

    private static let options = JSONParser.Options.token

    /// The members of an object.
    var objectValue: [String: TokenJSON]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// A string's value.
    var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// A number's value.
    var numberValue: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// The value of a node read by the shared strict reader; numbers become `Double`, and one too
    /// large for it is refused rather than read as infinity.
    private init(_ node: JSONNode) throws(SyntaxError) {
        switch node.kind {
        case .string(let value):
            self = .string(value)
        case .number(let text):
            guard let value = Double(text), value.isFinite else {
                throw SyntaxError(reason: "a number out of range at offset \(node.offset)")
            }
            self = .number(value)
        case .bool(let value):
            self = .bool(value)
        case .null:
            self = .null
        case .array(let elements):
            var values: [TokenJSON] = []
            values.reserveCapacity(elements.count)
            for element in elements { values.append(try TokenJSON(element)) }
            self = .array(values)
        case .object(let members):
            var values: [String: TokenJSON] = [:]
            values.reserveCapacity(members.count)
            for member in members { values[member.key] = try TokenJSON(member.value) }
            self = .object(values)
        }
    }
}
