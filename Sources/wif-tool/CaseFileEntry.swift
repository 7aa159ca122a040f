import PolicyEngine

/// A case of a case file, as every case file names and documents it.
protocol SimulationCase {
    /// The case's unique `name`.
    var name: String { get }
    /// Its `description`, `note`, `source` and `category`.
    var documentation: PolicyCaseFile.Documentation { get }
}

/// One case of a case file (`policy simulate --cases`, `rules simulate --cases`): ready to run, or wrong,
/// with the first problem found in it.
enum CaseFileEntry<Case: SimulationCase> {
    case ready(Case)
    case invalid(PolicyCaseFile.InvalidCase)
}

extension Array {
    /// Runs a case file's cases and prints one JSON line for each (its name and documentation, then what
    /// `run` adds), then `N passed, M failed`. An invalid case is reported on its own line as failed, and
    /// the other cases still run.
    /// - Parameter run: Decides a ready case, adds the decision to its line, and says whether it met its
    ///   expectation (`nil` without one).
    /// - Throws: exit status 1 when a case failed or was invalid.
    func runCases<Case>(_ run: (Case, inout PolicyJSONObject) -> Bool?) throws where Element == CaseFileEntry<Case> {
        var passed = 0
        var failed = 0
        var output = ""
        for entry in self {
            var object = PolicyJSONObject()
            switch entry {
            case .ready(let ready):
                object.add("name", ready.name)
                ready.documentation.add(to: &object)
                if let ok = run(ready, &object) {
                    if ok { passed += 1 } else { failed += 1 }
                }
            case .invalid(let invalid):
                object.add("name", invalid.name)
                invalid.documentation.add(to: &object)
                object.add("error", invalid.problem.text)
                object.add("ok", false)
                failed += 1
            }
            output += object.text + "\n"
        }
        output += "\(passed) passed, \(failed) failed\n"
        printRaw(output)
        if failed > 0 { throw ExitStatus.failure.exitCode }
    }
}
