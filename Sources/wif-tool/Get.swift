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
    /// `wif-tool get`: download files from the signed-in user's folder.
    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "get",
            abstract: "Download files from your folder of the shared bucket.",
            discussion: """
                get NAME writes the file to -o PATH (default: NAME's last segment in the current folder; \
                a PATH that is a folder or ends in '/' receives the file under that name, and a folder ending \
                in '/' is made when missing, once the file has arrived; '-o -' writes it \
                to standard output, in order, for a pipe). get --recursive \
                PREFIX -o DIR downloads every file whose name starts with PREFIX into DIR, keeping the \
                names' folders below PREFIX's last '/'. get --key KEY reads an object by its full key in \
                the bucket, outside your folder: the bucket's policy decides (another user's file is \
                refused with AccessDenied).

                A download is written to a temporary file and moved into place only once complete and \
                verified (length, ETag or checksum), so the destination is either the whole file or \
                untouched, even when the command is killed. Large objects arrive as parallel ranges. To \
                standard output the bytes go as they arrive: a broken connection resumes where it stopped, \
                and a failed check (exit status 7) comes after the bytes were written.

                get --recursive checks every name before writing anything. A name the name rules refuse, \
                or whose place in DIR is a symbolic link, a folder or a file's name, is reported on its \
                own 'error:' line and skipped; the other files are downloaded, then the command fails \
                with the first refusal's status. Folders below DIR are made and opened one by one \
                without following symbolic links, so nothing is written outside DIR.

                It runs where the sign-in was made (its endpoint, STS endpoint, region and bucket) unless \
                --endpoint, WIF_ENDPOINT or the config file names an endpoint; a different one is refused \
                (exit status 3).

                Exit status: 0 downloaded; 3 not signed in, the sign-in expired, or the store's passphrase or key file is wrong; 4 access denied; 5 no \
                such file; 6 a local file cannot be written; 7 network, service or verification failure; \
                8 the encrypted store is damaged or from a newer wif-tool; 64 a refused name or bad options.
                """
        )

        @OptionGroup var options: GlobalOptions
        @OptionGroup var store: StoreOptions
        @OptionGroup var level: LevelOptions

        @Option(name: .long, help: "With --level protected: read this identity's protected folder (another user's identity id).")
        var identity: String?

        @Flag(name: [.short, .long], help: "Download every file whose name starts with PREFIX.")
        var recursive = false

        @Flag(name: .long, help: "Treat the argument as a full key in the bucket, not a name in your folder.")
        var key = false

        @Option(
            name: [.short, .customLong("output")],
            help: "The destination file, or a folder (one ending in '/' is made when missing; with --recursive, always a folder); - for standard output.")
        var output: String?

        @Argument(help: "The name to download (with --recursive, the name prefix; with --key, the key).")
        var name: String

        @Option(name: .long, help: "With --recursive, how many files come down at once, 1 to 64 (by default 64 when none is over 16 KiB, else 16).")
        var jobs: Int?

        func validate() throws {
            if let jobs = self.jobs { try FileBatch.validate(jobs: jobs) }
            if self.recursive && self.key { throw ValidationError("--key reads one object; it cannot be combined with --recursive") }
            if let output, output.isEmpty { throw ValidationError("-o needs a path") }
            if self.writesStandardOutput {
                if self.recursive { throw ValidationError("-o - writes one file to standard output; it cannot be combined with --recursive") }
                if self.options.json { throw ValidationError("-o - writes the file to standard output, where --json would go; use one of them") }
            }
        }

        /// `-o -`: the file goes to standard output.
        var writesStandardOutput: Bool { self.output == "-" }

        struct Downloaded: Encodable {
            var name: String
            var path: String
            var size: Int64
            var eTag: String?
        }

        /// A file of a recursive download that was not written, and why.
        struct Refused: Encodable {
            var name: String
            var reason: String
            /// The exit status it calls for: 64 for a refused name, 6 for a local path.
            var status: ExitStatus

            enum CodingKeys: String, CodingKey { case name, reason }
        }

        struct Output: Encodable {
            var bucket: String
            var prefix: String
            var downloaded: [Downloaded]
            var refused: [Refused]?
        }

        func run() async throws {
            try await reportingStoreErrors {
                let configuration = try ToolConfiguration.resolve(
                    store: self.store, region: self.options.region, environment: self.options.environment)
                if self.writesStandardOutput {
                    _ = try await self.stream(configuration, to: STDOUT_FILENO)
                    return
                }
                if let special = Self.specialFile(self.recursive ? nil : self.output) {
                    try await self.write(configuration, into: special)
                    return
                }
                let staging = DownloadStaging.prepare(home: configuration.home)
                defer { staging.cleanUp() }
                let result = try await SignedInStore.with(configuration, environment: self.options.environment, logger: self.options.makeLogger(), level: self.level.level, identity: self.identity) { files in
                    // Signed in (any passphrase prompt is over): an interruption from here on removes the
                    // temporary files of the downloads.
                    InterruptCleanup.shared.install()
                    let plan: [Item]
                    let folder: DownloadFolder?
                    var refused: [Refused]?
                    if self.recursive {
                        let batch = try await self.folderPlan(files)
                        plan = batch.items
                        folder = batch.folder
                        refused = batch.refused
                        for entry in batch.refused { printError("error: not downloaded: \(entry.name): \(entry.reason)\n") }
                    } else {
                        if !self.key { _ = try files.bucket.key(for: self.name) }
                        let path = try Self.destination(for: self.name, output: self.output)
                        let base = try Self.existingFolder(above: path, output: self.output ?? path)
                        plan = [Item(name: self.name, path: path, size: nil, existingFolder: base)]
                        folder = nil
                    }
                    // One bar for all the files: the name of a single one (its size comes with the
                    // answer), else how many and their listed sizes.
                    let label = plan.count == 1 ? plan[0].name : "\(plan.count) files"
                    let total = plan.count == 1 ? nil : plan.reduce(Int64(0)) { sum, item in
                        // Listed sizes come from the server; a sum too large for 64 bits shows no total.
                        let (added, overflow) = sum.addingReportingOverflow(item.size ?? 0)
                        return overflow ? Int64.max : added
                    }
                    let bar = ProgressBar.standardError(label: label, total: total, quiet: self.store.quiet)
                    let progress = BatchProgress(bar: bar)
                    let byKey = self.key
                    var downloaded: [Downloaded] = []
                    let announces = !self.options.json && !self.store.quiet
                    let width = self.jobs ?? FileBatch.width(forSizes: plan.lazy.map(\.size))
                    try await FileBatch.run(plan, width: width) { index, item in
                        // `-o DIR/` may name folders that do not exist yet: the file is staged for the
                        // nearest one that does, and they are made once it is here.
                        let staged: String
                        if let folder {
                            staged = try folder.stagingPath(using: staging)
                        } else if let base = item.existingFolder {
                            staged = try staging.stagingPath(inFolder: base)
                        } else {
                            staged = staging.stagingPath(for: item.path)
                        }
                        let handler: TransferProgressHandler = { update in
                            if plan.count == 1, let total = update.totalBytes { bar.update(bytes: update.bytesTransferred, total: total) }
                            progress.update(file: index, transferred: update.bytesTransferred)
                        }
                        let metadata: ObjectMetadata
                        if byKey {
                            metadata = try await files.client.getObject(
                                bucket: files.session.bucket, key: item.name, toFile: staged, progress: handler, logger: files.logger)
                        } else {
                            metadata = try await files.reportingMissing(item.name) {
                                try await files.bucket.get(item.name, toFile: staged, progress: handler, logger: files.logger)
                            }
                        }
                        // In a folder, every folder below it is made and opened without following links, once
                        // the file is here (a failed download leaves no folder behind), and the file is renamed
                        // into the opened one.
                        if let folder, let relative = item.relative {
                            try folder.destination(for: relative).moveIn(from: staged)
                        } else {
                            if item.existingFolder != nil { try Self.makeFolders(above: item.path) }
                            try staging.finish(staged: staged, destination: item.path)
                        }
                        return Downloaded(name: item.name, path: item.path, size: metadata.contentLength, eTag: metadata.eTag)
                    } deliver: { _, entry in
                        if announces {
                            progress.clearLine()
                            let source = byKey ? "s3://\(files.session.bucket)/\(entry.name)" : files.url(of: entry.name)
                            printOut("downloaded \(source) -> \(entry.path) (\(ProgressBar.bytes(entry.size)))\n")
                        }
                        downloaded.append(entry)
                    }
                    progress.finish()
                    return Output(bucket: files.session.bucket, prefix: files.session.prefix, downloaded: downloaded, refused: refused)
                }
                if self.options.json { try printJSON(result) }
                if let refused = result.refused, let first = refused.first {
                    let total = refused.count + result.downloaded.count
                    throw CommandFailure(
                        status: first.status, message: "\(refused.count) of \(total) files were not downloaded (see above); the others were")
                }
            }
        }

        /// `-o PATH` naming a device (such as `/dev/null`), a FIFO or a socket, after links: the path, else `nil`.
        static func specialFile(_ output: String?) -> String? {
            guard let output, output != "-" else { return nil }
            var info = stat()
            guard stat(output, &info) == 0 else { return nil }
            let type = info.st_mode & S_IFMT
            return type == S_IFREG || type == S_IFDIR ? nil : output
        }

        /// `get NAME -o PATH` where PATH is a device, a FIFO or a socket: the file is written into it, in
        /// order, as `cp` and shell redirection do. It is never replaced by a regular file, which as root
        /// would have turned `/dev/null` into one.
        private func write(_ configuration: ToolConfiguration, into path: String) async throws {
            let descriptor = open(path, O_WRONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                throw CommandFailure(status: .io, message: "cannot open \(path): \(String(cString: strerror(errno)))")
            }
            defer { close(descriptor) }
            let written = try await self.stream(configuration, to: descriptor)
            let entry = Downloaded(name: self.name, path: path, size: written.metadata.contentLength, eTag: written.metadata.eTag)
            if self.options.json {
                try printJSON(Output(bucket: written.bucket, prefix: written.prefix, downloaded: [entry], refused: nil))
            } else if !self.store.quiet {
                printOut("downloaded \(written.source) -> \(path) (\(ProgressBar.bytes(entry.size)))\n")
            }
        }

        /// The file, in order, to a descriptor: standard output for `-o -` (where nothing else is
        /// printed; the progress bar is on standard error), or a special file.
        /// - Returns: The object's metadata, the bucket and prefix, and where the file came from.
        private func stream(
            _ configuration: ToolConfiguration, to descriptor: Int32
        ) async throws -> (metadata: ObjectMetadata, bucket: String, prefix: String, source: String) {
            try await SignedInStore.with(
                configuration, environment: self.options.environment, logger: self.options.makeLogger(), level: self.level.level,
                identity: self.identity
            ) { files in
                if !self.key { _ = try files.bucket.key(for: self.name) }
                let bar = ProgressBar.standardError(label: self.name, total: nil, quiet: self.store.quiet)
                let handler: TransferProgressHandler = { update in
                    if let total = update.totalBytes { bar.update(bytes: update.bytesTransferred, total: total) }
                }
                defer { bar.finish() }
                let source = self.key ? "s3://\(files.session.bucket)/\(self.name)" : files.url(of: self.name)
                do {
                    let metadata: ObjectMetadata
                    if self.key {
                        metadata = try await files.client.getObject(
                            bucket: files.session.bucket, key: self.name, toDescriptor: descriptor, progress: handler,
                            logger: files.logger)
                    } else {
                        metadata = try await files.reportingMissing(self.name) {
                            try await files.bucket.get(self.name, toDescriptor: descriptor, progress: handler, logger: files.logger)
                        }
                    }
                    return (metadata, files.session.bucket, files.session.prefix, source)
                } catch let error as S3Error where error.code == .fileError && descriptor == STDOUT_FILENO && Self.standardOutputIsClosed() {
                    // The reader went away (`| head`): end as cat does, by SIGPIPE, without an error line.
                    bar.finish()
                    signal(SIGPIPE, SIG_DFL)
                    raise(SIGPIPE)
                    throw error
                }
            }
        }

        /// Whether standard output is a pipe whose reading end has been closed.
        static func standardOutputIsClosed() -> Bool {
            var output = pollfd(fd: STDOUT_FILENO, events: Int16(POLLOUT), revents: 0)
            // Linux reports a pipe without a reader as an error, Darwin as a hang-up.
            return poll(&output, 1, 0) == 1 && output.revents & Int16(POLLERR | POLLHUP) != 0
        }

        /// A file to download: its name, destination and listed size; in a recursive download, its
        /// path below the output folder.
        struct Item: Sendable {
            var name: String
            var path: String
            var size: Int64?
            var relative: String?
            /// For a single file whose folder is still to be made: the nearest folder that exists.
            var existingFolder: String?
        }

        /// The files under the prefix, their places below the opened output folder, and those refused
        /// (by the name rules, or because of what is already in the folder): all checked before
        /// anything is written, so no folder is made for a refused file.
        private func folderPlan(_ files: SignedInStore) async throws -> (items: [Item], folder: DownloadFolder, refused: [Refused]) {
            // Names are cut over their UTF-8, as the kernel reads paths: a `/` that a combining mark follows
            // is one character in Swift but still a separator on disk.
            let slash = UInt8(ascii: "/")
            let baseLength = self.name.utf8.lastIndex(of: slash).map { self.name.utf8.distance(from: self.name.utf8.startIndex, to: $0) + 1 } ?? 0
            let (found, outsideNames) = try await files.listFiles(startingWith: self.name)
            let listed = found.map { object in
                (name: object.name, relative: String(decoding: object.name.utf8.dropFirst(baseLength), as: UTF8.self), size: object.size)
            }
            let outside = outsideNames.map { Refused(name: $0, reason: SignedInStore.outsideReason(prefix: self.name), status: .io) }
            guard !listed.isEmpty || !outside.isEmpty else {
                throw CommandFailure(
                    status: .notFound, message: self.name.isEmpty ? "your folder is empty" : "no files have names starting with '\(self.name)'")
            }
            if let output = self.output { try Self.refuseUnexpandedHome(output) }
            let folder = try DownloadFolder(path: URL(fileURLWithPath: self.output ?? FileManager.default.currentDirectoryPath).path)
            let local = folder.refusals(of: listed.map(\.relative))
            var items: [Item] = []
            var refused = outside
            for (entry, localReason) in zip(listed, local) {
                do throws(S3Error) {
                    _ = try files.bucket.key(for: entry.name)
                } catch {
                    refused.append(Refused(name: entry.name, reason: error.message, status: ExitStatus.classify(s3: error)))
                    continue
                }
                if let localReason {
                    refused.append(Refused(name: entry.name, reason: localReason, status: .io))
                    continue
                }
                items.append(Item(name: entry.name, path: folder.path(of: entry.relative), size: entry.size, relative: entry.relative))
            }
            return (items, folder, refused)
        }
    }
}
