import Foundation

/// A temporary world for the file-store commands: a home folder, a `WIF_HOME` inside it (so the
/// embedded stack's data is private to the test), and a work folder for files to upload and download.
struct StoreFixture {
    let root: URL
    let home: URL
    let wifHome: URL
    let work: URL
    /// Extra environment for every run, such as `WIF_ENDPOINT` for a peer.
    var environment: [String: String] = [:]

    init() throws {
        self.root = try ToolRunner.temporaryDirectory()
        self.home = self.root.appendingPathComponent("home")
        self.wifHome = self.home.appendingPathComponent("wif")
        self.work = self.root.appendingPathComponent("work")
        for folder in [self.home, self.work] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
    }

    /// Removes everything the test made.
    func remove() {
        try? FileManager.default.removeItem(at: self.root)
    }

    /// The environment of a run: no AWS settings of the caller, `WIF_HOME` inside the fixture.
    func env(_ extra: [String: String] = [:]) -> [String: String] {
        var variables = self.environment
        variables["WIF_HOME"] = self.wifHome.path
        variables.merge(extra) { $1 }
        return ToolRunner.cleanEnvironment(home: self.home, extra: variables)
    }

    /// Runs `wif-tool` with the fixture's environment, in the work folder.
    func run(_ arguments: [String], _ extra: [String: String] = [:], stdin: Data? = nil) throws -> ToolRunner.Result {
        try ToolRunner.run(arguments, environment: self.env(extra), stdin: stdin)
    }

    /// A path in the work folder.
    func path(_ name: String) -> String {
        self.work.appendingPathComponent(name).path
    }

    /// Writes `size` pseudo-random bytes to `name` in the work folder; different seeds give different content.
    @discardableResult
    func makeFile(_ name: String, size: Int, seed: UInt64 = 1) throws -> String {
        let url = self.work.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        var remaining = size
        let chunk = 1 << 20
        var buffer = [UInt8](repeating: 0, count: chunk)
        while remaining > 0 {
            let count = min(chunk, remaining)
            buffer.withUnsafeMutableBytes { raw in
                let words = raw.bindMemory(to: UInt64.self)
                for index in 0..<(count + 7) / 8 where index < words.count {
                    // xorshift64*: fast, and different for every position and seed.
                    state ^= state >> 12
                    state ^= state << 25
                    state ^= state >> 27
                    words[index] = state &* 0x2545_F491_4F6C_DD1D
                }
            }
            try handle.write(contentsOf: buffer[0..<count])
            remaining -= count
        }
        return url.path
    }

    /// The SHA-256 of a file, from the system's `sha256sum` (or `shasum -a 256`).
    static func sha256(_ path: String) throws -> String {
        let process = Process()
        if let tool = MotoPeer.onPath("sha256sum") {
            process.executableURL = tool
            process.arguments = [path]
        } else if let tool = MotoPeer.onPath("shasum") {
            process.executableURL = tool
            process.arguments = ["-a", "256", path]
        } else {
            throw ToolError("neither sha256sum nor shasum is on PATH")
        }
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0, let digest = String(decoding: data, as: UTF8.self).split(separator: " ").first else {
            throw ToolError("cannot checksum \(path)")
        }
        return String(digest)
    }

    /// Parses standard output as one JSON object.
    static func object(_ result: ToolRunner.Result) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] else {
            throw ToolError("not a JSON object: \(result.stdout)")
        }
        return object
    }

    /// Starts `wif-tool` without waiting for it, its output discarded.
    func launch(_ arguments: [String], _ extra: [String: String] = [:]) throws -> Process {
        guard let executable = ToolRunner.executable else { throw ToolError("wif-tool is not built") }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = self.env(extra)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return process
    }
}
