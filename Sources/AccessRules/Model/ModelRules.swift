/// The rules of one model (a GraphQL type with `@model`): its own `@auth` rules, the rules of its
/// fields, and the fields it declares, so that owner and group fields can be checked.
public struct ModelRules: Sendable {
    /// The declared type of a field, as far as the rules care.
    public struct FieldType: Sendable, Hashable {
        /// The named type at the bottom (`String`, `ID`, `AWSDateTime`, …).
        public var name: String
        /// Whether the field holds a list.
        public var isList: Bool

        /// Creates a field type.
        /// - Parameters:
        ///   - name: The named type.
        ///   - isList: Whether the field is a list.
        public init(name: String, isList: Bool = false) {
            self.name = name
            self.isList = isList
        }

        /// Whether it can hold an owner or a group name: a string or a list of strings.
        var holdsNames: Bool { self.name == "String" || self.name == "ID" }
    }

    /// The model's name.
    public var name: String
    /// The model's own rules, in the order written.
    public var rules: [AuthRule]
    /// Rules on single fields, which replace the model's rules for that field.
    public var fieldRules: [String: [AuthRule]]
    /// The declared fields and their types.
    public var fields: [String: FieldType]
    /// Where the type was declared, when it came from text.
    public var location: SourcePosition?

    /// Creates the rules of a model.
    /// - Parameters:
    ///   - name: The model's name.
    ///   - rules: The model's own rules.
    ///   - fieldRules: Rules on single fields.
    ///   - fields: The declared fields.
    ///   - location: Where the type was declared.
    public init(
        name: String,
        rules: [AuthRule],
        fieldRules: [String: [AuthRule]] = [:],
        fields: [String: FieldType] = [:],
        location: SourcePosition? = nil
    ) {
        self.name = name
        self.rules = rules
        self.fieldRules = fieldRules
        self.fields = fields
        self.location = location
    }

    /// The owner fields named by the model's owner rules, each once.
    var ownerFields: [String] {
        var seen: [String] = []
        for rule in self.rules where rule.allow == .owner && !seen.contains(rule.ownerField) {
            seen.append(rule.ownerField)
        }
        return seen
    }
}
