import Foundation
import Synchronization
import WIFFoundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A transfer's progress line on standard error: bytes so far, percentage, rate and time left.
///
/// It draws nothing until the transfer has run for ``delay`` (short transfers stay silent), at most
/// once per ``interval``, and only when enabled (standard error is a terminal and `--quiet` is not
/// set). Time comes from `now`, so the drawing schedule is tested without waiting.
package final class ProgressBar: Sendable {
    /// How long a transfer runs before the bar appears.
    static let delay = Duration.seconds(1)
    /// The shortest time between two drawings.
    static let interval = Duration.milliseconds(100)

    private struct State {
        var bytes: Int64 = 0
        var total: Int64?
        var label: String
        var lastDrawn: Duration?
        var finished = false
    }

    private let state: Mutex<State>
    private let enabled: Bool
    private let start: Duration
    private let now: @Sendable () -> Duration
    private let width: Int
    private let output: @Sendable (String) -> Void

    /// Creates a bar.
    /// - Parameters:
    ///   - label: What is transferred, such as the file name.
    ///   - total: The number of bytes expected, when known.
    ///   - enabled: Whether to draw at all.
    ///   - width: The terminal width in columns.
    ///   - now: A monotonic clock reading.
    ///   - output: Where the drawing goes.
    package init(
        label: String,
        total: Int64?,
        enabled: Bool,
        width: Int = 80,
        now: @escaping @Sendable () -> Duration,
        output: @escaping @Sendable (String) -> Void
    ) {
        // The label is usually a name from the bucket: escaped so it cannot control the terminal.
        self.state = Mutex(State(total: total, label: PrintableText.escaping(label)))
        self.enabled = enabled
        self.now = now
        self.start = now()
        self.width = width
        self.output = output
    }

    /// A bar on standard error, drawn when standard error is a terminal and `quiet` is false.
    package static func standardError(label: String, total: Int64?, quiet: Bool) -> ProgressBar {
        let clock = ContinuousClock()
        let origin = clock.now
        return ProgressBar(
            label: label,
            total: total,
            enabled: !quiet && isatty(STDERR_FILENO) == 1,
            width: Self.terminalWidth(),
            now: { clock.now - origin },
            output: { FileHandle.standardError.write(Data($0.utf8)) }
        )
    }

    /// Sets the number of bytes transferred so far (and the total, once known), drawing when it is time to.
    package func update(bytes: Int64, total: Int64? = nil) {
        self.advance { state in
            state.bytes = max(0, bytes)
            if let total { state.total = total }
        }
    }

    /// Adds to the number of bytes transferred.
    package func add(bytes: Int64) {
        self.advance { $0.bytes += max(0, bytes) }
    }

    /// Changes the label, such as when a recursive transfer moves to the next file.
    package func relabel(_ label: String) {
        let escaped = PrintableText.escaping(label)
        self.state.withLock { $0.label = escaped }
    }

    /// Ends the bar: draws the final state and a line break if the bar was ever drawn.
    package func finish() {
        guard self.enabled else { return }
        let line: String? = self.state.withLock { state in
            guard !state.finished else { return nil }
            state.finished = true
            guard state.lastDrawn != nil else { return nil }
            return self.render(state, elapsed: self.now() - self.start) + "\n"
        }
        if let line { self.output(line) }
    }

    /// Wipes the drawn bar so that a line can be printed in its place; the next update draws it again.
    package func clearLine() {
        guard self.enabled else { return }
        let wipe = self.state.withLock { state -> Bool in
            guard !state.finished, let last = state.lastDrawn else { return false }
            // Due again at once, so the bar comes back under the printed line.
            state.lastDrawn = last - Self.interval
            return true
        }
        if wipe { self.output("\r\u{1B}[K") }
    }

    /// Whether the bar has drawn anything.
    package var hasDrawn: Bool { self.state.withLock { $0.lastDrawn != nil } }

    private func advance(_ change: (inout State) -> Void) {
        guard self.enabled else { return }
        let line: String? = self.state.withLock { state in
            change(&state)
            guard !state.finished else { return nil }
            let current = self.now()
            let elapsed = current - self.start
            guard elapsed >= Self.delay else { return nil }
            if let last = state.lastDrawn, current - last < Self.interval { return nil }
            state.lastDrawn = current
            return self.render(state, elapsed: elapsed)
        }
        if let line { self.output(line) }
    }

    private func render(_ state: State, elapsed: Duration) -> String {
        "\r" + Self.line(label: state.label, bytes: state.bytes, total: state.total, elapsed: elapsed, width: self.width) + "\u{1B}[K"
    }

    // MARK: Formatting

    /// One line of progress, at most `width` columns:
    /// `name  42% [#######.........]  27.0 MiB / 64.0 MiB  13.5 MiB/s  ETA 0:03`.
    package static func line(label: String, bytes: Int64, total: Int64?, elapsed: Duration, width: Int) -> String {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let rate = seconds > 0 ? Double(bytes) / seconds : 0
        var figures = Self.bytes(bytes)
        var speed = Self.bytes(Int64(rate.rounded())) + "/s"
        var eta = ""
        var percent = ""
        var fraction: Double?
        if let total, total > 0 {
            let done = min(1, Double(bytes) / Double(total))
            fraction = done
            // Fixed-width fields keep the bar from jumping as the figures change.
            let totalText = Self.bytes(total)
            figures = Self.padded(figures, to: totalText.count) + " / " + totalText
            speed = Self.padded(speed, to: 12)
            percent = String(format: "%3d%%", Int((done * 100).rounded(.down)))
            if bytes >= total {
                eta = "done " + Self.clock(seconds)
            } else if rate > 0 {
                eta = "ETA " + Self.clock(Double(total - bytes) / rate)
            } else {
                eta = "ETA --:--"
            }
            eta = Self.padded(eta, to: 12)
        }
        let tail = [figures, speed, eta].filter { !$0.isEmpty }.joined(separator: "  ")
        var name = label
        let fixed = percent.count + tail.count + 8
        let available = max(0, width - fixed)
        let barWidth = fraction == nil ? 0 : min(30, max(0, available - min(name.count, 24)))
        let nameRoom = max(0, available - barWidth)
        if name.count > nameRoom {
            name = nameRoom <= 1 ? "" : "…" + String(name.suffix(nameRoom - 1))
        }
        var parts: [String] = []
        if !name.isEmpty { parts.append(name) }
        if let fraction {
            parts.append(percent)
            if barWidth >= 5 {
                let filled = Int((fraction * Double(barWidth - 2)).rounded(.down))
                parts.append("[" + String(repeating: "#", count: filled) + String(repeating: ".", count: barWidth - 2 - filled) + "]")
            }
        }
        parts.append(tail)
        let text = parts.joined(separator: " ")
        return text.count > width ? String(text.prefix(width)) : text
    }

    /// `text` with spaces in front up to `width` characters.
    package static func padded(_ text: String, to width: Int) -> String {
        text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
    }

    /// A byte count with binary units: `512 B`, `1.5 KiB`, `64.0 MiB`.
    package static func bytes(_ count: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"]
        var value = Double(max(0, count))
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(Int(value)) B" : String(format: "%.1f", value) + " " + units[unit]
    }

    /// A time span as `m:ss`, or `h:mm:ss` from an hour on.
    package static func clock(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0 else { return "--:--" }
        let total = Int(min(seconds.rounded(.up), 359_999))
        let (hours, minutes, secs) = (total / 3600, total / 60 % 60, total % 60)
        return hours > 0
            ? String(format: "%d:%02d:%02d", hours, minutes, secs)
            : String(format: "%d:%02d", minutes, secs)
    }

    /// The width of the terminal on standard error, or `COLUMNS`, or 80.
    package static func terminalWidth() -> Int {
        var size = winsize()
        if ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 {
            return Int(size.ws_col)
        }
        if let columns = ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init), columns > 0 {
            return columns
        }
        return 80
    }
}
