import Foundation
import WIFTerminal

/// Arguments that start with `-` but name a file: swift-argument-parser reads `-dash.txt` as the short
/// options `-d -a -s -h …`, so `put -dash.txt` printed the help and exited 0, and `put -file.txt` dropped
/// the name and said no file was given. Such an argument is refused before parsing, with the ways to
/// give it.
enum DashedArguments {
    /// The first argument before `--` that starts with one `-`, is more than one option letter, is not
    /// a short option with its value joined by `=` (`-o=out/file`), and holds a `.` or a `/` (which no
    /// option name has) or, when it is not letters only (which could be flags, `-rq`), names something
    /// on disk.
    static func fileLike(in arguments: [String]) -> String? {
        for argument in arguments {
            if argument == "--" { return nil }
            guard argument.hasPrefix("-"), !argument.hasPrefix("--"), argument.count > 2, argument.dropFirst(2).first != "=" else {
                continue
            }
            if argument.contains(".") || argument.contains("/") { return argument }
            if !argument.dropFirst().allSatisfy(\.isLetter), FileManager.default.fileExists(atPath: argument) { return argument }
        }
        return nil
    }

    /// What to tell the user about such an argument.
    static func message(_ argument: String) -> TerminalText {
        """
        Error: '\(argument)' starts with '-', so it is read as options. Give names that start with '-' after \
        '--' (a local file also as ./\(argument)), and an option's value that starts with '-' as \
        --option=\(argument).

        """
    }
}
