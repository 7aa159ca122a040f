import Foundation
import Testing
@testable import WIFCredentials

/// A case from `profile-parser-tests.json`.
struct ProfileParserVector: Decodable, Sendable, CustomTestStringConvertible {
    struct Input: Decodable, Sendable {
        var configFile: String?
        var credentialsFile: String?
    }

    struct Expected: Decodable, Sendable {
        var profiles: [String: [String: String]]
        var ssoSessions: [String: [String: String]]?

        enum CodingKeys: String, CodingKey {
            case profiles
            case ssoSessions = "sso_sessions"
        }
    }

    struct Output: Decodable, Sendable {
        var config: Expected?
        var errorContaining: String?
    }

    var name: String
    var input: Input
    var output: Output

    var testDescription: String { self.name }

    static func all() throws -> [ProfileParserVector] {
        struct File: Decodable { var tests: [ProfileParserVector] }
        return try JSONDecoder().decode(File.self, from: AWSConfigFixtures.data("profile-parser-tests.json")).tests
    }
}

/// A case from `file-location-tests.json`.
struct FileLocationVector: Decodable, Sendable, CustomTestStringConvertible {
    var name: String
    var environment: [String: String]
    var platform: String
    var profile: String?
    var configLocation: String
    var credentialsLocation: String

    var testDescription: String { "\(self.name) [\(self.platform)]" }

    static func all() throws -> [FileLocationVector] {
        struct File: Decodable { var tests: [FileLocationVector] }
        return try JSONDecoder().decode(File.self, from: AWSConfigFixtures.data("file-location-tests.json")).tests
    }
}

enum AWSConfigFixtures {
    struct Missing: Error, CustomStringConvertible {
        var description: String
    }

    static func data(_ name: String) throws -> Data {
        guard let fixtures = Bundle.module.url(forResource: "Fixtures", withExtension: nil) else {
            throw Missing(description: "the Fixtures folder is not in the test bundle")
        }
        return try Data(contentsOf: fixtures.appendingPathComponent("aws-config").appendingPathComponent(name))
    }
}

@Suite struct AWSConfigFileVectorTests {
    @Test func allParserVectorsArePresent() throws {
        #expect(try ProfileParserVector.all().count == 65)
    }

    @Test func allFileLocationVectorsArePresent() throws {
        #expect(try FileLocationVector.all().count == 9)
    }

    @Test(arguments: try ProfileParserVector.all())
    func parser(_ vector: ProfileParserVector) throws {
        let parse = {
            try AWSProfileSet(configFile: vector.input.configFile, credentialsFile: vector.input.credentialsFile)
        }
        if let fragment = vector.output.errorContaining {
            let error = try #require(throws: WIFCredentialsError.self) { try parse() }
            #expect(error.code == .profileParse)
            #expect(error.reason.contains(fragment), "\(error.reason)")
            #expect(error.reason.contains(" on line "))
            return
        }
        let expected = try #require(vector.output.config)
        let set = try parse()
        #expect(set.profiles.mapValues(\.properties) == expected.profiles)
        for (name, profile) in set.profiles {
            #expect(profile.name == name)
        }
        if let sessions = expected.ssoSessions {
            #expect(set.ssoSessions.mapValues(\.properties) == sessions)
        }
    }

    @Test(arguments: try FileLocationVector.all())
    func fileLocation(_ vector: FileLocationVector) throws {
        let platform = try #require(AWSConfigFileLocation.Platform(vectorName: vector.platform))
        let location = AWSConfigFileLocation(environment: vector.environment, platform: platform)
        #expect(location.configFilePath == vector.configLocation)
        #expect(location.credentialsFilePath == vector.credentialsLocation)
        #expect(location.profileName == (vector.profile ?? "default"))
    }
}

extension AWSConfigFileLocation.Platform {
    /// Maps the vectors' `platform` field ("linux", "macos", "windows").
    init?(vectorName: String) {
        switch vectorName {
        case "windows": self = .windows
        case "linux", "macos", "macOS", "darwin": self = .posix
        default: return nil
        }
    }
}
