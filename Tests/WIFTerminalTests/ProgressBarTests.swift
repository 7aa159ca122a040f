import Foundation
import Synchronization
import Testing

@testable import WIFTerminal

/// The progress line's text and its drawing schedule, on a hand-driven clock.
@Suite struct ProgressBarTests {
    /// A clock the test moves by hand and a record of what was drawn.
    final class Harness: Sendable {
        let time = Mutex<Duration>(.zero)
        let drawn = Mutex<[String]>([])

        func advance(_ duration: Duration) { self.time.withLock { $0 += duration } }

        func bar(total: Int64?, enabled: Bool = true, width: Int = 100) -> ProgressBar {
            ProgressBar(
                label: "video.mp4", total: total, enabled: enabled, width: width,
                now: { self.time.withLock { $0 } },
                output: { text in self.drawn.withLock { $0.append(text) } })
        }

        var lines: [String] { self.drawn.withLock { $0 } }
    }

    static let byteCounts: [(Int64, String)] = [
        (0, "0 B"), (512, "512 B"), (1023, "1023 B"), (1024, "1.0 KiB"), (1536, "1.5 KiB"),
        (64 * 1024 * 1024, "64.0 MiB"), (5 * 1024 * 1024 * 1024, "5.0 GiB"),
    ]

    static let clocks: [(Double, String)] = [
        (0, "0:00"), (4.2, "0:05"), (59, "0:59"), (61, "1:01"), (3599, "59:59"), (3600, "1:00:00"), (3725, "1:02:05"),
    ]

    @Test(arguments: Self.byteCounts)
    func bytesUseBinaryUnits(count: Int64, text: String) {
        #expect(ProgressBar.bytes(count) == text)
    }

    @Test(arguments: Self.clocks)
    func clockShowsMinutesAndHours(seconds: Double, text: String) {
        #expect(ProgressBar.clock(seconds) == text)
    }

    @Test func clockOfAnUnknownTimeIsDashes() {
        #expect(ProgressBar.clock(.infinity) == "--:--")
        #expect(ProgressBar.clock(-1) == "--:--")
    }

    @Test func lineShowsPercentBarBytesRateAndETA() {
        let mib: Int64 = 1024 * 1024
        let line = ProgressBar.line(label: "video.mp4", bytes: 16 * mib, total: 64 * mib, elapsed: .seconds(2), width: 100)
        #expect(line.hasPrefix("video.mp4  25% ["), "\(line)")
        #expect(line.contains("16.0 MiB / 64.0 MiB"))
        #expect(line.contains("  8.0 MiB/s"))
        // 48 MiB left at 8 MiB/s.
        #expect(line.hasSuffix("ETA 0:06"), "\(line)")
        #expect(line.count <= 100)
        let inside = line.drop { $0 != "[" }.dropFirst().prefix { $0 != "]" }
        #expect(inside.count >= 3)
        #expect(inside.filter { $0 == "#" }.count == inside.count / 4, "\(inside)")
        #expect(inside.allSatisfy { $0 == "#" || $0 == "." })
    }

    @Test func fieldsKeepTheirWidthSoTheBarDoesNotMove() {
        let mib: Int64 = 1024 * 1024
        let early = ProgressBar.line(label: "f", bytes: 512, total: 900 * mib, elapsed: .seconds(1), width: 100)
        let late = ProgressBar.line(label: "f", bytes: 899 * mib, total: 900 * mib, elapsed: .seconds(100), width: 100)
        #expect(early.firstIndex(of: "]").map { early.distance(from: early.startIndex, to: $0) }
            == late.firstIndex(of: "]").map { late.distance(from: late.startIndex, to: $0) })
        #expect(early.count == late.count, "\(early)|\(late)")
    }

    @Test func completeLineSaysDone() {
        let line = ProgressBar.line(label: "a", bytes: 2048, total: 2048, elapsed: .seconds(3), width: 80)
        #expect(line.contains("100%"))
        #expect(line.hasSuffix("done 0:03"), "\(line)")
    }

    @Test func unknownTotalShowsBytesAndRateOnly() {
        let line = ProgressBar.line(label: "stream", bytes: 3 * 1024, total: nil, elapsed: .seconds(1), width: 80)
        #expect(line == "stream 3.0 KiB  3.0 KiB/s")
    }

    @Test(arguments: [20, 40, 60, 80, 200])
    func lineNeverExceedsTheWidth(width: Int) {
        let label = String(repeating: "long-name-", count: 10)
        let line = ProgressBar.line(label: label, bytes: 123_456_789, total: 987_654_321, elapsed: .seconds(7), width: width)
        #expect(line.count <= width, "\(line)")
        #expect(line.contains("%"))
    }

    @Test func nothingIsDrawnDuringTheFirstSecond() {
        let harness = Harness()
        let bar = harness.bar(total: 1000)
        bar.update(bytes: 100)
        harness.advance(.milliseconds(900))
        bar.update(bytes: 900)
        bar.update(bytes: 1000)
        bar.finish()
        #expect(harness.lines.isEmpty)
        #expect(!bar.hasDrawn)
    }

    @Test func drawsAfterOneSecondAtMostTenTimesASecondAndEndsTheLine() {
        let harness = Harness()
        let bar = harness.bar(total: 10_000)
        harness.advance(.seconds(1))
        bar.update(bytes: 1000)
        #expect(harness.lines.count == 1)
        harness.advance(.milliseconds(50))
        bar.add(bytes: 1000)
        #expect(harness.lines.count == 1, "redrawn within 100 ms")
        harness.advance(.milliseconds(60))
        bar.add(bytes: 1000)
        #expect(harness.lines.count == 2)
        #expect(harness.lines[1].hasPrefix("\r"))
        #expect(harness.lines[1].contains("3000 B") || harness.lines[1].contains("2.9 KiB"))
        harness.advance(.seconds(1))
        bar.update(bytes: 10_000)
        bar.finish()
        let last = harness.lines.last ?? ""
        #expect(last.hasSuffix("\n"))
        #expect(last.contains("100%"))
        // finish() is idempotent and updates after it draw nothing.
        let count = harness.lines.count
        bar.finish()
        bar.update(bytes: 5)
        #expect(harness.lines.count == count)
    }

    @Test func disabledBarNeverDraws() {
        let harness = Harness()
        let bar = harness.bar(total: 10, enabled: false)
        harness.advance(.seconds(5))
        bar.update(bytes: 5)
        bar.finish()
        #expect(harness.lines.isEmpty)
    }

    @Test func relabelShowsTheNewName() {
        let harness = Harness()
        let bar = harness.bar(total: 100)
        bar.relabel("second.bin")
        harness.advance(.seconds(2))
        bar.update(bytes: 50)
        #expect(harness.lines.first?.contains("second.bin") == true)
    }
}
