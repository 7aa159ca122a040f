import Foundation
import WIFTestSupport

/// Runs the built `wif-tool` binary as a user would, with a controlled environment.
struct ToolRunner {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The `wif-tool` executable next to the test bundle in the build products folder.
    static let executable: URL? = {
        var candidates: [URL] = []
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0])
        var folder = testBinary.deletingLastPathComponent()
        for _ in 0..<4 {
            candidates.append(folder.appendingPathComponent("wif-tool"))
            folder = folder.deletingLastPathComponent()
        }
        if let bundle = Bundle.allBundles.first(where: { $0.bundlePath.hasSuffix(".xctest") }) {
            candidates.append(URL(fileURLWithPath: bundle.bundlePath).deletingLastPathComponent().appendingPathComponent("wif-tool"))
        }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    /// An environment with nothing of the caller's AWS settings, so tests never pick up real credentials.
    static func cleanEnvironment(home: URL, extra: [String: String] = [:]) -> [String: String] {
        var environment: [String: String] = ["HOME": home.path, "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"]
        environment["AWS_CONFIG_FILE"] = home.appendingPathComponent("aws-config").path
        environment["AWS_SHARED_CREDENTIALS_FILE"] = home.appendingPathComponent("aws-credentials").path
        for (key, value) in extra { environment[key] = value }
        return environment
    }

    /// Runs `wif-tool` with `arguments` and returns its exit status and output.
    /// - Parameter stdinPath: A file to read standard input from (such as `/dev/zero`) instead of `stdin`.
    static func run(_ arguments: [String], environment: [String: String], stdin: Data? = nil, stdinPath: String? = nil) throws -> Result {
        guard let executable else {
            throw ToolError("wif-tool is not built next to the tests; run `swift build` first")
        }
        return try Self.run(executable: executable, arguments, environment: environment, stdin: stdin, stdinPath: stdinPath)
    }

    /// Runs another program (a client driving `wif-tool`) and returns its exit status and output.
    static func run(
        executable: URL, _ arguments: [String], environment: [String: String], stdin: Data? = nil, stdinPath: String? = nil
    ) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let input = Pipe()
        if let stdinPath {
            guard let file = FileHandle(forReadingAtPath: stdinPath) else { throw ToolError("cannot open \(stdinPath)") }
            process.standardInput = file
        } else {
            process.standardInput = input
        }
        try process.run()
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try input.fileHandleForWriting.close()
        // Read both pipes concurrently so a full pipe never blocks the child.
        let errData = LockedData()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            errData.set(err.fileHandleForReading.readDataToEndOfFile())
            group.leave()
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus,
            stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData.get(), as: UTF8.self)
        )
    }

    /// A fresh temporary folder for one test.
    static func temporaryDirectory() throws -> URL {
        let url = TemporaryFolder.url("wif-tool-tests")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

struct ToolError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

final class LockedData: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    func set(_ value: Data) { self.lock.withLock { self.data = value } }
    func get() -> Data { self.lock.withLock { self.data } }
}
