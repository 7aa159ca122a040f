/// Every model's rules from one schema or rules file, and the semantics they are read with.
public struct RuleSet: Sendable {
    /// The models, by name.
    public var models: [String: ModelRules]
    /// How the rules are read; ``RuleSemantics/v2`` unless the file or the caller says otherwise.
    public var semantics: RuleSemantics

    /// Creates a rule set.
    /// - Parameters:
    ///   - models: The models' rules.
    ///   - semantics: How the rules are read.
    public init(models: [ModelRules], semantics: RuleSemantics = .v2) {
        var byName: [String: ModelRules] = [:]
        for model in models { byName[model.name] = model }
        self.models = byName
        self.semantics = semantics
    }

    /// The model names, sorted.
    public var modelNames: [String] { self.models.keys.sorted() }
}
