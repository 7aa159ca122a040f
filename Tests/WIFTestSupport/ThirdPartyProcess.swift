import Foundation

/// Runs a client program to completion.
public enum ThirdPartyProcess {
    /// A program that could not run or exited with a failure, with the end of what it wrote to standard error.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Whether `arguments` run and exit with status 0 (a quick probe for an installed program).
    public static func succeeds(_ arguments: [String]) -> Bool {
        (try? Self.runBlocking(arguments, environment: [:])) != nil
    }

    /// Runs `arguments` (looked up on `PATH`) with extra environment variables on a thread of its own,
    /// so that waiting for the program never holds one of the few threads the in-process stack (and
    /// every other test) answers on; returns standard output, or throws with standard error when the
    /// program fails.
    public static func run(_ arguments: [String], environment: [String: String]) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try Self.runBlocking(arguments, environment: environment) })
            }
        }
    }

    /// ``run(_:environment:)`` on the calling thread.
    public static func runBlocking(_ arguments: [String], environment: [String: String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe()
        let errorFile = TemporaryFolder.url("wif-client", suffix: ".err")
        FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errorFile) }
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: errorFile)
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let message = (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
            throw Failure(description: "\(arguments.joined(separator: " ")) exited with \(process.terminationStatus): \(message.suffix(2000))")
        }
        return String(decoding: data, as: UTF8.self)
    }
}
