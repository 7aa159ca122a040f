import ArgumentParser
import Foundation
import S3Partition
import WIFFileStore
import WIFTerminal

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension WIFTool {
    /// `wif-tool put`: upload files into the signed-in user's folder.
    struct Put: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "put",
            abstract: "Upload files into your folder of the shared bucket.",
            discussion: """
                Each FILE is stored under its file name, or under --as NAME (a NAME ending in '/' is a \
                folder the file goes into). --recursive DIR uploads every regular file below DIR, named \
                by its path relative to DIR under --to PREFIX (default: DIR's own name followed by '/'; \
                --to '' stores them at the top of your folder).

                put - --as NAME stores standard input under NAME, read to its end: \
                tar c photos | wif-tool put - --as photos.tar. Input that ends within one part goes up \
                at once; longer input goes up part by part as it is read, each part signed chunk by \
                chunk, so its length need not be known and memory holds at most two parts.

                Names are checked before anything is sent: empty names, '.' or '..' segments, a leading \
                '/', '//', backslashes, control characters and keys over 1,024 bytes are refused, with \
                the rule in the message. Large files go up in parallel parts; every upload carries a \
                SHA-256 checksum that S3 verifies. A progress bar appears on a terminal when a transfer \
                takes more than a second (--quiet hides it).

                It runs where the sign-in was made (its endpoint, STS endpoint, region and bucket) unless \
                --endpoint, WIF_ENDPOINT or the config file names an endpoint; a different one is refused \
                (exit status 3).

                Exit status: 0 all uploaded; 3 not signed in, the sign-in expired, or the store's passphrase or key file is wrong; 4 access denied; \
                6 a local file cannot be read; 7 network or service failure; 8 the encrypted store is damaged \
                or from a newer wif-tool; 64 a refused name or bad options.
                """
        )

        @OptionGroup var options: GlobalOptions
        @OptionGroup var store: StoreOptions
        @OptionGroup var level: LevelOptions

        @Flag(name: [.short, .long], help: "Upload the files below a folder.")
        var recursive = false

        @Option(name: .customLong("as"), help: "The name to store a single FILE under.")
        var name: String?

        @Option(name: .long, help: "With --recursive, the name prefix to store the files under.")
        var to: String?

        @Option(name: .long, help: "How many files go up at once, 1 to 64 (by default 64 when none is over 16 KiB, else 16).")
        var jobs: Int?

        @Argument(help: "The files to upload (or, with --recursive, one folder; '-' for standard input).")
        var paths: [String] = []

        /// Whether the one thing to upload is standard input (`put - --as NAME`).
        var readsStandardInput: Bool { self.paths.contains("-") }

        func validate() throws {
            if let jobs = self.jobs { try FileBatch.validate(jobs: jobs) }
            guard !self.paths.isEmpty else {
                throw ValidationError(self.recursive ? "give the folder to upload: put --recursive DIR" : "give at least one FILE to upload")
            }
            if self.readsStandardInput {
                guard self.paths.count == 1, !self.recursive else {
                    throw ValidationError("'-' uploads standard input alone: put - --as NAME")
                }
                guard let name = self.name, !name.hasSuffix("/") else {
                    throw ValidationError("standard input has no file name; give the name to store it under: put - --as NAME")
                }
                if self.to != nil { throw ValidationError("--to is for --recursive; name standard input with --as NAME") }
                return
            }
            if self.recursive {
                guard self.paths.count == 1 else { throw ValidationError("--recursive uploads one folder; give exactly one DIR") }
                if self.name != nil { throw ValidationError("--as names a single file; with --recursive use --to PREFIX") }
            } else {
                if self.to != nil { throw ValidationError("--to is for --recursive; name a single file with --as NAME") }
                if self.name != nil && self.paths.count != 1 {
                    throw ValidationError("--as names a single file, but \(self.paths.count) files were given")
                }
            }
        }

        struct Uploaded: Encodable {
            var name: String
            var file: String
            var size: Int64
            var eTag: String?
            var checksum: String?
            var parts: Int
        }

        struct Output: Encodable {
            var bucket: String
            var prefix: String
            var uploaded: [Uploaded]
        }

        func run() async throws {
            try await reportingStoreErrors {
                let configuration = try ToolConfiguration.resolve(
                    store: self.store, region: self.options.region, environment: self.options.environment)
                if self.readsStandardInput, let name = self.name {
                    try await self.uploadStandardInput(as: name, configuration: configuration)
                    return
                }
                let plan = try self.plan()
                let uploaded = try await SignedInStore.with(configuration, environment: self.options.environment, logger: self.options.makeLogger(), level: self.level.level) { files in
                  // Signed in (any passphrase prompt is over): Control-C from here on cancels the uploads,
                  // which abort their multipart uploads, before the signal ends the process.
                  try await InterruptCleanup.shared.cancellingOnInterrupt {
                    // Every name is checked before the first request, and every refused one is named.
                    var refused: [(name: String, error: S3Error)] = []
                    for item in plan {
                        do throws(S3Error) {
                            _ = try files.bucket.key(for: item.name)
                        } catch {
                            refused.append((item.name, error))
                        }
                    }
                    if let first = refused.first {
                        guard refused.count > 1 else { throw first.error }
                        // Each message names its file, escaped.
                        let lines = refused.map { "  \(ExitStatus.message(s3: $0.error))" }
                        throw CommandFailure(
                            status: ExitStatus.classify(s3: first.error),
                            message: "\(refused.count) of \(plan.count) files cannot be stored under their names; nothing was uploaded:\n" + lines.joined(separator: "\n"))
                    }
                    // One bar for all the files: the name of a single one, else how many.
                    let label = plan.count == 1 ? plan[0].name : "\(plan.count) files"
                    let progress = BatchProgress(
                        bar: ProgressBar.standardError(label: label, total: plan.reduce(0) { $0 + $1.size }, quiet: self.store.quiet))
                    var uploaded: [Uploaded] = []
                    let announces = !self.options.json && !self.store.quiet
                    // A size of 0 is read to its end (a FIFO, a device, a file of /proc): not known in advance.
                    let width = self.jobs ?? FileBatch.width(forSizes: plan.lazy.map { $0.size == 0 ? nil : $0.size })
                    try await FileBatch.run(plan, width: width) { index, item in
                        let report: TransferProgressHandler = { progress.update(file: index, transferred: $0.bytesTransferred) }
                        let result: PutObjectResult
                        if item.size == 0 {
                            // Read to its end rather than trusted to be empty: a FIFO, a device, or a file of
                            // /proc or /sys, which says it holds nothing and has something to read.
                            let descriptor = open(item.path, O_RDONLY | O_CLOEXEC)
                            guard descriptor >= 0 else {
                                throw CommandFailure(status: .io, message: "cannot read \(item.path): \(String(cString: strerror(errno)))")
                            }
                            defer { close(descriptor) }
                            result = try await files.bucket.put(
                                item.name, from: SequentialInput(descriptor: descriptor, name: item.path), progress: report, logger: files.logger)
                        } else {
                            result = try await files.bucket.put(item.name, fromFile: item.path, progress: report, logger: files.logger)
                        }
                        return Uploaded(
                            name: item.name, file: item.path, size: result.size, eTag: result.eTag, checksum: result.checksum,
                            parts: result.partCount)
                    } deliver: { _, entry in
                        if announces {
                            progress.clearLine()
                            printOut("uploaded \(entry.file) -> \(files.url(of: entry.name)) (\(ProgressBar.bytes(entry.size)))\n")
                        }
                        uploaded.append(entry)
                    }
                    progress.finish()
                    return Output(bucket: files.session.bucket, prefix: files.session.prefix, uploaded: uploaded)
                  }
                }
                if self.options.json { try printJSON(uploaded) }
            }
        }

        /// Uploads standard input, read to its end, under `name`.
        func uploadStandardInput(as name: String, configuration: ToolConfiguration) async throws {
            let output = try await SignedInStore.with(configuration, environment: self.options.environment, logger: self.options.makeLogger(), level: self.level.level) { files in
              try await InterruptCleanup.shared.cancellingOnInterrupt {
                _ = try files.bucket.key(for: name)
                let bar = ProgressBar.standardError(label: name, total: nil, quiet: self.store.quiet)
                let result = try await files.bucket.put(
                    name, from: .standardInput, progress: { bar.update(bytes: $0.bytesTransferred, total: $0.totalBytes) },
                    logger: files.logger)
                if !self.options.json && !self.store.quiet {
                    bar.clearLine()
                    printOut("uploaded standard input -> \(files.url(of: name)) (\(ProgressBar.bytes(result.size)))\n")
                }
                bar.finish()
                let uploaded = Uploaded(
                    name: name, file: "-", size: result.size, eTag: result.eTag, checksum: result.checksum, parts: result.partCount)
                return Output(bucket: files.session.bucket, prefix: files.session.prefix, uploaded: [uploaded])
              }
            }
            if self.options.json { try printJSON(output) }
        }

        struct Item: Sendable {
            var path: String
            var name: String
            var size: Int64
        }

        /// The files to upload and their names, after checking that every file can be read.
        func plan() throws(CommandFailure) -> [Item] {
            if self.recursive {
                return try Self.folderPlan(self.paths[0], prefix: self.to)
            }
            var items: [Item] = []
            for path in self.paths {
                let size = try Self.readableFileSize(path)
                let fileName = URL(fileURLWithPath: path).lastPathComponent
                var name = self.name ?? fileName
                if name.hasSuffix("/") { name += fileName }
                items.append(Item(path: path, name: name, size: size))
            }
            return items
        }

        /// Every regular file below `folder`, named by its relative path under `prefix`.
        static func folderPlan(_ folder: String, prefix: String?) throws(CommandFailure) -> [Item] {
            let root = URL(fileURLWithPath: folder).standardizedFileURL
            var info = stat()
            guard stat(root.path, &info) == 0 else {
                throw CommandFailure(status: .io, message: "cannot read folder \(folder): \(String(cString: strerror(errno)))")
            }
            guard (info.st_mode & S_IFMT) == S_IFDIR else {
                throw CommandFailure(status: .usage, message: "\(folder) is not a folder; --recursive uploads a folder")
            }
            var namePrefix = prefix ?? (root.lastPathComponent + "/")
            if !namePrefix.isEmpty && !namePrefix.hasSuffix("/") { namePrefix += "/" }
            guard let enumerator = FileManager.default.enumerator(atPath: root.path) else {
                throw CommandFailure(status: .io, message: "cannot list folder \(folder)")
            }
            var items: [Item] = []
            while let relative = enumerator.nextObject() as? String {
                let path = root.appendingPathComponent(relative).path
                var entry = stat()
                guard lstat(path, &entry) == 0, (entry.st_mode & S_IFMT) == S_IFREG else { continue }
                items.append(Item(path: path, name: namePrefix + relative, size: Int64(entry.st_size)))
            }
            guard !items.isEmpty else {
                throw CommandFailure(status: .usage, message: "folder \(folder) holds no files to upload")
            }
            return items.sorted { $0.name < $1.name }
        }

        /// The size of a readable file: a regular file's length, 0 for a FIFO or a character device (such
        /// as `<(command)` or `/dev/stdin`), which is read to its end.
        static func readableFileSize(_ path: String) throws(CommandFailure) -> Int64 {
            var info = stat()
            guard stat(path, &info) == 0 else {
                throw CommandFailure(status: .io, message: "cannot read \(path): \(String(cString: strerror(errno)))")
            }
            if (info.st_mode & S_IFMT) == S_IFDIR {
                throw CommandFailure(status: .usage, message: "\(path) is a folder; upload folders with put --recursive")
            }
            let type = info.st_mode & S_IFMT
            guard type == S_IFREG || type == S_IFIFO || type == S_IFCHR else {
                throw CommandFailure(status: .io, message: "\(path) is not a regular file, a FIFO or a character device")
            }
            guard access(path, R_OK) == 0 else {
                throw CommandFailure(status: .io, message: "cannot read \(path): \(String(cString: strerror(errno)))")
            }
            return type == S_IFREG ? Int64(info.st_size) : 0
        }
    }
}
