import PolicyEngine
import WIFFoundation

/// A policy document an engine set-up sends or writes: PolicyEngine's statements under `Version`
/// 2012-10-17, rendered by PolicyEngine's writer in the shape the engine wants.
///
/// It is not parsed or validated on the way out: the set-ups build it from fixed statements, and tests
/// check those with PolicyEngine (`Policy.validate`) and against the files in `policies/`.
package struct PolicyDocument: Sendable, Hashable {
    /// The statements, in order.
    package var statements: [Statement]
    /// How a list of one value is written.
    package var lists: PolicyWriter.Lists

    /// Creates a document.
    /// - Parameters:
    ///   - statements: The statements.
    ///   - lists: How a list of one value is written; IAM's own shape by default.
    package init(statements: [Statement], lists: PolicyWriter.Lists = .compact) {
        self.statements = statements
        self.lists = lists
    }

    /// The document as JSON text, compact unless asked otherwise: no whitespace at all, which Ceph RGW
    /// requires.
    /// - Parameter pretty: Whether to indent the output.
    /// - Returns: The document.
    package func json(pretty: Bool = false) -> String {
        PolicyWriter.json(version: .v2012_10_17, id: nil, statements: self.statements, pretty: pretty, lists: self.lists)
    }

    /// Writes the document as one value into a larger JSON document.
    /// - Parameter writer: The writer, positioned where a value may go.
    package func write(into writer: inout JSONWriter) {
        PolicyWriter.write(version: .v2012_10_17, id: nil, statements: self.statements, lists: self.lists, into: &writer)
    }
}

extension Statement {
    /// An `Allow` statement, as every statement of the set-ups' documents is.
    /// - Parameters:
    ///   - sid: The statement id.
    ///   - federated: The `Principal.Federated` values, for trust policies.
    ///   - actions: The actions.
    ///   - resources: The resources; `nil` for trust policies.
    ///   - conditions: The conditions, written grouped by operator in the order of their first use.
    /// - Returns: The statement.
    static func allow(
        _ sid: String, federated: [String]? = nil, actions: [String], resources: [String]? = nil, conditions: [Condition] = []
    ) -> Statement {
        Statement(
            sid: sid, effect: .allow, principal: federated.map { .principal(PrincipalSet(federated: $0)) }, action: .action(actions),
            resource: resources.map { .resource($0) }, conditions: conditions)
    }
}
