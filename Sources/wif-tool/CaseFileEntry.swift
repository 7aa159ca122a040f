import PolicyEngine

/// One case of a case file (`policy simulate --cases`, `rules simulate --cases`): ready to run, or wrong,
/// with the first problem found in it.
enum CaseFileEntry<Case> {
    case ready(Case)
    case invalid(PolicyCaseFile.InvalidCase)
}

extension Array {
    /// Runs a case file's cases and prints one JSON line for each, then `N passed, M failed`. An invalid
    /// case is reported on its own line as failed, and the other cases still run.
    /// - Parameter run: The output line of a ready case, and whether it met its expectation (`nil`
    ///   without one).
    /// - Throws: exit status 1 when a case failed or was invalid.
    func runCases<Case>(_ run: (Case) -> (line: PolicyJSONObject, ok: Bool?)) throws where Element == CaseFileEntry<Case> {
        var passed = 0
        var failed = 0
        var output = ""
        for entry in self {
            switch entry {
            case .ready(let ready):
                let (line, ok) = run(ready)
                if let ok {
                    if ok { passed += 1 } else { failed += 1 }
                }
                output += line.text + "\n"
            case .invalid(let invalid):
                var object = PolicyJSONObject()
                object.add("name", invalid.name)
                invalid.documentation.add(to: &object)
                object.add("error", invalid.problem.text)
                object.add("ok", false)
                failed += 1
                output += object.text + "\n"
            }
        }
        output += "\(passed) passed, \(failed) failed\n"
        printRaw(output)
        if failed > 0 { throw ExitStatus.failure.exitCode }
    }
}
