extension AWSProfileSet {
    /// Parses one file's contents and merges its sections into this set; for a property both define,
    /// the value merged last wins.
    ///
    /// The SDKs merge the config file first and the credentials file second. The rules that depend
    /// on the kind of file:
    /// - Config file: profiles are `[profile name]`, plus `[default]`. When the file has a
    ///   `[profile default]` section, every bare `[default]` section in it is ignored. `[sso-session
    ///   name]` and other `[type name]` sections are kept apart from profiles; any other bare section
    ///   is ignored.
    /// - Credentials file: profiles are `[name]`; sections with a prefix are ignored.
    /// - Section and property names must consist of `A-Z a-z 0-9 - / . % @ _ : +`; sections and
    ///   properties with other names are ignored (and noted in ``warnings``). A section named twice
    ///   has its properties merged.
    /// - Parameters:
    ///   - contents: The file's text.
    ///   - kind: Which file the text comes from.
    ///   - path: The file's path, named in errors; by default the kind of file.
    /// - Throws: ``WIFCredentialsError`` with code `profileParse` naming the file and line.
    public mutating func merge(contents: String, kind: AWSConfigFileKind, path: String? = nil) throws {
        let displayPath = path ?? "the \(kind.rawValue) file"
        let sections = try AWSConfigFileParser(path: displayPath).parse(contents)
        if let path { self.sourcePaths.append(path) }

        let headers = sections.map { SectionHeader(parsing: $0.header) }
        let ignoreBareDefault = kind == .config && headers.contains { $0.isPrefixedDefault }
        for (section, header) in zip(sections, headers) {
            let place = "[\(header.display)] at \(displayPath) line \(section.line)"
            switch header.classify(in: kind) {
            case .failure(let reason):
                self.warnings.append("\(place) ignored: \(reason)")
            case .success(.profile(let name)):
                if ignoreBareDefault && header.prefix == nil {
                    self.warnings.append("\(place) ignored: [profile default] takes precedence")
                    continue
                }
                var profile = self.profiles[name] ?? AWSProfile(name: name)
                self.mergeProperties(section.properties, into: &profile.properties, place: place)
                self.profiles[name] = profile
            case .success(.ssoSession(let name)):
                var session = self.ssoSessions[name] ?? AWSConfigFileSection(type: "sso-session", name: name)
                self.mergeProperties(section.properties, into: &session.properties, place: place)
                self.ssoSessions[name] = session
            case .success(.other(let type, let name)):
                var other = self.otherSections[type]?[name] ?? AWSConfigFileSection(type: type, name: name)
                self.mergeProperties(section.properties, into: &other.properties, place: place)
                self.otherSections[type, default: [:]][name] = other
            }
        }
    }

    private mutating func mergeProperties(_ properties: [String: String], into target: inout [String: String], place: String) {
        for (name, value) in properties {
            guard AWSConfigFileParser.isIdentifier(name) else {
                self.warnings.append("\(place): property '\(name)' ignored: not a valid property name")
                continue
            }
            target[name] = value
        }
    }
}

/// A section header split into its optional type prefix and its name.
private struct SectionHeader {
    enum Destination {
        case profile(String)
        case ssoSession(String)
        case other(type: String, name: String)
    }

    struct Rejection: Error, CustomStringConvertible {
        let description: String
    }

    /// The word before the first space or tab, when there is one.
    let prefix: String?
    /// The rest, trimmed; the whole header when there is no prefix.
    let name: String

    init(parsing header: String) {
        let trimmed = AWSConfigFileParser.trimmingWhitespace(header)
        if let split = trimmed.firstIndex(where: { $0 == " " || $0 == "\t" }) {
            self.prefix = String(trimmed[..<split])
            self.name = AWSConfigFileParser.trimmingWhitespace(String(trimmed[split...]))
        } else {
            self.prefix = nil
            self.name = trimmed
        }
    }

    var display: String {
        self.prefix.map { "\($0) \(self.name)" } ?? self.name
    }

    var isPrefixedDefault: Bool {
        self.prefix == "profile" && self.name == "default"
    }

    func classify(in kind: AWSConfigFileKind) -> Result<Destination, Rejection> {
        switch (kind, self.prefix) {
        case (.config, let prefix?):
            guard AWSConfigFileParser.isIdentifier(self.name) else {
                return .failure(Rejection(description: "'\(self.name)' is not a valid name"))
            }
            switch prefix {
            case "profile": return .success(.profile(self.name))
            case "sso-session": return .success(.ssoSession(self.name))
            default: return .success(.other(type: prefix, name: self.name))
            }
        case (.config, nil):
            guard self.name == "default" else {
                return .failure(
                    Rejection(description: "config-file sections other than [default] need a prefix, as in [profile \(self.name)]")
                )
            }
            return .success(.profile("default"))
        case (.credentials, let prefix?):
            if prefix == "profile" {
                return .failure(Rejection(description: "credentials-file profiles are written [\(self.name)], without 'profile'"))
            }
            return .failure(Rejection(description: "only profiles belong in the credentials file"))
        case (.credentials, nil):
            guard AWSConfigFileParser.isIdentifier(self.name) else {
                return .failure(Rejection(description: "'\(self.name)' is not a valid name"))
            }
            return .success(.profile(self.name))
        }
    }
}
