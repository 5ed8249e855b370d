import Foundation

/// The files of one database: the file itself, the run lock beside it (`DB.lock`) and the -wal and -shm files
/// Spindle keeps for readers. They belong to one user, and a database handed to another user must be handed
/// over with all of them: what a refusal to open one of them says.
public enum DatabaseFiles {
    /// The -wal and -shm files SQLite keeps beside the database at `path`.
    public static func sideFiles(of path: String) -> [String] { [path + "-wal", path + "-shm"] }

    /// The user who owns `path`, by name where the system knows one.
    public static func ownerName(of path: String) -> String? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return userName(st.st_uid)
    }

    /// A user's name, or "user N" where the system knows none.
    static func userName(_ uid: uid_t) -> String {
        getpwuid(uid).map { String(cString: $0.pointee.pw_name) } ?? "user \(uid)"
    }

    /// How to give every file of the database at `path` to the user running this process.
    public static func handOver(_ path: String) -> String {
        "`chown \(userName(geteuid())) \(([path, path + ".lock"] + sideFiles(of: path)).joined(separator: " "))`"
    }
}
