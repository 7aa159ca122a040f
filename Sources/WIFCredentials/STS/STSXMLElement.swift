import Foundation

#if canImport(FoundationXML)
import FoundationXML
#endif

/// A small element tree read from an STS answer: names without prefixes, trimmed text, children.
///
/// STS answers are a few hundred bytes of plain elements, so a tree is simpler than decoding with
/// delegate state, and lets the decoder look elements up by path.
struct STSXMLElement: Sendable, Hashable {
    /// The element's local name (no namespace prefix).
    var name: String
    /// The element's namespace URI, if any.
    var namespace: String?
    /// The element's own text and CDATA, whitespace-trimmed.
    var text: String
    /// Child elements in document order.
    var children: [STSXMLElement]

    /// The first child with local name `name`.
    func child(_ name: String) -> STSXMLElement? {
        self.children.first { $0.name == name }
    }

    /// The element reached by following `path` from here, one child name at a time.
    func element(_ path: String...) -> STSXMLElement? {
        var current = self
        for name in path {
            guard let next = current.child(name) else { return nil }
            current = next
        }
        return current
    }

    /// The text of the element at `path`, or `nil` when it is missing or empty.
    func text(_ path: String...) -> String? {
        var current = self
        for name in path {
            guard let next = current.child(name) else { return nil }
            current = next
        }
        return current.text.isEmpty ? nil : current.text
    }

    /// Why a body could not be read as XML.
    struct ParseFailure: Error, Sendable {
        var reason: String
    }

    /// The deepest nesting accepted; STS answers are four levels deep.
    static let maximumDepth = 32

    /// Parses a whole document.
    /// - Parameter bytes: The body.
    /// - Returns: The root element.
    /// - Throws: ``ParseFailure`` for an empty body, a document type declaration, a syntax error, a
    ///   truncated document or excessive nesting.
    static func parse(_ bytes: [UInt8]) throws(ParseFailure) -> STSXMLElement {
        // STS never sends a DTD; refusing one up front rules out entity expansion and recognises
        // HTML error pages (`<!DOCTYPE html>`) before the parser sees them.
        if Self.containsDoctype(bytes) {
            throw ParseFailure(reason: "it contains a document type declaration (an HTML page?)")
        }
        let builder = TreeBuilder()
        let parser = XMLParser(data: Data(bytes))
        parser.shouldProcessNamespaces = true
        parser.shouldReportNamespacePrefixes = false
        parser.shouldResolveExternalEntities = false
        parser.delegate = builder
        let succeeded = parser.parse()
        if let failure = builder.failure {
            throw ParseFailure(reason: failure)
        }
        // Foundation's parser can report success for a document cut off mid-element, with the error
        // only in `parserError`; an unclosed element or a missing root also means truncation.
        if !succeeded || parser.parserError != nil {
            let detail = parser.parserError.map { " (parser error \(($0 as NSError).code))" } ?? ""
            throw ParseFailure(
                reason: "it is not well-formed XML at line \(parser.lineNumber), column \(parser.columnNumber)\(detail)"
            )
        }
        if !builder.stack.isEmpty {
            throw ParseFailure(reason: "the XML document ends before <\(builder.stack.last?.name ?? "")> is closed (truncated?)")
        }
        guard let root = builder.root else {
            throw ParseFailure(reason: "it contains no XML element")
        }
        return root
    }

    private static func containsDoctype(_ bytes: [UInt8]) -> Bool {
        let marker = Array("<!doctype".utf8)
        guard bytes.count >= marker.count else { return false }
        for start in 0...(bytes.count - marker.count) {
            var matches = true
            for offset in 0..<marker.count {
                var byte = bytes[start + offset]
                if byte >= UInt8(ascii: "A"), byte <= UInt8(ascii: "Z") { byte += 32 }
                if byte != marker[offset] {
                    matches = false
                    break
                }
            }
            if matches { return true }
        }
        return false
    }

    /// Collects elements as the parser reports them. Used on one thread, within one `parse` call.
    private final class TreeBuilder: NSObject, XMLParserDelegate {
        var stack: [STSXMLElement] = []
        var texts: [String] = []
        var root: STSXMLElement?
        var failure: String?

        func parser(
            _ parser: XMLParser,
            didStartElement elementName: String,
            namespaceURI: String?,
            qualifiedName qName: String?,
            attributes attributeDict: [String: String] = [:]
        ) {
            if self.root != nil {
                self.fail("it has content after the root element", parser)
                return
            }
            if self.stack.count >= STSXMLElement.maximumDepth {
                self.fail("its elements nest deeper than \(STSXMLElement.maximumDepth) levels", parser)
                return
            }
            let namespace = namespaceURI.flatMap { $0.isEmpty ? nil : $0 }
            self.stack.append(STSXMLElement(name: elementName, namespace: namespace, text: "", children: []))
            self.texts.append("")
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            guard !self.texts.isEmpty else { return }
            self.texts[self.texts.count - 1] += string
        }

        func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
            guard !self.texts.isEmpty else { return }
            self.texts[self.texts.count - 1] += String(decoding: CDATABlock, as: UTF8.self)
        }

        func parser(
            _ parser: XMLParser,
            didEndElement elementName: String,
            namespaceURI: String?,
            qualifiedName qName: String?
        ) {
            guard var element = self.stack.popLast(), let text = self.texts.popLast() else {
                self.fail("it closes an element that was never opened", parser)
                return
            }
            element.text = text.trimmingCharacters(in: .whitespacesAndNewlines)
            if self.stack.isEmpty {
                self.root = element
            } else {
                self.stack[self.stack.count - 1].children.append(element)
            }
        }

        func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
            // Reported through `parserError` after `parse()` returns.
        }

        private func fail(_ reason: String, _ parser: XMLParser) {
            if self.failure == nil { self.failure = reason }
            parser.abortParsing()
        }
    }
}
