import Foundation

/// Where this program runs from, for finding its worker executable and its data files beside it.
enum RunningProgram {
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
}
