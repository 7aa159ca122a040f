import Testing

@testable import PolicyEngine

/// Every condition operator family, per "IAM JSON policy elements: Condition operators".
@Suite("Condition operators")
struct ConditionOperatorTests {
    private func holds(_ condition: String, _ values: [String: ContextValue]) throws -> Bool {
        try TestSupport.holds(condition, values)
    }

    // MARK: String

    @Test(arguments: [
        (#"{"StringEquals": {"aws:username": "john"}}"#, "john", true),
        (#"{"StringEquals": {"aws:username": "john"}}"#, "John", false),
        (#"{"StringEquals": {"aws:username": ["ann", "john"]}}"#, "john", true),
        (#"{"StringEquals": {"aws:username": "jo*"}}"#, "john", false),
        (#"{"StringEquals": {"aws:username": "jo*"}}"#, "jo*", true),
        (#"{"StringNotEquals": {"aws:username": ["ann", "john"]}}"#, "john", false),
        (#"{"StringNotEquals": {"aws:username": ["ann", "john"]}}"#, "carol", true),
        (#"{"StringEqualsIgnoreCase": {"aws:username": "john"}}"#, "JOHN", true),
        (#"{"StringEqualsIgnoreCase": {"aws:username": "École"}}"#, "éCOLE", true),
        (#"{"StringEqualsIgnoreCase": {"aws:username": "École"}}"#, "ecole", false),
        (#"{"StringNotEqualsIgnoreCase": {"aws:username": "john"}}"#, "JOHN", false),
        (#"{"StringNotEqualsIgnoreCase": {"aws:username": "john"}}"#, "jon", true),
        (#"{"StringLike": {"aws:username": "jo*"}}"#, "john", true),
        (#"{"StringLike": {"aws:username": "jo?n"}}"#, "john", true),
        (#"{"StringLike": {"aws:username": "jo?n"}}"#, "joan", true),
        (#"{"StringLike": {"aws:username": "jo?n"}}"#, "jon", false),
        (#"{"StringLike": {"aws:username": "J*"}}"#, "john", false),
        (#"{"StringNotLike": {"aws:username": ["a*", "j*"]}}"#, "john", false),
        (#"{"StringNotLike": {"aws:username": ["a*", "b*"]}}"#, "john", true),
        (#"{"StringLike": {"aws:username": ""}}"#, "", true),
    ])
    func strings(condition: String, value: String, expected: Bool) throws {
        #expect(try self.holds(condition, ["aws:username": ContextValue(value)]) == expected)
    }

    @Test func conditionKeyNamesAreCaseInsensitive() throws {
        #expect(try self.holds(#"{"StringEquals": {"AWS:USERNAME": "john"}}"#, ["aws:UserName": "john"]))
    }

    @Test func keysAndOperatorsAreANDed() throws {
        let condition = #"{"StringEquals": {"aws:username": "john", "aws:PrincipalTag/team": "red"}, "Bool": {"aws:SecureTransport": "true"}}"#
        #expect(try self.holds(condition, ["aws:username": "john", "aws:PrincipalTag/team": "red", "aws:SecureTransport": true]))
        #expect(try !self.holds(condition, ["aws:username": "john", "aws:PrincipalTag/team": "blue", "aws:SecureTransport": true]))
        #expect(try !self.holds(condition, ["aws:username": "john", "aws:PrincipalTag/team": "red", "aws:SecureTransport": false]))
    }

    // MARK: Absent keys and IfExists

    @Test(arguments: [
        (#"{"StringEquals": {"k:x": "a"}}"#, false),
        (#"{"StringNotEquals": {"k:x": "a"}}"#, true),
        (#"{"StringLike": {"k:x": "*"}}"#, false),
        (#"{"StringNotLike": {"k:x": "a"}}"#, true),
        (#"{"StringEqualsIfExists": {"k:x": "a"}}"#, true),
        (#"{"NumericLessThan": {"k:x": "1"}}"#, false),
        (#"{"NumericLessThanIfExists": {"k:x": "1"}}"#, true),
        (#"{"NotIpAddress": {"k:x": "10.0.0.0/8"}}"#, true),
        (#"{"IpAddress": {"k:x": "0.0.0.0/0"}}"#, false),
        (#"{"ArnNotLike": {"k:x": "arn:*:*:*:*:*"}}"#, true),
        (#"{"BoolIfExists": {"k:x": "true"}}"#, true),
        (#"{"Bool": {"k:x": "false"}}"#, false),
        (#"{"DateNotEquals": {"k:x": "2024-01-01"}}"#, true),
    ])
    func absentKeys(condition: String, expected: Bool) throws {
        #expect(try self.holds(condition, [:]) == expected)
    }

    @Test func ifExistsStillTestsAPresentKey() throws {
        #expect(try self.holds(#"{"StringLikeIfExists": {"ec2:InstanceType": ["t1.*", "t2.*"]}}"#, ["ec2:InstanceType": "t2.micro"]))
        #expect(try !self.holds(#"{"StringLikeIfExists": {"ec2:InstanceType": ["t1.*", "t2.*"]}}"#, ["ec2:InstanceType": "m5.large"]))
    }

    // MARK: Numeric

    @Test(arguments: [
        ("NumericEquals", "10", "10", true), ("NumericEquals", "10", "10.0", true), ("NumericEquals", "10", "11", false),
        ("NumericNotEquals", "10", "11", true), ("NumericNotEquals", "10", "10", false),
        ("NumericLessThan", "10", "9", true), ("NumericLessThan", "10", "10", false),
        ("NumericLessThanEquals", "10", "10", true), ("NumericLessThanEquals", "10", "11", false),
        ("NumericGreaterThan", "10", "11", true), ("NumericGreaterThan", "10", "10", false),
        ("NumericGreaterThanEquals", "10", "10", true), ("NumericGreaterThanEquals", "-1.5", "-2", false),
        ("NumericLessThan", "1e3", "999.5", true),
        ("NumericLessThan", "10", "abc", false), ("NumericLessThan", "10", "nan", false), ("NumericLessThan", "10", "", false),
        ("NumericNotEquals", "10", "abc", true),
    ])
    func numbers(op: String, policy: String, request: String, expected: Bool) throws {
        let condition = #"{""# + op + #"": {"s3:max-keys": ""# + policy + #""}}"#
        #expect(try self.holds(condition, ["s3:max-keys": ContextValue(request)]) == expected)
    }

    // MARK: Date

    @Test(arguments: [
        ("DateGreaterThan", "2024-01-01T00:00:00Z", true),
        ("DateGreaterThan", "2024-05-01T12:00:00Z", false),
        ("DateGreaterThanEquals", "2024-05-01T12:00:00Z", true),
        ("DateEquals", "2024-05-01T12:00:00Z", true),
        ("DateEquals", "2024-05-01T14:00:00+02:00", true),
        ("DateEquals", "2024-05-01T12:00:00.001Z", false),
        ("DateEquals", "1714564800", true),
        ("DateLessThan", "2024-05-02", true),
        ("DateLessThan", "2024-05-01", false),
        ("DateLessThanEquals", "1714564800", true),
        ("DateNotEquals", "2024-05-01T12:00:00Z", false),
    ])
    func datesAgainstCurrentTime(op: String, policy: String, expected: Bool) throws {
        // TestSupport.holds sets the time to 2024-05-01T12:00:00Z, which provides aws:CurrentTime.
        let condition = #"{""# + op + #"": {"aws:CurrentTime": ""# + policy + #""}}"#
        #expect(try self.holds(condition, [:]) == expected)
    }

    @Test func epochTimeIsAvailableForNumericAndDateOperators() throws {
        #expect(try self.holds(#"{"NumericGreaterThan": {"aws:EpochTime": "1714564799"}}"#, [:]))
        #expect(try self.holds(#"{"DateLessThan": {"aws:EpochTime": "2024-05-01T12:00:01Z"}}"#, [:]))
        #expect(try !self.holds(#"{"DateLessThan": {"aws:TokenIssueTime": "2030-01-01"}}"#, ["aws:TokenIssueTime": "yesterday"]))
    }

    // MARK: Bool, Binary, Null

    @Test(arguments: [
        ("true", "true", true), ("true", "TRUE", true), ("true", "false", false), ("false", "false", true),
        ("true", "1", false), ("true", "yes", false),
    ])
    func bools(policy: String, request: String, expected: Bool) throws {
        let condition = #"{"Bool": {"aws:SecureTransport": ""# + policy + #""}}"#
        #expect(try self.holds(condition, ["aws:SecureTransport": ContextValue(request)]) == expected)
    }

    @Test func binaryEqualsComparesDecodedBytes() throws {
        #expect(try self.holds(#"{"BinaryEquals": {"k:bin": "SGVsbG8="}}"#, ["k:bin": "SGVsbG8="]))
        #expect(try self.holds(#"{"BinaryEquals": {"k:bin": "SGVsbG8="}}"#, ["k:bin": "SGVsbG8"]))
        #expect(try !self.holds(#"{"BinaryEquals": {"k:bin": "SGVsbG8="}}"#, ["k:bin": "SGVsbG8h"]))
        #expect(try !self.holds(#"{"BinaryEquals": {"k:bin": "SGVsbG8="}}"#, ["k:bin": "SGVsbG9="]))
        #expect(try !self.holds(#"{"BinaryEquals": {"k:bin": "SGVsbG8="}}"#, ["k:bin": "not base64!"]))
    }

    @Test func base64RoundTrips() {
        for length in 0..<20 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 * 37 + 11) }
            #expect(Base64.decode(Base64.encode(bytes)) == bytes)
        }
        #expect(Base64.encode(Array("Hello".utf8)) == "SGVsbG8=")
        #expect(Base64.decode("SGVsbG8===") == nil)
        #expect(Base64.decode("S") == nil)
        #expect(Base64.decode("SGVsbG9=") == nil)
    }

    @Test(arguments: [
        ("true", nil, true), ("false", nil, false),
        ("true", ContextValue("x"), false), ("false", ContextValue("x"), true),
        ("true", ContextValue(""), false),
        ("true", ContextValue(multiple: []), true), ("false", ContextValue(multiple: []), false),
        ("false", ContextValue(multiple: ["a"]), true),
    ] as [(String, ContextValue?, Bool)])
    func null(policy: String, value: ContextValue?, expected: Bool) throws {
        let condition = #"{"Null": {"aws:TokenIssueTime": ""# + policy + #""}}"#
        var values: [String: ContextValue] = [:]
        if let value { values["aws:TokenIssueTime"] = value }
        #expect(try self.holds(condition, values) == expected)
    }

    // MARK: IP addresses

    @Test(arguments: [
        ("203.0.113.0/24", "203.0.113.7", true), ("203.0.113.0/24", "203.0.114.7", false),
        ("203.0.113.7", "203.0.113.7", true), ("203.0.113.7/32", "203.0.113.8", false),
        ("0.0.0.0/0", "198.51.100.1", true), ("203.0.113.128/25", "203.0.113.127", false),
        ("2001:DB8:1234:5678::/64", "2001:db8:1234:5678:abcd::1", true),
        ("2001:DB8:1234:5678::/64", "2001:db8:1234:5679::1", false),
        ("2001:db8::/32", "2001:db8:ffff::1", true),
        ("::/0", "::1", true), ("::1", "0:0:0:0:0:0:0:1", true),
        ("::ffff:192.0.2.0/120", "::ffff:192.0.2.9", true),
        ("203.0.113.0/24", "::ffff:203.0.113.7", false),
        ("::/0", "203.0.113.7", false),
        ("10.0.0.0/8", "10.0.0", false), ("10.0.0.0/8", "10.0.0.256", false), ("10.0.0.0/8", "", false),
        ("2001:db8::/32", "2001:db8::1::2", false), ("2001:db8::/32", ":2001:db8::1", false),
    ])
    func ipAddresses(cidr: String, address: String, expected: Bool) throws {
        let condition = #"{"IpAddress": {"aws:SourceIp": ""# + cidr + #""}}"#
        #expect(try self.holds(condition, ["aws:SourceIp": ContextValue(address)]) == expected)
        let negated = #"{"NotIpAddress": {"aws:SourceIp": ""# + cidr + #""}}"#
        #expect(try self.holds(negated, ["aws:SourceIp": ContextValue(address)]) == !expected)
    }

    @Test func ipAddressWithSeveralRangesIsAnOr() throws {
        let condition = #"{"IpAddress": {"aws:SourceIp": ["192.0.2.0/24", "203.0.113.0/24"]}}"#
        #expect(try self.holds(condition, ["aws:SourceIp": "203.0.113.9"]))
        let negated = #"{"NotIpAddress": {"aws:SourceIp": ["192.0.2.0/24", "203.0.113.0/24"]}}"#
        #expect(try !self.holds(negated, ["aws:SourceIp": "203.0.113.9"]))
        #expect(try self.holds(negated, ["aws:SourceIp": "198.51.100.9"]))
    }

    @Test(arguments: ["10.0.0.0/33", "2001:db8::/129", "1.2.3", "1.2.3.4/", "::g", "1:2:3:4:5:6:7:8:9", "01234.1.1.1"])
    func invalidCIDRsAreRejected(cidr: String) {
        #expect(CIDRBlock.parse(cidr) == nil)
    }

    // MARK: ARN

    @Test(arguments: [
        ("ArnLike", "arn:aws:s3:::bucket-*", "arn:aws:s3:::bucket-logs", true),
        ("ArnLike", "arn:aws:iam::*:role/app", "arn:aws:iam::111122223333:role/app", true),
        ("ArnLike", "arn:aws:iam::*:role/app", "arn:aws:iam::111122223333:role/app2", false),
        ("ArnLike", "arn:aws:iam::111122223333:role/*", "arn:aws:iam::111122223333:role/a/b", true),
        ("ArnLike", "arn:aws:iam::1111*:role/app", "arn:aws:iam::111122223333:role/app", true),
        ("ArnLike", "arn:aws:iam::*:role/app", "arn:aws:iam::1:2:role/app", false),
        ("ArnLike", "arn:aws:iam::*:role/App", "arn:aws:iam::111122223333:role/app", false),
        ("ArnLike", "arn:aws:sns:*:*:topic", "not an arn", false),
        ("ArnEquals", "arn:aws:iam::*:role/app", "arn:aws:iam::111122223333:role/app", true),
        ("ArnEquals", "arn:aws:iam::111122223333:role/app", "arn:aws:iam::111122223333:role/app", true),
        ("ArnNotEquals", "arn:aws:iam::111122223333:role/app", "arn:aws:iam::111122223333:role/app", false),
        ("ArnNotLike", "arn:aws:iam::*:role/app", "arn:aws:iam::111122223333:role/other", true),
        ("ArnNotLike", "arn:aws:sns:*:*:topic", "not an arn", true),
        ("ArnLike", "arn:aws:s3:::b/*", "arn:aws:s3:::b/a:b", true),
    ])
    func arns(op: String, policy: String, request: String, expected: Bool) throws {
        let condition = #"{""# + op + #"": {"aws:SourceArn": ""# + policy + #""}}"#
        #expect(try self.holds(condition, ["aws:SourceArn": ContextValue(request)]) == expected)
    }
}

/// Parsing operator names, including the modifiers.
@Suite("Condition operator names")
struct ConditionOperatorNameTests {
    @Test func parsesAndPrintsEveryCombination() {
        let bases: [ConditionOperator] = [
            .stringEquals, .stringNotEquals, .stringEqualsIgnoreCase, .stringNotEqualsIgnoreCase, .stringLike,
            .stringNotLike, .numericEquals, .numericNotEquals, .numericLessThan, .numericLessThanEquals,
            .numericGreaterThan, .numericGreaterThanEquals, .dateEquals, .dateNotEquals, .dateLessThan,
            .dateLessThanEquals, .dateGreaterThan, .dateGreaterThanEquals, .bool, .binaryEquals, .ipAddress,
            .notIpAddress, .arnEquals, .arnLike, .arnNotEquals, .arnNotLike,
        ]
        #expect(bases.count == ConditionOperator.Base.allCases.count - 1)
        for base in bases {
            for op in [base, base.ifExists, .forAnyValue(base), .forAllValues(base.ifExists)] {
                #expect(ConditionOperator(op.name) == op, "\(op.name)")
            }
        }
        #expect(ConditionOperator("Null") == .null)
        #expect(ConditionOperator.forAnyValue(.stringLike).name == "ForAnyValue:StringLike")
        #expect(ConditionOperator.forAllValues(.stringLike).ifExists.description == "ForAllValues:StringLikeIfExists")
    }

    @Test func reportsFamiliesAndNegation() {
        #expect(ConditionOperator.stringNotLike.isNegated)
        #expect(ConditionOperator.notIpAddress.isNegated)
        #expect(!ConditionOperator.stringLike.isNegated)
        #expect(ConditionOperator.arnLike.family == .arn)
        #expect(ConditionOperator.dateLessThan.family == .date)
        #expect(ConditionOperator.stringLike.acceptsPolicyVariables)
        #expect(!ConditionOperator.numericEquals.acceptsPolicyVariables)
    }

    @Test(arguments: ["stringequals", "StringLikes", "ForAnyValue:", "ForSomeValues:StringLike", "NullIfExists", "ForAllValues:Null", "", "IfExists"])
    func rejectsUnknownNames(name: String) {
        #expect(ConditionOperator(name) == nil)
    }
}
