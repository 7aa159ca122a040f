/// Whether a statement grants or refuses what it describes.
public enum Effect: String, Sendable, Hashable, Codable, CaseIterable {
    /// The statement grants access.
    case allow = "Allow"
    /// The statement refuses access; an explicit deny anywhere overrides every allow.
    case deny = "Deny"
}
