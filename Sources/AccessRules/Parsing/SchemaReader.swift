import GraphQL

/// Reads `@auth` rules from a GraphQL schema (SDL): every object type with `@model` or `@auth`, its
/// fields and their `@auth` rules. GraphQL's own parser reads the text; this reads the directives.
enum SchemaReader {
    /// The deepest nesting of brackets, braces and parentheses read; deeper text is refused before
    /// parsing so that hostile input cannot exhaust the stack.
    static let maximumDepth = 64

    static func read(_ text: String) -> (RuleSet, [RuleDiagnostic]) {
        let bytes = Array(text.utf8)
        var sink = DiagnosticSink(bytes: bytes)
        if let offset = NestingScanner.firstOffsetDeeperThan(Self.maximumDepth, in: bytes) {
            sink.error("", "the schema nests deeper than \(Self.maximumDepth) levels", at: offset)
            return (RuleSet(models: []), sink.sorted)
        }
        let document: Document
        do {
            document = try parse(source: Source(body: text, name: "schema"))
        } catch let error as GraphQLError {
            let location = error.locations.first
            sink.add(RuleDiagnostic(severity: .error, path: "", message: error.message, line: location?.line, column: location?.column))
            return (RuleSet(models: []), sink.sorted)
        } catch {
            sink.add(RuleDiagnostic(severity: .error, path: "", message: "the schema could not be parsed"))
            return (RuleSet(models: []), sink.sorted)
        }
        var models: [ModelRules] = []
        for definition in document.definitions {
            guard let type = definition as? ObjectTypeDefinition else { continue }
            if let model = readType(type, sink: &sink) {
                if models.contains(where: { $0.name == model.name }) {
                    sink.error(model.name, "the type \(model.name) is declared twice", at: type.name.loc?.start ?? -1)
                    continue
                }
                models.append(model)
            }
        }
        return (RuleSet(models: models), sink.sorted)
    }

    private static func readType(_ type: ObjectTypeDefinition, sink: inout DiagnosticSink) -> ModelRules? {
        let name = type.name.value
        let isModel = type.directives.contains { $0.name.value == "model" }
        let auth = type.directives.filter { $0.name.value == "auth" }
        let fieldAuth = type.fields.contains { field in field.directives.contains { $0.name.value == "auth" } }
        guard isModel || !auth.isEmpty || fieldAuth else { return nil }

        var fields: [String: ModelRules.FieldType] = [:]
        var fieldRules: [String: [AuthRule]] = [:]
        for field in type.fields {
            fields[field.name.value] = fieldType(field.type)
            let directives = field.directives.filter { $0.name.value == "auth" }
            guard !directives.isEmpty else { continue }
            let path = "\(name).\(field.name.value).@auth"
            fieldRules[field.name.value] = readDirectives(directives, path: path, sink: &sink)
        }
        let path = "\(name).@auth"
        let rules = readDirectives(auth, path: path, sink: &sink)
        if !isModel, !auth.isEmpty {
            sink.warning(path, "\(name) has @auth but no @model; Amplify applies these rules only to models", at: auth[0].loc?.start ?? -1)
        }
        let model = ModelRules(
            name: name, rules: rules, fieldRules: fieldRules, fields: fields, location: sink.position(of: type.name.loc?.start ?? -1))
        ModelValidator.check(model, path: name, sink: &sink)
        return model
    }

    private static func readDirectives(_ directives: [Directive], path: String, sink: inout DiagnosticSink) -> [AuthRule] {
        if directives.count > 1 {
            sink.error(path, "@auth is written \(directives.count) times; write one @auth with every rule", at: directives[1].loc?.start ?? -1)
        }
        guard let directive = directives.first else { return [] }
        var rules: [AuthRule] = []
        var sawRules = false
        for argument in directive.arguments {
            guard argument.name.value == "rules" else {
                sink.error("\(path).\(argument.name.value)", "@auth takes only a rules argument", hint: "write @auth(rules: [...])",
                           at: argument.loc?.start ?? -1)
                continue
            }
            sawRules = true
            rules = RuleReader.readRules(raw(argument.value), path: "\(path).rules", sink: &sink)
        }
        if !sawRules {
            sink.error(path, "@auth has no rules argument", hint: "write @auth(rules: [{ allow: owner }])", at: directive.loc?.start ?? -1)
        }
        return rules
    }

    private static func fieldType(_ type: any GraphQL.`Type`) -> ModelRules.FieldType {
        var current: any GraphQL.`Type` = type
        var isList = false
        // Bounded by the nesting check: at most a few wrappers deep.
        while true {
            if let nonNull = current as? NonNullType {
                current = nonNull.type
            } else if let list = current as? ListType {
                isList = true
                current = list.type
            } else if let named = current as? NamedType {
                return ModelRules.FieldType(name: named.name.value, isList: isList)
            } else {
                return ModelRules.FieldType(name: "?", isList: isList)
            }
        }
    }

    private static func raw(_ value: any Value) -> RawValue {
        let offset = value.loc?.start ?? -1
        switch value {
        case let string as StringValue: return RawValue(kind: .string(string.value), offset: offset)
        case let enumValue as EnumValue: return RawValue(kind: .name(enumValue.value), offset: offset)
        case let list as ListValue: return RawValue(kind: .list(list.values.map(raw)), offset: offset)
        case let object as ObjectValue:
            let fields = object.fields.map { RawField(name: $0.name.value, offset: $0.loc?.start ?? offset, value: raw($0.value)) }
            return RawValue(kind: .object(fields), offset: offset)
        case is NullValue: return RawValue(kind: .null, offset: offset)
        case is BooleanValue: return RawValue(kind: .other("a boolean"), offset: offset)
        case is IntValue, is FloatValue: return RawValue(kind: .other("a number"), offset: offset)
        default: return RawValue(kind: .other("a variable"), offset: offset)
        }
    }
}

/// Finds the first bracket, brace or parenthesis nested deeper than a limit, skipping comments and strings.
enum NestingScanner {
    static func firstOffsetDeeperThan(_ limit: Int, in bytes: [UInt8]) -> Int? {
        var depth = 0
        var index = 0
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "#"):
                while index < bytes.count, bytes[index] != 0x0A, bytes[index] != 0x0D { index += 1 }
            case UInt8(ascii: "\""):
                index = skipString(bytes, from: index)
                continue
            case UInt8(ascii: "["), UInt8(ascii: "{"), UInt8(ascii: "("):
                depth += 1
                if depth > limit { return index }
            case UInt8(ascii: "]"), UInt8(ascii: "}"), UInt8(ascii: ")"):
                depth = max(0, depth - 1)
            default: break
            }
            index += 1
        }
        return nil
    }

    /// The index just past the string starting at `start` (plain or block string).
    private static func skipString(_ bytes: [UInt8], from start: Int) -> Int {
        let quote = UInt8(ascii: "\"")
        if start + 2 < bytes.count, bytes[start + 1] == quote, bytes[start + 2] == quote {
            var index = start + 3
            while index + 2 < bytes.count {
                // In a block string only `\"""` is an escape; any other backslash is literal text.
                if bytes[index] == UInt8(ascii: "\\"), index + 3 < bytes.count, bytes[index + 1] == quote, bytes[index + 2] == quote,
                    bytes[index + 3] == quote
                {
                    index += 4
                    continue
                }
                if bytes[index] == quote, bytes[index + 1] == quote, bytes[index + 2] == quote { return index + 3 }
                index += 1
            }
            return bytes.count
        }
        var index = start + 1
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\\"): index += 2
            case quote: return index + 1
            case 0x0A, 0x0D: return index
            default: index += 1
            }
        }
        return bytes.count
    }
}
