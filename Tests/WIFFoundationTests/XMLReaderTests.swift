import Testing
import WIFFoundation

// Moved with the reader from the S3 client's tests: the S3 client, the STS decoder and the local
// stack's request bodies all read XML through XMLReader now.
@Suite("XML documents")
struct XMLReaderTests {
    static func parse(_ text: String) throws -> XMLTreeElement {
        try XMLReader.parse(Array(text.utf8))
    }

    @Test("elements, text, entities, character references, CDATA, comments and namespaces")
    func parsing() throws {
        let root = try Self.parse("""
            <?xml version="1.0" encoding="UTF-8"?>
            <!-- a comment -->
            <s3:ListBucketResult xmlns:s3="http://s3.amazonaws.com/doc/2006-03-01/">
              <Name attr="a>b/c">bucket</Name>
              <Contents><Key>  a &amp; b &lt;c&gt; &quot;d&quot; &apos;e&apos; &#233;&#x1F408;</Key></Contents>
              <Contents><Key><![CDATA[<raw & text>]]></Key><Empty/></Contents>
            </s3:ListBucketResult>
            """)
        #expect(root.name == "ListBucketResult")
        #expect(root.text("Name") == "bucket")
        let contents = root.children(named: "Contents")
        #expect(contents.count == 2)
        #expect(contents[0].text("Key") == "  a & b <c> \"d\" 'e' é🐈")
        #expect(contents[1].text("Key") == "<raw & text>")
        #expect(contents[1].child("Empty")?.text == "")
        #expect(root.first("Key")?.text == contents[0].text("Key"))
    }

    @Test("malformed documents are refused with a reason", arguments: [
        ("", "no element"),
        ("<a><b></a>", "</a> closes <b>"),
        ("<a>", "ends inside <a>"),
        ("<a></a><b></b>", "more than one root"),
        ("text<a/>", "text outside the root"),
        ("<a>&unknown;</a>", "unknown entity"),
        ("<a>&#xD800;</a>", "not a character"),
        ("<a>&amp</a>", "unterminated"),
        ("<!DOCTYPE a [<!ENTITY x \"y\">]><a>&x;</a>", "internal subset"),
        ("<a><!-- never closed </a>", "before '-->'"),
        ("<a b=\"unterminated></a>", "not closed"),
        (String(repeating: "<a>", count: 70) + String(repeating: "</a>", count: 70), "deeper than 64"),
    ])
    func malformed(text: String, reason: String) {
        let failure = #expect(throws: XMLReader.Failure.self) { try Self.parse(text) }
        #expect(failure?.reason.contains(reason) == true, "\(failure?.reason ?? "")")
    }

    @Test("keys are escaped for request documents so that they survive parsing")
    func writerRoundTrip() throws {
        let keys = ["plain", "a&b<c>\"d\"'e'", "line\nbreak\r\ttab", "nul\u{0}del\u{7F}", "ünï 🐈"]
        for key in keys {
            let escaped = XMLWriter.escape(key)
            #expect(!escaped.unicodeScalars.contains { XMLWriter.isControl($0) })
            let parsed = try Self.parse("<Key>\(escaped)</Key>")
            #expect(parsed.text == key)
        }
    }

    @Test("escaping writes entities and character references, and keeps other characters' UTF-8")
    func escapes() {
        #expect(XMLWriter.escape("a&b<c>\"d\"'e'") == "a&amp;b&lt;c&gt;&quot;d&quot;&apos;e&apos;")
        #expect(XMLWriter.escape("tab\there\r\n\u{0}\u{7F}") == "tab&#x9;here&#xD;&#xA;&#x0;&#x7F;")
        // C1 controls are references; U+00A0 and U+00C2, whose UTF-8 also starts with 0xC2 or is it, are not.
        #expect(XMLWriter.escape("\u{80}x\u{9F}") == "&#x80;x&#x9F;")
        #expect(XMLWriter.escape("\u{A0}Â é 🐈") == "\u{A0}Â é 🐈")
        #expect(XMLWriter.escape("") == "")
        #expect(XMLWriter.escape("\u{C2}") == "\u{C2}")
    }

    @Test("every character below U+0100 is escaped exactly when it is markup or a control character")
    func escapesEachCharacterAlone() {
        let entities: [Unicode.Scalar: String] = ["&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&apos;"]
        for value in UInt32(0)..<0x100 {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let text = "a" + String(Character(scalar)) + "b"
            let expected: String
            if let entity = entities[scalar] {
                expected = "a" + entity + "b"
            } else if XMLWriter.isControl(scalar) {
                expected = "a&#x" + String(value, radix: 16, uppercase: true) + ";b"
            } else {
                expected = text
            }
            #expect(XMLWriter.escape(text) == expected, "U+\(String(value, radix: 16))")
            var writer = XMLWriter(declaration: false)
            writer.open("E", attributes: [("v", text)])
            writer.element("K", text)
            writer.close("E")
            #expect(writer.document == "<E v=\"\(expected)\"><K>\(expected)</K></E>", "U+\(String(value, radix: 16))")
        }
    }

    @Test("namespaces resolve through prefixes and the default namespace")
    func namespaces() throws {
        let root = try Self.parse("""
            <R xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><x:C xmlns:x="urn:x"><D/></x:C></R>
            """)
        #expect(root.namespace == "https://sts.amazonaws.com/doc/2011-06-15/")
        #expect(root.child("C")?.namespace == "urn:x")
        #expect(root.element("C", "D")?.namespace == "https://sts.amazonaws.com/doc/2011-06-15/")
    }

    @Test("an element's text is the same however the document splits it", arguments: [
        ("<a>plain é</a>", "plain é"),
        ("<a>x<!-- between -->y</a>", "xy"),
        ("<a><![CDATA[x<]]>y&amp;z</a>", "x<y&z"),
        ("<a>&amp;x</a>", "&x"),
        ("<a>x&lt;</a>", "x<"),
        ("<a>x<?pi?><b>in b</b>y</a>", "xy"),
        ("<a></a>", ""),
    ])
    func textPieces(document: String, text: String) throws {
        #expect(try Self.parse(document).text == text)
    }

    @Test("text that is not UTF-8 is refused, in one run or joined to a reference")
    func textNotUTF8() {
        for document in [Array("<a>x".utf8) + [0xFF] + Array("</a>".utf8), Array("<a>&amp;".utf8) + [0xC3] + Array("</a>".utf8)] {
            let failure = #expect(throws: XMLReader.Failure.self) { try XMLReader.parse(document) }
            #expect(failure?.reason == "the text of <a> is not UTF-8")
        }
    }

    @Test("a closing tag names its element: prefix and all")
    func closingNames() throws {
        #expect(try Self.parse("<p:a xmlns:p=\"urn:p\">t</p:a>").namespace == "urn:p")
        let failure = #expect(throws: XMLReader.Failure.self) { try Self.parse("<p:a xmlns:p=\"urn:p\"></q:a>") }
        #expect(failure?.reason == "</q:a> closes <p:a>")
        // The same name in another Unicode normalisation form closes it, as the names compare equal.
        #expect(try Self.parse("<caf\u{E9}>t</cafe\u{301}>").name == "caf\u{E9}")
    }

    @Test("a name is ASCII letters, digits, '_', '-', '.', ':' and any byte beyond ASCII")
    func nameBytes() {
        for value in 0...255 {
            let byte = UInt8(value)
            let scalar = Unicode.Scalar(byte)
            let expected = byte >= 0x80 || ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
                || "0123456789_-.:".unicodeScalars.contains(scalar)
            #expect(XMLReader.isNameByte(byte) == expected, "byte \(value)")
        }
    }

    @Test("one child's text is found by name as by a path of one name")
    func oneName() throws {
        let root = try Self.parse("<a><b> x </b><c/><b>second</b><d><e>deep</e></d></a>")
        for name in ["b", "c", "d", "e", "missing"] {
            #expect(root.text(name) == root.element(name)?.text, "\(name)")
        }
        #expect(root.text("b") == " x ")
        #expect(root.trimmedText("b") == "x")
        #expect(root.text("c") == "")
        #expect(root.trimmedText("c") == nil)
        #expect(root.text("d", "e") == "deep")
        #expect(root.text("e") == nil)
        #expect(root.trimmedText("missing") == nil)
    }

    @Test("trimmed text is nil for missing and blank elements")
    func trimmedText() throws {
        let root = try Self.parse("<a><b>  x \n</b><c>  </c></a>")
        #expect(root.trimmedText("b") == "x")
        #expect(root.trimmedText("c") == nil)
        #expect(root.trimmedText("d") == nil)
        #expect(root.text("c") == "  ")
    }

    @Test("failures point at a line and column")
    func location() {
        let bytes = Array("<a>\n  <b>\n</a>".utf8)
        let failure = #expect(throws: XMLReader.Failure.self) { try XMLReader.parse(bytes) }
        let position = failure.map { XMLReader.location(of: $0.offset, in: bytes) }
        #expect(position?.line == 3)
    }
}
