import ArgumentParser

extension WIFTool {
    /// `wif-tool engine`: set up federation on a distributed object store that is not AWS.
    ///
    /// One subcommand per engine: `seaweedfs` (``SeaweedFS``), and `ceph-rgw` for the Ceph RADOS Gateway.
    struct Engine: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "engine",
            abstract: "Set up web-identity federation and per-user folders on another S3 engine.",
            discussion: """
                Each engine gets what the file commands need: the development issuer (or another OIDC \
                issuer) registered as the identity provider, the shared bucket, a role that the issuer's \
                users assume, and permissions that keep each user in their own folder. Afterwards \
                'wif-tool login --endpoint URL …' and the file commands work against the engine unchanged.
                """,
            subcommands: Self.engines
        )

        /// The engines, one subcommand each.
        static let engines: [any ParsableCommand.Type] = [SeaweedFS.self, CephRGW.self]
    }
}
