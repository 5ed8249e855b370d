import Foundation

/// Where secrets (Subsonic passwords, the read API's token) come from without appearing in `ps`: a file (`--password-file`, `password_file`)
/// or the environment (`SPINDLE_SUBSONIC_PASSWORD`). Files that hold a secret and are readable by other
/// users are named in a warning.
public enum SecretFiles {
    public static let passwordVariable = "SPINDLE_SUBSONIC_PASSWORD"

    /// The password in `path`: its first line, without the newline.
    public static func password(file path: String, warn: (String) -> Void) throws -> String {
        try firstLine(of: path, holding: "a password", called: "password file", warn: warn)
    }

    /// The secret in `path` (a password, an API token): its first line, without the newline. Refuses a
    /// file it cannot read or whose first line is empty; warns when other users can read it.
    public static func firstLine(of path: String, holding what: String, called name: String,
                                 warn: (String) -> Void) throws -> String {
        var st = stat()
        guard stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG,
              let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw NavidromeError("cannot read the \(name) \(path)")
        }
        warnIfReadableByOthers(path, holding: what, warn: warn)
        let line = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        let secret = line.hasSuffix("\r") ? String(line.dropLast()) : line
        guard !secret.isEmpty else { throw NavidromeError("the \(name) \(path) is empty") }
        return secret
    }

    /// Warns when `path` can be read by users other than its owner (and its group's members).
    public static func warnIfReadableByOthers(_ path: String, holding what: String, warn: (String) -> Void) {
        var st = stat()
        guard stat(path, &st) == 0, st.st_mode & S_IROTH != 0 else { return }
        warn("warning: \(path) holds \(what) and is readable by every user on this machine; run chmod o-r on it")
    }
}
