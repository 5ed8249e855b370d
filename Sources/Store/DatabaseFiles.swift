import Foundation

/// The files of one database: the file itself, the run lock beside it (`DB.lock`) and the -wal and -shm files
/// Spindle keeps for readers. They belong to one user, and a database handed to another user must be handed
/// over with all of them: what a refusal to open one of them says.
public enum DatabaseFiles {
    /// The user who owns `path`, by name where the system knows one.
    public static func ownerName(of path: String) -> String? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return getpwuid(st.st_uid).map { String(cString: $0.pointee.pw_name) } ?? "user \(st.st_uid)"
    }

    /// How to give every file of the database at `path` to the user running this process.
    public static func handOver(_ path: String) -> String {
        let me = getpwuid(geteuid()).map { String(cString: $0.pointee.pw_name) } ?? String(geteuid())
        return "`chown \(me) \(path) \(path).lock \(path)-wal \(path)-shm`"
    }
}
