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

        @Argument(help: "The names to delete.")
        var names: [String] = []

        func validate() throws {
            guard !self.names.isEmpty else { throw ValidationError("give at least one NAME to delete") }
        }

        struct Output: Encodable {
            var deleted: [String]
            var missing: [String]
        }

        func run() async throws {
            try await reportingStoreErrors {
                let configuration = try ToolConfiguration.resolve(
                    store: self.store, region: self.options.region, environment: self.options.environment)
                let output = try await SignedInStore.with(configuration, environment: self.options.environment, logger: self.options.makeLogger(), level: self.level.level) { files in
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
                if !output.missing.isEmpty && !self.force {
                    let list = output.missing.map { "'\(PrintableText.escaping($0))'" }.joined(separator: ", ")
                    throw CommandFailure(status: .notFound, message: "no file named \(list) in your folder")
                }
            }
        }
    }
}
