import Foundation
import WIFTerminal

/// Arguments that start with `-` but name a file: swift-argument-parser reads `-dash.txt` as the short
/// options `-d -a -s -h …`, so `put -dash.txt` printed the help and exited 0, and `put -file.txt` dropped
/// the name and said no file was given. Such an argument is refused before parsing, with the two ways
/// to give it.
enum DashedArguments {
    /// The first argument before `--` that starts with one `-`, is more than one option letter, and
    /// holds a `.` or a `/` (which no option name has) or names something on disk.
    static func fileLike(in arguments: [String], exists: (String) -> Bool = { FileManager.default.fileExists(atPath: $0) }) -> String? {
        for argument in arguments {
            if argument == "--" { return nil }
            guard argument.hasPrefix("-"), !argument.hasPrefix("--"), argument.count > 2 else { continue }
            if argument.contains(".") || argument.contains("/") || exists(argument) { return argument }
        }
        return nil
    }

    /// What to tell the user about such an argument.
    static func message(_ argument: String) -> TerminalText {
        """
        Error: '\(argument)' starts with '-', so it is read as options; a file of that name goes after '--' or \
        as ./\(argument), and an option's value goes after a space

        """
    }
}
