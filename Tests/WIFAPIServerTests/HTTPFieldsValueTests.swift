import HTTPTypes
import Testing
import WIFAPIServer

/// `HTTPFields.value(of:)`, which every header read of the local stack and the API server goes through:
/// it must answer exactly as the name subscript does.
@Suite struct HTTPFieldsValueTests {
    static let custom = HTTPField.Name("X-Amz-Target")!

    static let arrangements: [[(HTTPField.Name, String)]] = [
        [],
        [(.contentType, "application/x-www-form-urlencoded")],
        [(.accept, "*/*"), (.contentType, "text/plain"), (.contentLength, "12")],
        [(.contentType, "text/plain"), (.accept, "*/*"), (.contentType, "text/html")],
        [(.accept, "a"), (.accept, "b"), (.accept, "c")],
        [(.contentType, "")],
        [(custom, "AWSCognitoIdentityService.GetId"), (.contentType, "application/x-amz-json-1.1")],
    ]

    @Test("gives what the name subscript gives, for fields absent, once and repeated", arguments: Self.arrangements.indices)
    func agreesWithTheSubscript(_ index: Int) {
        var fields = HTTPFields()
        for (name, value) in Self.arrangements[index] { fields.append(HTTPField(name: name, value: value)) }
        for name in [HTTPField.Name.contentType, .accept, .contentLength, .authorization, Self.custom] {
            #expect(fields.value(of: name) == fields[name], "\(name) in \(Self.arrangements[index])")
        }
    }

    @Test("finds a field whatever the case of its name as sent")
    func namesAreCaseInsensitive() throws {
        var fields = HTTPFields()
        fields.append(HTTPField(name: try #require(HTTPField.Name("CONTENT-type")), value: "text/plain"))
        #expect(fields.value(of: .contentType) == "text/plain")
        fields.append(HTTPField(name: try #require(HTTPField.Name("Content-Type")), value: "text/html"))
        #expect(fields.value(of: .contentType) == "text/plain, text/html")
    }
}
