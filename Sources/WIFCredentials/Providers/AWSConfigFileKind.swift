/// Which of the two shared AWS files a text comes from.
///
/// The two files use different section headers: the config file names profiles `[profile name]`
/// (with `[default]` allowed as a shorthand) and also holds `[sso-session name]` and
/// `[services name]` sections, while the credentials file names profiles `[name]` and holds nothing
/// else.
public enum AWSConfigFileKind: String, Sendable, Hashable, CaseIterable {
    /// The shared config file, `~/.aws/config` unless `AWS_CONFIG_FILE` says otherwise.
    case config
    /// The shared credentials file, `~/.aws/credentials` unless `AWS_SHARED_CREDENTIALS_FILE` says
    /// otherwise.
    case credentials

    /// The environment variable that overrides this file's location.
    public var environmentVariable: String {
        switch self {
        case .config: "AWS_CONFIG_FILE"
        case .credentials: "AWS_SHARED_CREDENTIALS_FILE"
        }
    }

    /// The location used when the environment does not override it, with `~` for the home directory.
    public var defaultPath: String {
        switch self {
        case .config: "~/.aws/config"
        case .credentials: "~/.aws/credentials"
        }
    }
}
