import Foundation

/// Where this program runs from, for finding its worker executable and its data files beside it.
public enum RunningProgram {
    /// The executable's real path (symlinks resolved), or argv[0] when /proc is unavailable.
    static var path: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    /// The executable's folder and its ancestors, nearest first.
    static func folders(_ count: Int) -> [URL] {
        var dir = URL(fileURLWithPath: path).deletingLastPathComponent()
        var out: [URL] = []
        for _ in 0..<count {
            out.append(dir)
            dir = dir.deletingLastPathComponent()
        }
        return out
    }

    /// The `spindle` command calls this before anything else: its workers are this very program, whatever its
    /// file is named (`spindle-1.4` kept beside the next version, a distribution's `spindle.real` behind a
    /// wrapper), unless SPINDLE_EXECUTABLE names another. A program that only links Pipeline (the tests) does
    /// not, and `WorkerPool` finds `spindle` beside it.
    public static func workersRunThisProgram() {
        if ProcessInfo.processInfo.environment["SPINDLE_EXECUTABLE"]?.isEmpty ?? true {
            setenv("SPINDLE_EXECUTABLE", RunningProgram.path, 1)
        }
    }
}
