import PolicyEngine

/// One problem found while reading rules: where it is (a path such as `Todo.@auth.rules[1].allow`,
/// plus line and column) and why. The same diagnostic type as PolicyEngine's, so tools that print policy
/// and rule problems print them alike.
public typealias RuleDiagnostic = PolicyDiagnostic
