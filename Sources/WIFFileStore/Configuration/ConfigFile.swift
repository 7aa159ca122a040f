import Foundation
import WIFFoundation

/// The config file, `~/.wif/config`: INI sections like the AWS config file.
///
/// ```
/// # Lines starting with '#' or ';' are comments.
/// [default]
/// endpoint = https://s3.eu-west-1.amazonaws.com
/// sts_endpoint = https://sts.eu-west-1.amazonaws.com
/// region = eu-west-1
/// bucket = my-shared-bucket
/// role_arn = arn:aws:iam::123456789012:role/personal-store-google
/// provider = google
/// partition_template = {id}/
///
/// [account bob]
/// provider = facebook
/// ```
///
/// Settings before the first section belong to `[default]`; an `[account NAME]` section overrides
/// `[default]` for `--account NAME`. `endpoint = embedded` selects the in-process local stack.
package struct ConfigFile: Sendable {
    /// The settings the file may hold.
    package enum Key: String, CaseIterable, Sendable {
        case endpoint
        case stsEndpoint = "sts_endpoint"
        case region
        case bucket
        case roleArn = "role_arn"
        case provider
        case partitionTemplate = "partition_template"
        case stsDeadline = "sts_deadline"
    }

    /// Settings by section: `""` for `[default]`, the account name for `[account NAME]`.
    package var sections: [String: [Key: ToolConfiguration.Setting]] = [:]

    /// The settings of an account: its section over `[default]`.
    package func settings(account: String?) -> [Key: ToolConfiguration.Setting] {
        var merged = self.sections[""] ?? [:]
        if let account, let own = self.sections[account] {
            merged.merge(own) { $1 }
        }
        return merged
    }

    /// Reads the file; a missing file is an empty configuration.
    package static func load(from url: URL) throws(FileStoreError) -> ConfigFile {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch let error as CocoaError where error.code == .fileReadNoSuchFile {
            return ConfigFile()
        } catch {
            if !FileManager.default.fileExists(atPath: url.path) { return ConfigFile() }
            throw FileStoreError.fileError("cannot read the config file \(url.path): \(FileFailure.reason(error, path: url.path))")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw FileStoreError.invalidSetting("the config file \(url.path) is not UTF-8 text")
        }
        return try Self.parse(text, path: url.path)
    }

    /// Parses the text of a config file.
    package static func parse(_ text: String, path: String) throws(FileStoreError) -> ConfigFile {
        var file = ConfigFile()
        var section = ""
        // Lines end at each line feed, read as scalars: in characters a CRLF is one character that is not
        // "\n", so a file saved with Windows line endings would be one long line.
        for (index, scalars) in text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let rawLine = Substring(scalars)
            let where_ = "\(path) line \(index + 1)"
            let line = rawLine.trimmingCharacters(in: .whitespaces.union(CharacterSet(charactersIn: "\r")))
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]") else {
                    throw FileStoreError.invalidSetting("\(where_): a section header must end with ']'")
                }
                let header = line.dropFirst().dropLast().split(separator: " ", omittingEmptySubsequences: true)
                if header == ["default"] {
                    section = ""
                } else if header.count == 2, header[0] == "account" {
                    let name = String(header[1])
                    do {
                        _ = try ToolConfiguration.account(flag: name, environment: [:])
                    } catch {
                        throw FileStoreError.invalidSetting("\(where_): \(error.message)")
                    }
                    section = name == "default" ? "" : name
                } else {
                    throw FileStoreError.invalidSetting(
                        "\(where_): unknown section '\(line)'; use [default] or [account NAME]")
                }
                continue
            }
            guard let equals = line.firstIndex(of: "=") else {
                throw FileStoreError.invalidSetting("\(where_): expected 'key = value'")
            }
            let name = line[..<equals].trimming(.whitespaces).lowercased()
            let value = line[line.index(after: equals)...].trimming(.whitespaces)
            guard let key = Key(rawValue: name) else {
                let known = Key.allCases.map(\.rawValue).joined(separator: ", ")
                throw FileStoreError.invalidSetting("\(where_): unknown setting '\(name)'; known settings: \(known)")
            }
            guard !value.isEmpty else {
                throw FileStoreError.invalidSetting("\(where_): '\(name)' has no value")
            }
            file.sections[section, default: [:]][key] = ToolConfiguration.Setting(value: value, origin: "\(where_) (\(name))")
        }
        return file
    }
}
