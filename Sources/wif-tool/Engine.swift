import ArgumentParser
import S3Partition
import WIFEngines
import WIFFileStore

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

/// Runs an engine command's body, reporting an ``EngineSetupError`` (and whatever `reportingStoreErrors`
/// reports) as one line on standard error with the exit status the command documents.
///
/// An engine's refusals carry S3's codes (RGW's IAM errors are S3-shaped), so they are reported as S3's
/// are: through the S3 client's error behind them, or an S3 error with the same code, reason, status and
/// request id.
func reportingEngineErrors(_ body: () async throws -> Void) async throws {
    try await reportingStoreErrors {
        do {
            try await body()
        } catch let error as EngineSetupError {
            throw error.s3Error
                ?? S3Error(
                    code: S3Error.Code(error.code.rawValue), message: error.reason, httpStatus: error.httpStatus, requestId: error.requestId,
                    credentialsError: error.credentialsError)
        }
    }
}
