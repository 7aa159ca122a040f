import ArgumentParser
import Foundation
import WIFLocal

/// The options that say which stack a `local` command works with: its data directory and configuration file.
struct LocalOptions: ParsableArguments {
    @Option(name: .customLong("data-dir"), help: "The stack's data directory (default: $WIF_HOME/local, else ~/.wif/local).")
    var dataDirectory: String?

    @Option(name: .customLong("config"), help: "A JSON configuration file that changes the default configuration.")
    var configFile: String?

    /// The data directory: the option, `$WIF_HOME/local`, or `~/.wif/local`.
    func resolvedDataDirectory(environment: [String: String]) -> String {
        if let dataDirectory, !dataDirectory.isEmpty { return Self.absolute(dataDirectory) }
        if let home = environment["WIF_HOME"], !home.isEmpty {
            return (Self.absolute(home) as NSString).appendingPathComponent("local")
        }
        let userHome = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return (userHome as NSString).appendingPathComponent(".wif/local")
    }

    /// The configuration: the file's, or the default one.
    /// - Throws: ``CommandFailure`` with status `io` when the file cannot be read, `usage` when it is invalid.
    func configuration(environment: [String: String]) throws(CommandFailure) -> LocalConfiguration {
        let dataDirectory = self.resolvedDataDirectory(environment: environment)
        guard let configFile else {
            return LocalConfiguration.default(dataDirectory: dataDirectory)
        }
        let json: [UInt8]
        do throws(LocalStackError) {
            json = try LocalConfiguration.fileContents(configFile)
        } catch {
            throw CommandFailure(status: .io, message: error.message)
        }
        do throws(LocalStackError) {
            return try LocalConfiguration.load(json: json, file: configFile, dataDirectory: dataDirectory)
        } catch {
            throw CommandFailure(status: .usage, message: error.message)
        }
    }

    private static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        if path == "~" || path.hasPrefix("~/") { return (path as NSString).expandingTildeInPath }
        return (FileManager.default.currentDirectoryPath as NSString).appendingPathComponent(path)
    }
}
