import Foundation
import GRDB
import Library
import Pipeline
import Store
import Synchronization

/// The database and library the server reads, opened read-only on first need and reopened when the file
/// is replaced. A database that is missing, from an older Spindle, or locked makes requests fail with a
/// 503 saying why; the server itself keeps running and tries again (at most once a second).
///
/// A server whose user may not write the database reads it, while no writer has made a -wal beside it, as a
/// snapshot (`SpindleDatabase.isSnapshot`), making no -wal or -shm of its own: made in a folder it may write,
/// those would be its own, and the database's owner could no longer write; in one it may not, it could not
/// read at all. Once a writer's -wal appears (or the file changes: a writer that deletes its -wal on closing
/// may have come and gone), the next request opens the database again, reading through the writer's files.
/// A writer copies its log into the file only at a checkpoint (after a stage, or every 1,000 pages), so only
/// a request under way across a writer's start and its first checkpoint could read pages of both versions:
/// that one request may fail or answer from a mix of them; the next reads the database as it is.
final class ServedLibrary: Sendable {
    /// One open database with its library root and resolver.
    struct Open: Sendable {
        var database: SpindleDatabase
        var root: LibraryRoot
        var rootId: Int64
        var resolver: PathResolver
        /// The file when opened: another inode means the file was replaced, another time or size that it was
        /// written (a writer's checkpoint, or a copy over the same inode).
        var stamp: FileStamp
        /// Opened as a snapshot: stale once a writer's -wal appears or the file changes (a writer that deletes
        /// its -wal on closing may have come and gone between two requests).
        var isSnapshot: Bool { database.isSnapshot }
    }

    /// A file's inode, modification time and size.
    struct FileStamp: Equatable {
        var inode: UInt64
        var modified: Int64
        var size: Int64
    }

    private struct State {
        var open: Open?
        var failure: String?
        var lastAttempt: ContinuousClock.Instant?
    }

    let settings: Settings
    private let state = Mutex(State())
    private static let retryInterval = Duration.seconds(1)

    init(settings: Settings) {
        self.settings = settings
    }

    var databasePath: String { settings.databasePath }

    /// The open database, opening it if needed; a 503 when it cannot be.
    func current() throws -> Open {
        let stamp = Self.stamp(of: databasePath)
        return try state.withLock { state in
            if let open = state.open {
                // A copy over the database's own inode (`cp new.db spindle.db`) is seen only as a new time or
                // size: SQLite's cache, kept valid by the -shm, knows nothing of it, and served the old counts
                // for minutes and frames of the old file at the new one's offsets. A writer's checkpoint
                // reopens too, at the cost of an open.
                let writerCame = open.isSnapshot && FileManager.default.fileExists(atPath: databasePath + "-wal")
                if stamp == open.stamp && !writerCame { return open }
                state.open = nil // vanished, replaced, or written since it was opened: reopen below
                state.lastAttempt = nil
            }
            let now = ContinuousClock.now
            if let last = state.lastAttempt, now - last < Self.retryInterval, let failure = state.failure {
                throw APIError.unavailable(failure)
            }
            state.lastAttempt = now
            do {
                let open = try open(stamp: stamp)
                state.open = open
                state.failure = nil
                return open
            } catch {
                let reason = Self.describe(error)
                state.failure = reason
                throw APIError.unavailable(reason)
            }
        }
    }

    private func open(stamp: FileStamp?) throws -> Open {
        guard let stamp else { throw DatabaseUnavailable("no database at \(databasePath)") }
        let database = try SpindleDatabase(readingOnly: databasePath)
        let root = try LibraryRoot(path: try LibraryJobs.libraryPath(settings, database: database))
        guard let rootId = try database.writer.read({ db in try FileQueries.rootId(db, path: root.path) }) else {
            throw DatabaseUnavailable("the database knows no library at \(root.path): run `spindle scan` first")
        }
        return Open(database: database, root: root, rootId: rootId,
                    resolver: try PathResolver(database: database, root: root), stamp: stamp)
    }

    /// Runs a read; a locked or vanished database becomes a 503 instead of an internal error.
    func read<T>(_ body: (Open, Database) throws -> T) throws -> T {
        try read(in: current(), body)
    }

    /// A read in a library already taken (`current()`), so that what a request resolved against it is read
    /// from the same database even when the file is replaced meanwhile.
    func read<T>(in open: Open, _ body: (Open, Database) throws -> T) throws -> T {
        do {
            return try open.database.writer.read { db in try body(open, db) }
        } catch let error as DatabaseError {
            throw APIError.unavailable(Self.describe(error))
        }
    }

    /// A reason a client may read: SQLite's own words for lock and I/O errors, the message otherwise.
    static func describe(_ error: any Error) -> String {
        if let error = error as? DatabaseError {
            switch error.resultCode {
            case .SQLITE_BUSY, .SQLITE_LOCKED: return "the database is locked by another process; try again"
            case .SQLITE_CANTOPEN: return "the database cannot be opened"
            // A WAL database's readers share the index SQLite keeps beside it (-shm), created by whoever opens
            // the database first when it is not there: a reader that may not write the folder cannot. Spindle's
            // writers leave it in place (`SpindleDatabase.keepSideFiles`), so it is missing only beside a
            // database no Spindle of this version has written since it was copied or upgraded.
            case .SQLITE_READONLY:
                return "the database's folder is not writable by the server's user: SQLite keeps the index its "
                    + "readers share (-shm) beside the database; run any spindle command (`spindle status`) once as "
                    + "the database's owner, which leaves it there, or give that user write access to the folder"
            case .SQLITE_NOTADB, .SQLITE_CORRUPT: return "the database file is not a readable Spindle database"
            default: return "the database cannot be read (\(error.resultCode))"
            }
        }
        return String(describing: error)
    }

    /// A database the server's user may read but not write, in a folder it may write, owned by a user other
    /// than root, with -wal or -shm files beside it that are not all the owner's: the server's own (made by a
    /// server before it read snapshots), which the owner cannot write through (its nightly run fails with
    /// "attempt to write a readonly database"), or one of the pair missing, which SQLite would make as the
    /// server's user. With neither there the server reads a snapshot and makes none; with both the owner's it
    /// reads through them. (SQLite running as root gives what it makes to the database's owner; in a folder
    /// the server may not write it makes nothing.)
    static func sharingProblem(_ path: String) -> String? {
        var st = stat()
        let folder = (path as NSString).deletingLastPathComponent
        let sides = DatabaseFiles.sideFiles(of: path)
        guard stat(path, &st) == 0, st.st_uid != 0, st.st_uid != geteuid(), access(path, W_OK) != 0,
              access(folder.isEmpty ? "." : folder, W_OK) == 0,
              sides.contains(where: { FileManager.default.fileExists(atPath: $0) }),
              !Self.owned(sides, by: st.st_uid) else { return nil }
        return "this user may read but not write \(path), and the -wal and -shm files beside it are not all its "
            + "owner's: SQLite reads through them as this user, making what is missing as this user's, and the "
            + "database's owner could then no longer write it (the nightly run would fail). Stop the server, remove "
            + "those of them that are this user's (a reader's -wal is empty), run `spindle status` once as the "
            + "database's owner, and start the server again; or run the server as the database's owner"
    }

    /// Whether every one of `files` is there and `owner`'s (the side files this server reads through).
    private static func owned(_ files: [String], by owner: uid_t) -> Bool {
        files.allSatisfy { file in
            var st = stat()
            return stat(file, &st) == 0 && st.st_uid == owner
        }
    }

    static func stamp(of path: String) -> FileStamp? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return FileStamp(inode: UInt64(st.st_ino), modified: Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec),
                         size: Int64(st.st_size))
    }
}
