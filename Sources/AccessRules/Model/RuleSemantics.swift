/// Which meaning rules have, chosen per schema and stated in every decision.
public enum RuleSemantics: String, Sendable, Hashable, CaseIterable, Codable {
    /// Amplify's current transformer: deny by default; an operation no rule lists is denied.
    case v2
    /// What Amplify DataStore's older documentation describes: rules protect only the operations they
    /// list, so with `{ allow: owner, operations: [create, update, delete] }` other signed-in callers
    /// may still read.
    case v1
}
