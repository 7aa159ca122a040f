import ArgumentParser
import WIFCredentials

/// The options of `login --issuer`: the OpenID Connect issuer, its client and how the user approves.
struct OIDCIssuerOptions: ParsableArguments {
    @Option(name: .long, help: "Sign in with OpenID Connect at this issuer (its discovery document is URL/.well-known/openid-configuration).")
    var issuer: String?

    @Option(name: .long, help: "The OAuth client id registered at --issuer (a public client; PKCE protects the sign-in).")
    var clientId: String?

    @Option(name: .long, help: "The issuer identifier the ID tokens must carry as iss (default: the one the discovery document names).")
    var expectedIssuer: String?

    @Flag(name: .long, help: "With --issuer: sign in on another device with a user code (the default).")
    var device = false

    @Flag(name: .long, help: "With --issuer: sign in in a browser; the address is printed and opened when a browser can be started.")
    var browser = false

    func validate() throws {
        if self.issuer != nil {
            guard let clientId, !clientId.isEmpty else { throw ValidationError("--issuer needs --client-id ID") }
            if self.device && self.browser { throw ValidationError("give only one of --device and --browser") }
        } else if self.clientId != nil || self.device || self.browser || self.expectedIssuer != nil {
            throw ValidationError("--client-id, --expected-issuer, --device and --browser go with --issuer URL")
        }
    }
}

/// The options of `login` that say what a token federates into: the provider, the role, the folder
/// template and the credentials' lifetime.
struct FederationTargetOptions: ParsableArguments {
    @Option(name: .long, help: "The identity provider: google, facebook, amazon, cognito, oidc (default: WIF_PROVIDER, the config file).")
    var provider: String?

    @Option(name: .long, help: "The role to assume (default: WIF_ROLE_ARN, the config file, the embedded stack's role for the provider).")
    var roleArn: String?

    @Option(name: .long, help: "The folder template, with {id} for the user id (default: WIF_PARTITION_TEMPLATE, the config file, {id}/).")
    var partitionTemplate: String?

    @Option(name: .long, help: "The credentials' lifetime in seconds, 900 to 43200 (default: the role's, usually 3600).")
    var duration: Int?

    func validate() throws {
        if let duration, !AssumeRoleWithWebIdentityRequest.durationSecondsRange.contains(duration) {
            throw ValidationError("--duration must be 900 to 43200 seconds, not \(duration)")
        }
    }
}
