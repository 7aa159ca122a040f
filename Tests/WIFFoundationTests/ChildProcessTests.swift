import Foundation
import Testing
import WIFFoundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Running a program with a time limit: the limit holds even when the program stops writing but runs
/// on, and nothing the program started outlives it.
@Suite struct ChildProcessTests {
    @Test func aProgramThatClosesItsOutputButRunsOnIsKilledAtItsTimeLimit() {
        let started = ContinuousClock.now
        let run = ChildProcess.run(
            "/bin/sh", arguments: ["sh", "-c", "echo answered; exec >&-; sleep 60"], input: [], outputLimit: 1024, timeout: .seconds(1))
        guard case .timedOut = run else {
            Issue.record("expected a time-out, got \(run)")
            return
        }
        // Well before the minute the program would have slept (the bound allows for a busy machine).
        #expect(ContinuousClock.now - started < .seconds(30))
    }

    @Test func aProgramThatEndsInTimeIsFinishedWithItsOutput() {
        let run = ChildProcess.run("/bin/sh", arguments: ["sh", "-c", "cat; exit 3"], input: Array("hello".utf8), outputLimit: 1024, timeout: .seconds(60))
        guard case .finished(let output, let ending) = run else {
            Issue.record("expected the program to finish, got \(run)")
            return
        }
        #expect(output == Array("hello".utf8))
        #expect(ending == .exited(3))
    }

    #if os(Linux)
    @Test func whatAProgramLeavesRunningEndsWithIt() async throws {
        let run = ChildProcess.run(
            "/bin/sh", arguments: ["sh", "-c", "sleep 60 >/dev/null 2>&1 & echo $!"], input: [], outputLimit: 1024, timeout: .seconds(60))
        guard case .finished(let output, _) = run, let pid = Int32(String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            Issue.record("expected the background process's number, got \(run)")
            return
        }
        // Killed, it is gone or a zombie waiting to be reaped by whoever adopted it.
        var state = "running"
        for _ in 0..<100 {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else {
                state = "gone"
                break
            }
            if let end = stat.lastIndex(of: ")"), stat[stat.index(end, offsetBy: 2)] == "Z" {
                state = "zombie"
                break
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(state != "running")
        if state == "running" { kill(pid, SIGKILL) }
    }
    #endif
}
