/// The policy language version named by a policy's `Version` element.
///
/// Only ``v2012_10_17`` substitutes policy variables such as `${aws:userid}`; under ``v2008_10_17`` (the
/// default when `Version` is absent) a variable is literal text.
public enum PolicyVersion: String, Sendable, Hashable, Codable, CaseIterable {
    /// The current policy language.
    case v2012_10_17 = "2012-10-17"
    /// The original policy language, without policy variables.
    case v2008_10_17 = "2008-10-17"

    /// Whether `${…}` is substituted under this version.
    public var supportsVariables: Bool { self == .v2012_10_17 }
}
