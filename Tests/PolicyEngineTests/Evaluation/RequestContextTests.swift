import Testing

@testable import PolicyEngine

@Suite("Request contexts")
struct RequestContextTests {
    @Test func findsEveryKeyAmongMany() {
        var values: [String: ContextValue] = [:]
        for index in 0..<500 { values["svc:key-\(index)"] = ContextValue("v\(index)") }
        let context = RequestContext(principal: nil, values: values)
        for index in 0..<500 {
            #expect(context["SVC:Key-\(index)"] == ContextValue("v\(index)"))
        }
        #expect(context["svc:key-500"] == nil)
        #expect(context["svc:key-"] == nil)
        #expect(RequestContext()["anything"] == nil)
    }

    @Test func keyNormalizationIsCaseInsensitiveBeyondASCII() {
        #expect(ContextKey("aws:PrincipalTag/Équipe") == ContextKey("AWS:principaltag/équipe"))
        #expect(ContextKey("a:b") != ContextKey("a:c"))
    }

    @Test func derivesKeysFromThePrincipalAndTime() throws {
        let root = RequestContext(principal: try .root(accountId: "111122223333"), time: Timestamp(secondsSince1970: 0))
        #expect(root["aws:PrincipalType"] == "Account")
        #expect(root["aws:PrincipalArn"] == "arn:aws:iam::111122223333:root")
        #expect(root["aws:CurrentTime"] == "1970-01-01T00:00:00Z")
        #expect(root["aws:EpochTime"] == "0")
        let service = RequestContext(principal: .service("s3.amazonaws.com"))
        #expect(service["aws:PrincipalServiceName"] == "s3.amazonaws.com")
        #expect(service["aws:PrincipalType"] == nil)
        var timed = RequestContext(principal: nil, values: ["aws:CurrentTime": "2000-01-01T00:00:00Z"])
        #expect(timed["aws:CurrentTime"] == "2000-01-01T00:00:00Z")
        timed.time = Timestamp(secondsSince1970: 1)
        // An explicit value wins over the derived one.
        #expect(timed["aws:CurrentTime"] == "2000-01-01T00:00:00Z")
        #expect(timed["aws:EpochTime"] == "1")
    }

    @Test func crossAccountOnlyWhenTheOwnerDiffers() throws {
        let context = RequestContext(principal: TestSupport.user)
        #expect(!AuthorizationRequest(action: "s3:GetObject", resource: "*", context: context).isCrossAccount)
        #expect(!AuthorizationRequest(action: "s3:GetObject", resource: "*", context: context, resourceAccount: "111122223333").isCrossAccount)
        #expect(AuthorizationRequest(action: "s3:GetObject", resource: "*", context: context, resourceAccount: "444455556666").isCrossAccount)
    }
}
