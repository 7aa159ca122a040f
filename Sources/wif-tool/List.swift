import ArgumentParser
import Foundation
import S3Partition
import WIFFileStore
import WIFTerminal

extension WIFTool {
    /// `wif-tool list`: the names in the signed-in user's folder.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the files in your folder of the shared bucket.",
            discussion: """
                Prints one name per line, in name order, for every file whose name starts with PREFIX \
                (all files when no PREFIX is given). --long adds the size in bytes and the time of the \
                last write: 'SIZE  TIME  NAME'. --json prints {"bucket", "prefix", "objects": [{"name", \
                "size", "lastModified", "eTag"}]}.

                It runs where the sign-in was made (its endpoint, STS endpoint, region and bucket) unless \
                --endpoint, WIF_ENDPOINT or the config file names an endpoint; a different one is refused \
                (exit status 3).

                Exit status: 0 listed (also when nothing matches); 3 not signed in, the sign-in expired, or the store's passphrase or key file is wrong; \
                4 access denied; 7 network or service failure; 8 the encrypted store is damaged or from a \
                newer wif-tool; 64 a refused prefix or bad options.
                """
        )

        @OptionGroup var options: GlobalOptions
        @OptionGroup var store: StoreOptions
        @OptionGroup var level: LevelOptions

        @Option(name: .long, help: "With --level protected: read this identity's protected folder (another user's identity id).")
        var identity: String?

        @Flag(name: [.short, .long], help: "Show sizes and times.")
        var long = false

        @Argument(help: "List only names starting with this.")
        var prefix: String = ""

        struct Entry: Encodable {
            var name: String
            var size: Int64
            var lastModified: Date?
            var eTag: String?
        }

        struct Output: Encodable {
            var bucket: String
            var prefix: String
            var objects: [Entry]
        }

        func run() async throws {
            try await reportingStoreErrors {
                let configuration = try ToolConfiguration.resolve(
                    store: self.store, region: self.options.region, environment: self.options.environment)
                let output = try await SignedInStore.with(configuration, environment: self.options.environment, logger: self.options.makeLogger(), level: self.level.level, identity: self.identity) { files in
                    var entries: [Entry] = []
                    for try await object in try files.bucket.list(prefix: self.prefix, logger: files.logger).objects {
                        entries.append(Entry(name: object.name, size: object.size, lastModified: object.lastModified, eTag: object.eTag))
                    }
                    return Output(bucket: files.session.bucket, prefix: files.session.prefix, objects: entries)
                }
                if self.options.json {
                    try printJSON(output)
                } else if self.long {
                    printOut(Self.longListing(output.objects))
                } else {
                    printOut(.lines(output.objects.map { "\($0.name)" }))
                }
            }
        }

        /// `SIZE  TIME  NAME` lines, sizes right-aligned, names escaped.
        static func longListing(_ entries: [Entry]) -> TerminalText {
            let width = entries.map { String($0.size).count }.max() ?? 0
            return .lines(
                entries.map { entry in
                    let size = String(entry.size)
                    let time = entry.lastModified.map { $0.formatted(.iso8601) } ?? "-"
                    let padding = TerminalText(stringLiteral: String(repeating: " ", count: width - size.count))
                    return "\(padding)\(size)  \(time)  \(entry.name)"
                })
        }
    }
}
