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

    /// The secret in `path` (a password, an API token): its first line, without its line end, LF or CRLF (a
    /// file saved on Windows: Swift takes "\r\n" as one character, so "pw\r\n" was kept whole, and every
    /// client was refused). Refuses a file it cannot read or whose first line is empty; warns when other users
    /// can read it, and when the secret begins or ends with a space or tab, which is kept.
    public static func firstLine(of path: String, holding what: String, called name: String,
                                 warn: (String) -> Void) throws -> String {
        var st = stat()
        guard stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG,
              let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw NavidromeError("cannot read the \(name) \(path)")
        }
        warnIfReadableByOthers(path, holding: what, warn: warn)
        let secret = String(decoding: text.utf8.prefix { $0 != UInt8(ascii: "\n") && $0 != UInt8(ascii: "\r") }, as: UTF8.self)
        guard !secret.isEmpty else { throw NavidromeError("the \(name) \(path) is empty") }
        if let first = secret.unicodeScalars.first, let last = secret.unicodeScalars.last,
           [" ", "\t"].contains(first) || [" ", "\t"].contains(last) {
            warn("warning: \(what) in \(path) begins or ends with a space or tab, which is kept as part of it")
        }
        return secret
    }

    /// Warns when `path` can be read by users other than its owner (and its group's members).
    public static func warnIfReadableByOthers(_ path: String, holding what: String, warn: (String) -> Void) {
        var st = stat()
        guard stat(path, &st) == 0, st.st_mode & S_IROTH != 0 else { return }
        warn("warning: \(path) holds \(what) and is readable by every user on this machine; run chmod o-r on it")
    }
}
