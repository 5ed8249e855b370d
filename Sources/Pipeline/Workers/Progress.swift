import Foundation

/// How much a command says while it works.
public enum Verbosity: Int, Sendable, Comparable {
    case quiet, normal, verbose
    public static func < (a: Verbosity, b: Verbosity) -> Bool { a.rawValue < b.rawValue }
}

/// Progress of long work: a live line on a terminal, a log line every few seconds otherwise (cron).
/// Writes to standard error so standard output stays machine-readable.
public final class ProgressReporter: @unchecked Sendable {
    private let lock = NSLock()
    private let label: String
    private let total: Int
    private let verbosity: Verbosity
    private let isTerminal: Bool
    private let started = monotonicSeconds()
    private var lastPrint = 0.0
    private var done = 0
    private var failed = 0
    private var audioSeconds = 0.0
    private let interval: Double

    public init(label: String, total: Int, verbosity: Verbosity, logInterval: Double = 5) {
        self.label = label
        self.total = total
        self.verbosity = verbosity
        self.isTerminal = isatty(STDERR_FILENO) == 1
        self.interval = isTerminal ? 0.2 : logInterval
        self.lastPrint = started
    }

    public func advance(failed didFail: Bool = false, audioSeconds seconds: Double = 0, note: String? = nil) {
        lock.lock()
        defer { lock.unlock() }
        done += 1
        if didFail { failed += 1 }
        audioSeconds += seconds
        if verbosity == .verbose, let note { emit(note + "\n", clearLine: true) }
        let now = monotonicSeconds()
        guard verbosity > .quiet, now - lastPrint >= interval || done == total else { return }
        lastPrint = now
        let line = statusLine(now: now)
        if isTerminal {
            emit("\r\u{1b}[2K" + line, clearLine: false)
        } else {
            emit(line + "\n", clearLine: false)
        }
    }

    private func statusLine(now: Double) -> String {
        let elapsed = max(now - started, 1e-6)
        var parts = ["\(label): \(done)/\(total)"]
        if failed > 0 { parts.append("\(failed) failed") }
        if audioSeconds > 0 { parts.append(String(format: "%.0f× real time", audioSeconds / elapsed)) }
        if done > 0 && done < total {
            let eta = elapsed / Double(done) * Double(total - done)
            parts.append("ETA " + Self.duration(eta))
        }
        return parts.joined(separator: ", ")
    }

    private func emit(_ text: String, clearLine: Bool) {
        let out = (clearLine && isTerminal ? "\r\u{1b}[2K" : "") + text
        writeStandardError(out)
    }

    public func finish() {
        lock.lock()
        defer { lock.unlock() }
        if isTerminal && verbosity > .quiet && total > 0 { writeStandardError("\n") }
    }

    static func duration(_ s: Double) -> String {
        let t = Int(s.rounded())
        return t >= 3600 ? String(format: "%dh%02dm", t / 3600, t / 60 % 60) : String(format: "%dm%02ds", t / 60, t % 60)
    }
}
