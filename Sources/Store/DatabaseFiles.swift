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

    /// The type of the network file system holding `folder` ("nfs4", "cifs", "fuse.sshfs", ...), or nil for a
    /// local disk. SQLite's WAL mode needs working POSIX locks and a shared-memory file that every reader and
    /// writer maps on one machine; on a network share locks are often lost or faked, and a database there can
    /// be corrupted. Read from the mount table, as the longest mount point that holds the folder.
    public static func networkFileSystem(holding folder: String, mountTable: String? = nil) -> String? {
        guard let resolved = realpath(folder, nil) else { return nil }
        defer { free(resolved) }
        let path = String(cString: resolved)
        guard let table = mountTable ?? (try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8)) else { return nil }
        var best: (point: String, type: String)?
        for line in table.split(separator: "\n") {
            // "36 35 98:0 /root /mount/point options... - TYPE SOURCE OPTIONS"
            let halves = line.components(separatedBy: " - ")
            let fields = halves[0].split(separator: " ")
            guard halves.count == 2, fields.count >= 5, let type = halves[1].split(separator: " ").first else { continue }
            let point = unescapedMountPoint(String(fields[4]))
            guard path == point || path.hasPrefix(point == "/" ? "/" : point + "/"),
                  point.count >= (best?.point.count ?? 0) else { continue }
            best = (point, String(type))
        }
        return best.flatMap { networkTypes.contains($0.type) ? $0.type : nil }
    }

    /// What a writer or the server says of a database at `path` on a network share; nil on a local disk.
    public static func networkShareWarning(_ path: String, mountTable: String? = nil) -> String? {
        let folder = (path as NSString).deletingLastPathComponent
        guard let network = networkFileSystem(holding: folder.isEmpty ? "." : folder, mountTable: mountTable) else { return nil }
        return "the database \(path) is on a network file system (\(network)); SQLite, which keeps it, needs the locks "
            + "and shared memory of a local disk, and a database on a share can be corrupted. Keep it on a local disk "
            + "(--db, SPINDLE_DB); the library may stay on the share."
    }

    /// Mount types of shares (9p: a WSL 2 machine's Windows drives). Of FUSE, only the network ones: mergerfs,
    /// which pools a home server's local disks, and ntfs-3g (`fuseblk`) are local.
    static let networkTypes: Set<String> = [
        "nfs", "nfs4", "cifs", "smb3", "smbfs", "ceph", "9p", "afs", "glusterfs", "lustre", "gpfs", "davfs",
        "fuse.sshfs", "fuse.rclone", "fuse.s3fs", "fuse.gcsfuse", "fuse.juicefs", "fuse.glusterfs", "fuse.ceph-fuse",
    ]

    /// The kernel writes a space, tab, newline and backslash in a mount point as octal escapes (`\040`).
    static func unescapedMountPoint(_ text: String) -> String {
        guard text.contains("\\") else { return text }
        var bytes: [UInt8] = []
        var rest = Array(text.utf8)[...]
        while let b = rest.first {
            if b == UInt8(ascii: "\\"), rest.count >= 4, let code = UInt8(String(decoding: rest.dropFirst().prefix(3), as: UTF8.self), radix: 8) {
                bytes.append(code)
                rest = rest.dropFirst(4)
            } else {
                bytes.append(b)
                rest = rest.dropFirst()
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// How to give every file of the database at `path` to the user running this process.
    public static func handOver(_ path: String) -> String {
        "`chown \(userName(geteuid())) \(([path, path + ".lock"] + sideFiles(of: path)).joined(separator: " "))`"
    }
}
