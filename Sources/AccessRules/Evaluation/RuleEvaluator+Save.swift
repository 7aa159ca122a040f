extension RuleEvaluator {
    /// Checks a save on the client before sending it, with the same evaluator the server runs, so
    /// "this save would be refused" is known with its reason instead of learnt afterwards from a failed
    /// conditional save.
    /// - Parameters:
    ///   - model: The model's name.
    ///   - caller: The signed-in caller; `nil` when there are no credentials.
    ///   - stored: The record as last synced; `nil` for a new record (a create).
    ///   - changes: For a new record the whole record; otherwise the fields being changed.
    /// - Returns: The decision; when it is a denial, its ``RuleDecision/explanation`` says why.
    public func checkSave(model: String, caller: Caller?, stored: Record?, changes: Record) -> RuleDecision {
        guard let stored else { return self.decide(model: model, operation: .create, caller: caller, after: changes) }
        return self.decide(model: model, operation: .update, caller: caller, before: stored, after: changes)
    }
}
