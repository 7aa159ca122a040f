import ArgumentParser
import Foundation
import S3Partition
import WIFFileStore
import WIFFoundation

extension WIFTool {
    /// `wif-tool rm`: delete files from the signed-in user's folder.
    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rm",
            abstract: "Delete files from your folder of the shared bucket.",
            discussion: """
                Every NAME is checked before anything is sent. Names that do not exist are reported and \
                make the command exit 5 after the others are deleted; --force ignores them.

                rm --recursive PREFIX deletes every file whose name starts with PREFIX (dir/ for a folder; \
                a PREFIX without a '/' at its end also matches dir2/ and dir.txt). The files are listed \
                first, then deleted up to 1,000 in a request; names ending in '/' (folder markers) are not \
                files and are left. A listed name the name rules refuse is reported on its own 'error:' line \
                and left; the others are deleted, then the command fails with exit status 64. A PREFIX that \
                matches nothing is reported like a missing NAME.

                It runs where the sign-in was made (its endpoint, STS endpoint, region and bucket) unless \
                --endpoint, WIF_ENDPOINT or the config file names an endpoint; a different one is refused \
                (exit status 3).

                Exit status: 0 deleted; 3 not signed in, the sign-in expired, or the store's passphrase or key file is wrong; 4 access denied; 5 a NAME \
                does not exist; 7 network or service failure; 8 the encrypted store is damaged or from a newer \
                wif-tool; 64 a refused name or bad options.
                """
        )

        @OptionGroup var options: GlobalOptions
        @OptionGroup var store: StoreOptions
        @OptionGroup var level: LevelOptions

        @Flag(name: [.short, .long], help: "Do not complain about names that do not exist.")
        var force = false

        @Flag(name: [.short, .long], help: "Delete every file whose name starts with NAME.")
        var recursive = false

        @Argument(help: "The names to delete (with --recursive, name prefixes).")
        var names: [String] = []

        func validate() throws {
            guard !self.names.isEmpty else { throw ValidationError("give at least one NAME to delete") }
            if self.recursive && self.names.contains(where: \.isEmpty) {
                throw ValidationError("rm --recursive needs a non-empty PREFIX; an empty one would delete your whole folder")
            }
        }

        struct Output: Encodable {
            var deleted: [String]
            /// Names, or with --recursive prefixes, that matched no file.
            var missing: [String]
            /// With --recursive: listed names that were not deleted, and why.
            var refused: [Refused]?
        }

        /// A listed file that --recursive left, and why.
        struct Refused: Encodable {
            var name: String
            var reason: String
        }

        func run() async throws {
            try await reportingStoreErrors {
                let configuration = try ToolConfiguration.resolve(
                    store: self.store, region: self.options.region, environment: self.options.environment)
                let output = try await SignedInStore.with(configuration, environment: self.options.environment, logger: self.options.makeLogger(), level: self.level.level) { files in
                    if self.recursive { return try await self.removeRecursively(files) }
                    var unique: [String] = []
                    for name in self.names where !unique.contains(name) {
                        _ = try files.bucket.key(for: name)
                        unique.append(name)
                    }
                    // S3 deletes missing keys without complaint; look first so a mistyped name is reported.
                    var present: [String] = []
                    var missing: [String] = []
                    for name in unique {
                        if try await files.exists(name) {
                            present.append(name)
                        } else {
                            missing.append(name)
                        }
                    }
                    if present.count == 1 {
                        try await files.bucket.delete(present[0], logger: files.logger)
                    } else if !present.isEmpty {
                        let result = try await files.bucket.delete(present, logger: files.logger)
                        if let failure = result.failures.first {
                            throw S3Error(code: failure.code, message: failure.message, bucket: files.session.bucket, key: failure.key)
                        }
                    }
                    if !self.options.json && !self.store.quiet {
                        for name in present { printOut("deleted \(files.url(of: name))\n") }
                    }
                    return Output(deleted: present, missing: missing)
                }
                if self.options.json { try printJSON(output) }
                if let refused = output.refused, !refused.isEmpty {
                    let total = refused.count + output.deleted.count
                    throw CommandFailure(status: .usage, message: "\(refused.count) of \(total) files were not deleted (see above); the others were")
                }
                if !output.missing.isEmpty && !self.force {
                    let list = output.missing.map { "'\(PrintableText.escaping($0))'" }.joined(separator: ", ")
                    let what = self.recursive ? "no file whose name starts with" : "no file named"
                    throw CommandFailure(status: .notFound, message: "\(what) \(list) in your folder")
                }
            }
        }

        /// `rm --recursive`: lists each prefix, then deletes what was listed in batches.
        private func removeRecursively(_ files: SignedInStore) async throws -> Output {
            var listed: [String] = []
            var seen: Set<ExactText> = []
            var missing: [String] = []
            var refused: [Refused] = []
            func refuse(_ name: String, _ reason: String) {
                refused.append(Refused(name: name, reason: reason))
                printError("error: not deleted: \(PrintableText.escaping(name)): \(reason)\n")
            }
            for prefix in self.names {
                let (found, outside) = try await files.listFiles(startingWith: prefix)
                if found.isEmpty && outside.isEmpty { missing.append(prefix) }
                for name in outside { refuse(name, SignedInStore.outsideReason(prefix: prefix)) }
                for object in found where seen.insert(ExactText(object.name)).inserted {
                    do throws(S3Error) {
                        _ = try files.bucket.key(for: object.name)
                        listed.append(object.name)
                    } catch {
                        refuse(object.name, error.message)
                    }
                }
            }
            var deleted: [String] = []
            if !listed.isEmpty {
                let result = try await files.bucket.delete(listed, logger: files.logger)
                deleted = result.deleted
                if !self.options.json && !self.store.quiet {
                    for name in deleted { printOut("deleted \(files.url(of: name))\n") }
                }
                if let failure = result.failures.first {
                    throw S3Error(code: failure.code, message: failure.message, bucket: files.session.bucket, key: failure.key)
                }
            }
            return Output(deleted: deleted, missing: missing, refused: refused)
        }
    }
}
