import Foundation

/// The names of the temporary copies a tag write makes beside a file: `.spindle-tmp-<pid>-<16 hex>.<ext>`.
/// The name carries the writer's pid (so a scan can tell an abandoned copy from one in flight) and the
/// original's extension (TagLib picks the format by it), and stays short whatever the original's length.
public enum SpindleTemporary {
    static let prefix = ".spindle-tmp-"

    public static func name(extension ext: String) -> String {
        let random = String(UInt64.random(in: 0...UInt64.max), radix: 16)
        let padded = String(repeating: "0", count: 16 - random.count) + random
        let safeExt = ext.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)) }
            && ext.count <= 8 ? ext : "tmp"
        return prefix + "\(getpid())-\(padded)" + (safeExt.isEmpty ? "" : "." + safeExt)
    }

    /// The writer's pid when `name` is one of Spindle's temporaries (the full marker), else nil.
    public static func writer(of name: String) -> pid_t? {
        guard name.hasPrefix(prefix) else { return nil }
        let rest = name.dropFirst(prefix.count)
        let parts = rest.split(separator: "-", maxSplits: 1)
        guard parts.count == 2, let pid = pid_t(parts[0]), pid > 0 else { return nil }
        let tail = parts[1]
        let hex = tail.prefix(16)
        guard hex.count == 16, hex.allSatisfy(\.isHexDigit) else { return nil }
        let ext = tail.dropFirst(16)
        guard ext.isEmpty || (ext.first == "." && ext.count <= 9 && ext.dropFirst().allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) })
        else { return nil }
        return pid
    }

    /// Whether a temporary copy was abandoned: its writer is gone, or (the pid now naming another process)
    /// the copy is older than `before`, the start of the run that holds the lock. A copy that the current
    /// process is writing is never abandoned.
    public static func isAbandoned(name: String, modified: Date, before: Date) -> Bool {
        guard let pid = writer(of: name), pid != getpid() else { return false }
        let alive = kill(pid, 0) == 0 || errno == EPERM
        return !alive || modified < before
    }
}
