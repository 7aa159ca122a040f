import Testing

@testable import S3Partition

@Suite("Partition prefixes and name rules")
struct PartitionPrefixTests {
    static func prefix() throws -> PartitionPrefix { try PartitionPrefix.make(userId: "1001") }

    @Test("names map to <prefix><name> and back")
    func mapping() throws {
        let prefix = try PartitionPrefix.make(template: "facebook/{id}/", userId: "1001")
        #expect(prefix.value == "facebook/1001/")
        #expect(prefix.description == "facebook/1001/")
        #expect(try prefix.key(for: "photos/cat.jpg") == "facebook/1001/photos/cat.jpg")
        #expect(prefix.name(forKey: "facebook/1001/photos/cat.jpg") == "photos/cat.jpg")
        #expect(prefix.name(forKey: "facebook/10012/x") == nil)
        #expect(prefix.name(forKey: "facebook/1001/") == nil)
        #expect(prefix.name(forKey: "facebook/100") == nil)
        #expect(try prefix.listPrefix(for: "") == "facebook/1001/")
        #expect(try prefix.listPrefix(for: "photos/") == "facebook/1001/photos/")
        #expect(try prefix.listPrefix(for: "photos/2024-") == "facebook/1001/photos/2024-")
        #expect(try PartitionPrefix.make(userId: "us-east-1:0f1e2d3c").value == "us-east-1:0f1e2d3c/")
    }

    @Test("accepted names", arguments: [
        "a", "notes.txt", "photos/2024/cat.jpg", "...", ".hidden", "a/..b", "a/b..", "a b/c+d=e&f", "ünïcødé/файл",
        "emoji 🐈.png", "%2e%2e", "a/.../b", String(repeating: "x", count: 1024 - 5),
    ])
    func accepted(name: String) throws {
        #expect(try Self.prefix().key(for: name) == "1001/" + name)
    }

    @Test("refused names say which rule they break", arguments: [
        ("", NameRule.empty),
        ("/etc/passwd", .leadingSlash),
        ("/", .leadingSlash),
        ("photos/", .trailingSlash),
        ("a//b", .emptySegment),
        ("..", .dotSegment),
        (".", .dotSegment),
        ("../1002/secret.txt", .dotSegment),
        ("a/../../1002/x", .dotSegment),
        ("a/./b", .dotSegment),
        ("a/..", .dotSegment),
        ("a\\b", .backslash),
        ("..\\1002\\x", .backslash),
        ("a\u{0}b", .controlCharacter),
        ("line\nbreak", .controlCharacter),
        ("tab\there", .controlCharacter),
        ("cr\r", .controlCharacter),
        ("del\u{7F}", .controlCharacter),
        ("c1\u{85}next-line", .controlCharacter),
        ("esc\u{1B}[31m", .controlCharacter),
        (String(repeating: "x", count: 1024 - 4), .tooLong),
        (String(repeating: "é", count: 511), .tooLong),
    ])
    func refused(name: String, rule: NameRule) throws {
        let error = #expect(throws: S3Error.self) { try Self.prefix().key(for: name) }
        #expect(error?.code == .invalidObjectName)
        #expect(error?.nameRule == rule, "\(name.debugDescription): \(error?.message ?? "")")
        #expect(error?.message.contains(rule.description) == true)
        #expect(error?.message.unicodeScalars.allSatisfy { !NameRules.isControl($0) } == true, "control characters are escaped in messages")
    }

    @Test("the key limit counts the prefix")
    func keyLimit() throws {
        let long = try PartitionPrefix.make(template: "facebook/{id}/", userId: "1001")
        let name = String(repeating: "n", count: 1024 - long.value.utf8.count)
        #expect(try long.key(for: name).utf8.count == 1024)
        let error = #expect(throws: S3Error.self) { try long.key(for: name + "n") }
        #expect(error?.nameRule == .tooLong)
        #expect(error?.message.contains("the prefix takes 14 bytes and the name 1011") == true, "\(error?.message ?? "")")
    }

    @Test("listing prefixes may be empty, end with '/' or stop mid-name, but not escape", arguments: [
        ("", nil), ("photos/", nil), ("photos/ca", nil), ("..", nil), (".", nil), ("a/..b", nil),
        ("/", NameRule.leadingSlash), ("a//", .emptySegment), ("../", .dotSegment), ("a/../", .dotSegment), ("./x", .dotSegment),
        ("a\\", .backslash), ("a\u{0}", .controlCharacter),
    ])
    func listPrefixes(namePrefix: String, rule: NameRule?) throws {
        if let rule {
            let error = #expect(throws: S3Error.self) { try Self.prefix().listPrefix(for: namePrefix) }
            #expect(error?.nameRule == rule)
            #expect(error?.message.hasPrefix("name prefix") == true)
        } else {
            #expect(try Self.prefix().listPrefix(for: namePrefix) == "1001/" + namePrefix)
        }
    }

    @Test("user ids that could reach into another partition are refused", arguments: [
        ("", NameRule.empty), ("a/b", .containsSlash), ("../1002", .containsSlash), ("/", .containsSlash), (".", .dotSegment),
        ("..", .dotSegment), ("a\\b", .backslash), ("id\u{0}", .controlCharacter), ("id\n", .controlCharacter),
        ("id\u{7F}", .controlCharacter), (String(repeating: "9", count: 1100), .tooLong),
        // A combining mark makes `/` or `\` part of one Character; the bytes still hold the separator.
        ("alice/\u{301}x", .containsSlash), ("alice\\\u{301}x", .backslash),
    ])
    func refusedUserIds(userId: String, rule: NameRule) throws {
        let error = #expect(throws: S3Error.self) { try PartitionPrefix.make(userId: userId) }
        #expect(error?.code == .invalidUserId)
        #expect(error?.nameRule == rule, "\(userId.debugDescription)")
        #expect(error?.message.hasPrefix("user id '") == true)
    }

    @Test("user ids are inserted literally", arguments: ["*", "?", "${aws:userid}", "...", "a b", "auth0|123", "{id}"])
    func literalIds(userId: String) throws {
        let prefix = try PartitionPrefix.make(template: "p/{id}/", userId: userId)
        #expect(prefix.value == "p/\(userId)/")
        #expect(prefix.userId == userId)
        #expect(prefix.template == "p/{id}/")
    }

    @Test("templates must hold {id}, end with '/' and follow the name rules", arguments: [
        ("", NameRule.empty), ("users/", .missingPlaceholder), ("{id}", .missingTrailingSlash), ("users/{id}", .missingTrailingSlash),
        ("/{id}/", .leadingSlash), ("a//{id}/", .emptySegment), ("../{id}/", .dotSegment), ("a\\{id}/", .backslash),
        ("a\n/{id}/", .controlCharacter), ("{id}//", .emptySegment),
    ])
    func refusedTemplates(template: String, rule: NameRule) throws {
        let error = #expect(throws: S3Error.self) { try PartitionPrefix.make(template: template, userId: "1001") }
        #expect(error?.code == .invalidPrefixTemplate)
        #expect(error?.nameRule == rule, "\(template.debugDescription)")
    }

    @Test("one user's prefix is never the start of another's")
    func prefixesDoNotNest() throws {
        let ids = ["1", "12", "123", "1 ", "1.", "a", "a-b", "a_b"]
        let prefixes = try ids.map { try PartitionPrefix.make(template: "x/{id}-files/", userId: $0).value }
        for (i, first) in prefixes.enumerated() {
            for (j, second) in prefixes.enumerated() where i != j {
                #expect(!second.hasPrefix(first), "\(first) is a prefix of \(second)")
            }
        }
    }
}
