import Testing
import WIFFoundation

// The date tests of the S3 client and of the local stack's request authentication, moved with the
// codecs they test.
@Suite("AWS dates and percent-encoding")
struct AWSDateTests {
    @Test("HTTP and ISO 8601 dates", arguments: [
        ("Sun, 06 Nov 1994 08:49:37 GMT", 784_111_777.0), ("Thu, 01 Jan 1970 00:00:00 GMT", 0), ("Tue, 29 Feb 2028 23:59:59 GMT", 1_835_481_599),
    ])
    func httpDates(text: String, seconds: Double) {
        #expect(AWSDate.parseHTTPDate(text) == Int64(seconds))
    }

    @Test("malformed dates are nil", arguments: ["", "yesterday", "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 1994 25:49:37 GMT", "2024-13-01T00:00:00Z", "2024-01-01T00:00:00", "2024-01-01T00:00:00.Z"])
    func badDates(text: String) {
        #expect(AWSDate.parseHTTPDate(text) == nil)
        #expect(AWSDate.parseISO8601(text, requiringTime: true) == nil)
    }

    @Test("ISO 8601 dates with and without fractions")
    func isoDates() {
        #expect(AWSDate.parseISO8601("2009-10-12T17:50:30.000Z", requiringTime: true) == 1_255_369_830_000)
        #expect(AWSDate.parseISO8601("2009-10-12T17:50:30Z", requiringTime: true) == 1_255_369_830_000)
        #expect(AWSDate.parseISO8601("1969-12-31T23:59:59.5Z", requiringTime: true) == -500)
    }

    @Test(
        "reads and writes SigV4 and ISO 8601 times",
        arguments: [
            (Int64(0), "19700101T000000Z", "1970-01-01T00:00:00Z"),
            (Int64(951_782_400), "20000229T000000Z", "2000-02-29T00:00:00Z"),
            (Int64(1_714_564_800), "20240501T120000Z", "2024-05-01T12:00:00Z"),
            (Int64(4_102_444_799), "20991231T235959Z", "2099-12-31T23:59:59Z"),
        ])
    func roundTrip(_ seconds: Int64, _ basic: String, _ extended: String) {
        #expect(AWSDate.basic(seconds) == basic)
        #expect(AWSDate.extended(seconds) == extended)
        #expect(AWSDate.parseBasic(basic) == seconds)
    }

    @Test("refuses times that are not SigV4's form or name no real time",
          arguments: ["2024-05-01T12:00:00Z", "20240501T120000", "20240230T120000Z", "20240501T246000Z", "2024050lT120000Z", ""])
    func invalidBasic(_ text: String) {
        #expect(AWSDate.parseBasic(text) == nil)
    }

    @Test("reads HTTP dates and refuses other forms")
    func httpDates() {
        #expect(AWSDate.parseIMFFixdate("Wed, 01 May 2024 12:00:00 GMT") == 1_714_564_800)
        #expect(AWSDate.parseIMFFixdate("Sun, 06 Nov 1994 08:49:37 GMT") == 784_111_777)
        #expect(AWSDate.parseIMFFixdate("Sunday, 06-Nov-94 08:49:37 GMT") == nil)
        #expect(AWSDate.parseIMFFixdate("Wed, 01 Mai 2024 12:00:00 GMT") == nil)
        #expect(AWSDate.parseIMFFixdate("Wed, 01 May 2024 12:00:00 UTC") == nil)
    }

    @Test("decodes queries and forms, with + as a space only in forms")
    func queries() {
        let pairs = PercentEncoding.parameters("a=1&b=x%20y+z&flag&&c=%E2%82%AC&bad=%zz", plusIsSpace: true)
        #expect(pairs.map(\.name) == ["a", "b", "flag", "c", "bad"])
        #expect(pairs.map(\.value) == ["1", "x y z", "", "€", "%zz"])
        #expect(PercentEncoding.parameters("b=x+y", plusIsSpace: false).first?.value == "x+y")
        #expect(PercentEncoding.value(of: "X-Amz-Date", in: "X-Amz-Datex=1&X-Amz-Date=20240501T120000Z") == "20240501T120000Z")
        #expect(PercentEncoding.value(of: "X-Amz-Date", in: "a=b") == nil)
    }

    @Test("reads edges of queries: empty pairs at either end, = in a value, a name alone, a substring")
    func queryEdges() {
        let pairs = PercentEncoding.parameters("&a=b=c&&=v&name&", plusIsSpace: false)
        #expect(pairs.map(\.name) == ["a", "", "name"])
        #expect(pairs.map(\.value) == ["b=c", "v", ""])
        #expect(PercentEncoding.parameters("", plusIsSpace: true).isEmpty)
        let query = "?x=1&y=%41"
        #expect(PercentEncoding.parameters(query.dropFirst(), plusIsSpace: false).map(\.value) == ["1", "A"])
        #expect(PercentEncoding.value(of: "flag", in: "a=1&flag") == "")
        #expect(PercentEncoding.value(of: "y", in: query.dropFirst()) == "A")
        #expect(PercentEncoding.value(of: "a", in: "&&") == nil)
        // A collection without contiguous storage is decoded as its bytes would be.
        #expect(PercentEncoding.decode(Array("a%20b+c".utf8).lazy.map { $0 }, plusIsSpace: true) == "a b c")
    }

    @Test("quotes JSON strings: escapes, control characters, and other characters' UTF-8 kept")
    func jsonQuoting() {
        #expect(JSONWriter.quoted("plain") == "\"plain\"")
        #expect(JSONWriter.quoted("") == "\"\"")
        #expect(JSONWriter.quoted("a\"b\\c\nd\re\tf") == #""a\"b\\c\nd\re\tf""#)
        #expect(JSONWriter.quoted("\u{01}x\u{1F}") == #""\u0001x\u001f""#)
        #expect(JSONWriter.quoted("€ 🙂 é") == "\"€ 🙂 é\"")
    }

    @Test("writes members, and leaves out an absent one without a stray comma")
    func jsonMembers() {
        var writer = JSONWriter(pretty: false)
        writer.beginObject()
        writer.member("a", ifPresent: nil)
        writer.member("s", "x\"y")
        writer.member("n", -3)
        writer.member("b", true)
        writer.member("o", ifPresent: "z")
        writer.member("p", ifPresent: nil)
        writer.endObject()
        #expect(writer.output == #"{"s":"x\"y","n":-3,"b":true,"o":"z"}"#)
        var pretty = JSONWriter(pretty: true)
        pretty.beginObject()
        pretty.member("k", false)
        pretty.endObject()
        #expect(pretty.output == "{\n  \"k\": false\n}")
    }
}
