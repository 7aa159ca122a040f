import Foundation
import Testing

@testable import WIFLocal

@Suite("AWSTime and QueryString")
struct AWSTimeTests {
    @Test(
        "reads and writes SigV4 and ISO 8601 times",
        arguments: [
            (Int64(0), "19700101T000000Z", "1970-01-01T00:00:00Z"),
            (Int64(951_782_400), "20000229T000000Z", "2000-02-29T00:00:00Z"),
            (Int64(1_714_564_800), "20240501T120000Z", "2024-05-01T12:00:00Z"),
            (Int64(4_102_444_799), "20991231T235959Z", "2099-12-31T23:59:59Z"),
        ])
    func roundTrip(_ seconds: Int64, _ basic: String, _ extended: String) {
        #expect(AWSTime.basic(seconds) == basic)
        #expect(AWSTime.extended(seconds) == extended)
        #expect(AWSTime.parseBasic(basic) == seconds)
    }

    @Test("refuses times that are not SigV4's form or name no real time",
          arguments: ["2024-05-01T12:00:00Z", "20240501T120000", "20240230T120000Z", "20240501T246000Z", "2024050lT120000Z", ""])
    func invalidBasic(_ text: String) {
        #expect(AWSTime.parseBasic(text) == nil)
    }

    @Test("reads HTTP dates and refuses other forms")
    func httpDates() {
        #expect(AWSTime.parseHTTPDate("Wed, 01 May 2024 12:00:00 GMT") == 1_714_564_800)
        #expect(AWSTime.parseHTTPDate("Sun, 06 Nov 1994 08:49:37 GMT") == 784_111_777)
        #expect(AWSTime.parseHTTPDate("Sunday, 06-Nov-94 08:49:37 GMT") == nil)
        #expect(AWSTime.parseHTTPDate("Wed, 01 Mai 2024 12:00:00 GMT") == nil)
        #expect(AWSTime.parseHTTPDate("Wed, 01 May 2024 12:00:00 UTC") == nil)
    }

    @Test("decodes queries and forms, with + as a space only in forms")
    func queries() {
        let pairs = QueryString.parse("a=1&b=x%20y+z&flag&&c=%E2%82%AC&bad=%zz", plusIsSpace: true)
        #expect(pairs.map(\.name) == ["a", "b", "flag", "c", "bad"])
        #expect(pairs.map(\.value) == ["1", "x y z", "", "€", "%zz"])
        #expect(QueryString.parse("b=x+y", plusIsSpace: false).first?.value == "x+y")
        #expect(QueryString.value(of: "X-Amz-Date", in: "X-Amz-Datex=1&X-Amz-Date=20240501T120000Z") == "20240501T120000Z")
        #expect(QueryString.value(of: "X-Amz-Date", in: "a=b") == nil)
    }
}
