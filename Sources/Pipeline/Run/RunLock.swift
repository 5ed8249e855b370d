import Foundation
import Store

/// Another run holds the database: exit code 4.
public struct LockHeldError: Error, CustomStringConvertible, Sendable {
    public let holder: String
    public var description: String { "another run holds the database lock: \(holder)" }
}

/// One run per database: an exclusive `flock` on `<database>.lock`, which names the holder (pid, start time,
/// command). The kernel drops the lock when its process dies, however it dies, so a stale lock from a dead
/// run is simply taken over.
public final class RunLock {
    private let fd: Int32
    public let path: String

    public init(databasePath: String, command: String) throws {
        path = Self.lockPath(databasePath)
        // Never through a symlink (a link planted at DB.lock would have its target truncated), and only a
        // regular file (a FIFO would block).
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0o600)
        guard fd >= 0 else {
            var reason = errno == ELOOP ? "it is a symlink; refusing to follow it (remove it)" : String(cString: strerror(errno))
            // Another user's lock: the database was run as that user before it changed owner.
            if errno == EACCES, let owner = DatabaseFiles.ownerName(of: path) {
                reason += "; it belongs to \(owner): to run as this user, hand over all the database's files: "
                    + DatabaseFiles.handOver(String(path.dropLast(".lock".count)))
            }
            throw PipelineError("cannot open lock file \(path): \(reason)")
        }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw PipelineError("lock file \(path) is not a regular file; remove it")
        }
        if !Self.takeExclusive(fd) {
            var buffer = [UInt8](repeating: 0, count: 512)
            let n = pread(fd, &buffer, buffer.count, 0)
            close(fd)
            let text = n > 0 ? String(decoding: buffer[0..<n], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) : ""
            throw LockHeldError(holder: text.isEmpty ? "unknown process" : text)
        }
        let formatter = ISO8601DateFormatter()
        let text = "pid \(getpid()), started \(formatter.string(from: Date())), command \(command)\n"
        ftruncate(fd, 0)
        _ = text.withCString { pwrite(fd, $0, strlen($0), 0) }
    }

    /// The lock beside the database file itself: a database reached through a symlink (or a symlinked folder)
    /// is locked where it lives, as SQLite keeps its -wal and -shm there. Taken beside the link, a run started
    /// by that path ran beside one started by the real path, and closed it as interrupted.
    static func lockPath(_ databasePath: String) -> String { realPath(databasePath) + ".lock" }

    /// Where the database file lives, links resolved (what its side files are named after).
    static func realPath(_ databasePath: String) -> String {
        if let real = realpath(databasePath, nil) {
            defer { free(real) }
            return String(cString: real)
        }
        // Not made yet: in its folder, the folder's links resolved.
        let folder = (databasePath as NSString).deletingLastPathComponent
        let name = (databasePath as NSString).lastPathComponent
        guard let real = realpath(folder.isEmpty ? "." : folder, nil) else { return databasePath }
        defer { free(real) }
        return String(cString: real) + "/" + name
    }

    /// `status` and the server's `/health` look whether the lock is held with a shared lock taken for an
    /// instant (`isHeld`): a run starting at that instant waits it out instead of reporting another run.
    private static func takeExclusive(_ fd: Int32) -> Bool {
        for attempt in 0..<50 {
            if flock(fd, LOCK_EX | LOCK_NB) == 0 { return true }
            guard errno == EWOULDBLOCK || errno == EINTR, attempt < 49 else { return false }
            usleep(10_000)
        }
        return false
    }

    /// Whether a run holds the lock of the database at `databasePath` now; nil when this process cannot
    /// tell (the lock file is another user's, or not a regular file). Takes nothing a run would notice but
    /// a shared lock held for an instant, which `takeExclusive` waits out.
    public static func isHeld(databasePath: String) -> Bool? {
        let fd = open(lockPath(databasePath), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else { return errno == ENOENT ? false : nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        if flock(fd, LOCK_SH | LOCK_NB) == 0 {
            flock(fd, LOCK_UN)
            return false
        }
        return errno == EWOULDBLOCK ? true : nil
    }

    deinit {
        ftruncate(fd, 0)
        flock(fd, LOCK_UN)
        close(fd)
    }
}
