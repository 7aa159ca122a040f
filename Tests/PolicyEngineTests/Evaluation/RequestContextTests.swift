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
        // Removing the explicit value brings the derived one back, and both are listed.
        timed["aws:CurrentTime"] = nil
        #expect(timed["aws:CurrentTime"] == "1970-01-01T00:00:01Z")
        #expect(timed.keys == ["aws:CurrentTime", "aws:EpochTime", "aws:PrincipalType"])
        #expect(timed.entries.first { $0.key == "aws:EpochTime" }?.value == "1")
    }

    @Test func retimingAPreparedContextMatchesSettingTheTime() throws {
        let prepared = RequestContext(
            principal: TestSupport.user, values: ["graph.facebook.com:id": "12", "aws:EpochTime": "7"])
        #expect(prepared["aws:CurrentTime"] == nil)
        let retimed = prepared.retimed(Timestamp(millisecondsSince1970: 1_500))
        var set = prepared
        set.time = Timestamp(millisecondsSince1970: 1_500)
        #expect(retimed.time == set.time)
        #expect(retimed.entries.map { "\($0.key)=\($0.value)" } == set.entries.map { "\($0.key)=\($0.value)" })
        #expect(retimed["aws:CurrentTime"] == "1970-01-01T00:00:01.500Z")
        // The explicit value still wins, and the prepared context is unchanged.
        #expect(retimed["aws:EpochTime"] == "7")
        #expect(prepared["aws:CurrentTime"] == nil)
        // Back to no time: the derived key goes, the explicit one stays.
        let untimed = retimed.retimed(nil)
        #expect(untimed["aws:CurrentTime"] == nil)
        #expect(untimed["aws:EpochTime"] == "7")
        #expect(untimed["graph.facebook.com:id"] == "12")
    }

    @Test func crossAccountOnlyWhenTheOwnerDiffers() throws {
        let context = RequestContext(principal: TestSupport.user)
        #expect(!AuthorizationRequest(action: "s3:GetObject", resource: "*", context: context).isCrossAccount)
        #expect(!AuthorizationRequest(action: "s3:GetObject", resource: "*", context: context, resourceAccount: "111122223333").isCrossAccount)
        #expect(AuthorizationRequest(action: "s3:GetObject", resource: "*", context: context, resourceAccount: "444455556666").isCrossAccount)
    }

    @Test func mergedKeysLayerOverTheSessionWithoutChangingIt() throws {
        let session = RequestContext(
            principal: TestSupport.user, time: TestSupport.time,
            values: ["aws:SourceIp": "203.0.113.7", "aws:PrincipalType": "Custom"])
        let merged = session.merging(["S3:Prefix": "alice/", "aws:SourceIp": "198.51.100.1", "aws:CurrentTime": "2000-01-01T00:00:00Z"])
        #expect(merged["s3:prefix"] == "alice/")
        #expect(merged["aws:sourceip"] == "198.51.100.1")
        // A layered key wins over a derived one, and untouched keys still come from the session.
        #expect(merged["aws:CurrentTime"] == "2000-01-01T00:00:00Z")
        #expect(merged["aws:EpochTime"] == "1714564800")
        #expect(merged["aws:PrincipalType"] == "Custom")
        #expect(merged.keys.contains("S3:Prefix"))
        #expect(merged.entries.first { $0.key == "aws:SourceIp" }?.value == "198.51.100.1")
        #expect(session["s3:prefix"] == nil)
        #expect(session["aws:SourceIp"] == "203.0.113.7")
        #expect(session["aws:CurrentTime"] == "2024-05-01T12:00:00Z")
    }

    @Test func removingALayeredKeyRevealsWhatItHid() throws {
        var context = RequestContext(principal: TestSupport.user, time: TestSupport.time, values: ["aws:SourceIp": "203.0.113.7"])
        context["aws:SourceIp"] = "198.51.100.1"
        context["aws:CurrentTime"] = "2000-01-01T00:00:00Z"
        context["aws:SourceIp"] = nil
        #expect(context["aws:SourceIp"] == nil)
        context["aws:CurrentTime"] = nil
        #expect(context["aws:CurrentTime"] == "2024-05-01T12:00:00Z")
    }

    @Test func layeredKeysSurviveAChangeOfPrincipalOrTime() throws {
        var context = RequestContext(principal: nil, values: ["a:b": "base"]).merging(["s3:prefix": "x/"])
        #expect(context["aws:PrincipalType"] == "Anonymous")
        context.principal = TestSupport.user
        context.time = Timestamp(secondsSince1970: 1)
        #expect(context["s3:prefix"] == "x/")
        #expect(context["a:b"] == "base")
        #expect(context["aws:PrincipalType"] == "User")
        #expect(context["aws:EpochTime"] == "1")
        #expect(context.principal?.arn == TestSupport.user.arn)
    }

    @Test func manyLayeredKeysAreFoldedWithoutLosingAny() {
        var context = RequestContext(values: ["svc:key-0": "base"])
        for index in 0..<(3 * RequestContext.overlayLimit) {
            context["svc:key-\(index)"] = ContextValue("v\(index)")
            context["SVC:KEY-\(index / 2)"] = ContextValue("w\(index)")
        }
        for index in 0..<(3 * RequestContext.overlayLimit) {
            let expected = index * 2 + 1 < 3 * RequestContext.overlayLimit ? "w\(index * 2 + 1)" : "v\(index)"
            #expect(context["svc:key-\(index)"] == ContextValue(expected))
        }
        #expect(context.keys.count == 3 * RequestContext.overlayLimit + 1)  // plus aws:PrincipalType
    }

    @Test func listBucketAddsItsKeysToACopyOfTheContext() throws {
        let session = RequestContext(principal: TestSupport.user, time: TestSupport.time, values: ["s3:prefix": "old/"])
        let request = AuthorizationRequest.s3ListBucket(bucket: "b", prefix: "alice/", delimiter: "/", maxKeys: 10, context: session)
        #expect(request.resource == "arn:aws:s3:::b")
        #expect(request.context["s3:prefix"] == "alice/")
        #expect(request.context["s3:delimiter"] == "/")
        #expect(request.context["s3:max-keys"] == "10")
        #expect(session["s3:prefix"] == "old/")
        #expect(session["s3:delimiter"] == nil)
        let root = AuthorizationRequest.s3ListBucket(bucket: "b", context: session, partition: "aws-cn")
        #expect(root.resource == "arn:aws-cn:s3:::b")
        #expect(root.context["s3:prefix"] == "")
        #expect(root.context["s3:delimiter"] == nil)
    }

    @Test(arguments: [
        ("s3:GetObject", "s3:getobject"),
        ("s3:getobject", "s3:getobject"),
        ("S3:GETOBJECT", "s3:getobject"),
        ("execute-api:InvokeSomethingWithAVeryLongName", "execute-api:invokesomethingwithaverylongname"),
        ("s3:Gét", "s3:gét"),
    ])
    func actionKeysAreLowercasedASCII(action: String, key: String) {
        var request = AuthorizationRequest(action: "x:Y", resource: "*", context: RequestContext())
        request.action = action
        #expect(request.actionKey == key)
        #expect(AuthorizationRequest(action: action, resource: "*", context: RequestContext()).actionKey == key)
    }

    @Test(arguments: [
        ("*", [1]),
        ("", [0]),
        ("arn:aws:s3:::b/k", [3, 7, 10, 11, 12, 16]),
        ("arn:aws:logs:us-east-1:111122223333:log-group:name:*", [3, 7, 12, 22, 35, 52]),
        ("a:b", [1, 3]),
    ])
    func resourcePartsEndAtTheFirstFiveColons(resource: String, ends: [Int]) {
        let parts = ResourceParts(resource)
        #expect((0..<parts.count).map { parts[$0] } == ends)
    }

    @Test func objectRequestsJoinBucketAndKey() {
        var request = AuthorizationRequest.s3Object("PutObject", bucket: "b", key: "alice/é.jpg", context: RequestContext(), partition: "aws-us-gov")
        #expect(request.action == "s3:PutObject")
        #expect(request.resource == "arn:aws-us-gov:s3:::b/alice/é.jpg")
        #expect(request.withResourceBytes { Array($0) } == Array("arn:aws-us-gov:s3:::b/alice/é.jpg".utf8))
        request.resource = "arn:aws:s3:::other/x"
        #expect(request.resourceParts[4] == 12)
        #expect(request.withResourceBytes { Array($0) } == Array("arn:aws:s3:::other/x".utf8))
    }
}
