import Foundation
import GRDB
import GRDBSQLite

/// The Spindle database: one SQLite file in WAL mode, migrated to the current schema when opened.
public final class SpindleDatabase: Sendable {
    public let writer: DatabasePool
    public let path: String
    /// Read as immutable (`ReadOnlyWAL`): the file as it was when opened, blind to any writer since. A reader
    /// that stays open (the server) opens again once a writer's -wal appears.
    public let isSnapshot: Bool

    /// Opens (creating folders and the file if needed) and migrates.
    public init(path: String) throws {
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty {
            try Folders.make(folder)
        }
        try Self.refuseNonRegularFile(path)
        try Self.refuseForeignSideFiles(path)
        writer = try DatabasePool(path: path, configuration: Self.configuration())
        self.path = path
        isSnapshot = false
        try Self.refuseNewerSchema(writer, path: path)
        try Migrations.migrator().migrate(writer)
    }

    /// Something other than a file in the database's place (a FIFO, a device, a folder): SQLite's open of a FIFO
    /// blocks until a writer comes, and a server stuck there answered nothing, `/health` included, and ignored
    /// SIGTERM. A symlink to a regular file is a file.
    static func refuseNonRegularFile(_ path: String) throws {
        var st = stat()
        guard stat(path, &st) == 0 else { return }   // not there yet: created as a file
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            throw DatabaseUnavailable("\(path) is not a regular file (a FIFO, a device or a folder is in the database's place)")
        }
    }

    /// A database a newer Spindle wrote holds migrations this one does not know: tables and columns the newer
    /// version counts on, which this one's writes would leave unfilled or out of step. Writing it is refused;
    /// reading it is safe, since migrations only add.
    static func refuseNewerSchema(_ writer: DatabasePool, path: String) throws {
        let unknown = try writer.read { db in try Migrations.migrator().appliedIdentifiers(db) }.subtracting(migrationNames)
        guard !unknown.isEmpty else { return }
        throw DatabaseTooNew(description: "\(path) was written by a newer Spindle (its schema has \(unknown.sorted().joined(separator: ", ")), "
            + "which this one does not know): run the newer spindle (`which -a spindle` lists those on the PATH), or upgrade "
            + "this one. Commands that only read it still work.")
    }

    /// Opens and migrates only up to `migration` (tests of in-place upgrades).
    public init(path: String, upTo migration: String) throws {
        writer = try DatabasePool(path: path, configuration: Self.configuration())
        self.path = path
        isSnapshot = false
        try Migrations.migrator().migrate(writer, upTo: migration)
    }

    /// Opens an existing database for reading only (`spindle serve`, and the commands that only read when their
    /// user may not write it): never creates, migrates or writes. A database an older Spindle wrote is refused
    /// until a writing command has upgraded it, because the queries read the current schema. Reads wait at most
    /// `busyTimeout` for a lock before failing. A database without a -wal, which this user may not write, is
    /// read as a snapshot, making no -wal or -shm this user cannot make or should not own (`ReadOnlyWAL`).
    public init(readingOnly path: String, busyTimeout: TimeInterval = 2) throws {
        guard FileManager.default.fileExists(atPath: path) else { throw DatabaseUnavailable("no database at \(path)") }
        try Self.refuseNonRegularFile(path)
        var config = Self.configuration()
        config.readonly = true
        config.busyMode = .timeout(busyTimeout)
        var snapshot = false
        writer = try ReadOnlyWAL.open(path) { location in
            snapshot = location != path
            return try Self.currentSchema(path, opening: location, configuration: config)
        }
        self.path = path
        isSnapshot = snapshot
    }

    /// Opens an existing database for a command that only reads it (status, similar, mix, resolve, tags show,
    /// frames, genres report). A user who may write it gets the usual open, and with it the upgrade a newer
    /// Spindle brings; a user who may not (a monitoring account, the media server's user) reads it as it is,
    /// where the usual open would fail on SQLite's first write (`PRAGMA synchronous`, the migrations' table).
    public static func forReading(_ path: String) throws -> SpindleDatabase {
        guard FileManager.default.isWritableFile(atPath: path) else { return try SpindleDatabase(readingOnly: path) }
        do {
            return try SpindleDatabase(path: path)
        } catch let error where error is ForeignSideFile || error is DatabaseTooNew
                    || [.SQLITE_READONLY, .SQLITE_CANTOPEN, .SQLITE_PERM].contains((error as? DatabaseError)?.resultCode) {
            return try SpindleDatabase(readingOnly: path)
        }
    }

    /// A -wal or -shm beside the database that this user may not write, though it may write the database: kept
    /// by Spindle run as the database's previous owner (`keepSideFiles`), or made by a process reading it as
    /// another user, with the database's mode. SQLite fails with "attempt to write a readonly database", which
    /// names neither the file nor its maker.
    static func refuseForeignSideFiles(_ path: String) throws {
        guard FileManager.default.isWritableFile(atPath: path) else { return }
        for side in DatabaseFiles.sideFiles(of: path) {
            var st = stat()
            guard stat(side, &st) == 0, access(side, W_OK) != 0 else { continue }
            let owner = DatabaseFiles.userName(st.st_uid)
            throw ForeignSideFile(description: "\(side) belongs to \(owner), and this user may not write it: Spindle "
                + "run as \(owner) before the database changed owner left it (then hand over all its files: "
                + "\(DatabaseFiles.handOver(path))), or a process reading the database as \(owner) (`spindle serve`?) "
                + "made it (then run both as one user, or give both a group that may write the database; to go on now, "
                + "stop that process and remove \(path)-wal and \(path)-shm if the -wal file is empty: a reader's is, a "
                + "writer's holds its last changes)")
        }
    }

    /// A read-only pool on `location`, refused unless it holds every migration.
    private static func currentSchema(_ path: String, opening location: String, configuration: Configuration) throws -> DatabasePool {
        let pool = try DatabasePool(path: location, configuration: configuration)
        let applied = Set(try pool.read { db in try Migrations.migrator().appliedMigrations(db) })
        let missing = migrationNames.filter { !applied.contains($0) }
        if !missing.isEmpty {
            throw DatabaseUnavailable("\(path) was written by an older Spindle (missing \(missing.joined(separator: ", "))): run `spindle status` once as a user who may write it, to upgrade it")
        }
        return pool
    }

    static func configuration() -> Configuration {
        var config = Configuration()
        config.busyMode = .timeout(30)
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            if !db.configuration.readonly { try keepSideFiles(db) }
            // The fuzzy index's triggers call it on every connection that writes `files`.
            db.add(function: PathWords.sqlFunction)
        }
        return config
    }

    /// Persistent WAL: the -wal and -shm files stay beside the database when the last writer closes it (the
    /// -wal emptied), owned by the user who writes it. SQLite otherwise deletes them, and the next reader makes
    /// them again: `spindle serve` or a command run as a user who may write the folder but not the database made
    /// them as its own, and the owner's next run could not write through them (`ForeignSideFile`). With them in
    /// place, such a reader uses them read-only and makes nothing (SQLite's read-only WAL access, 3.22 and later).
    private static func keepSideFiles(_ db: Database) throws {
        var persist: CInt = 1
        let code = sqlite3_file_control(db.sqliteConnection, nil, SQLITE_FCNTL_PERSIST_WAL, &persist)
        guard code == SQLITE_OK else { throw DatabaseError(resultCode: ResultCode(rawValue: code)) }
        // Without a limit the kept -wal would keep the size a run grew it to. With one, it is emptied when the
        // last writer closes (a database file replaced meanwhile then finds no stale frames beside it), and
        // cut back to 8 MiB after each checkpoint during a run.
        try db.execute(sql: "PRAGMA journal_size_limit = \(8 << 20)")
    }

    public static var migrationNames: [String] { Migrations.migrator().migrations }

    public func appliedMigrations() throws -> [String] {
        try writer.read { db in try Migrations.migrator().appliedMigrations(db) }
    }

    /// The default location: $XDG_DATA_HOME/spindle/spindle.db, else ~/.local/share/spindle/spindle.db.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let xdg = environment["XDG_DATA_HOME"], !xdg.isEmpty { return xdg + "/spindle/spindle.db" }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return home + "/.local/share/spindle/spindle.db"
    }
}

/// A -wal or -shm file another user made beside the database (`SpindleDatabase.refuseForeignSideFiles`).
public struct ForeignSideFile: Error, CustomStringConvertible, Sendable {
    public var description: String
}

/// The database was written by a newer Spindle, which this one must not write (`refuseNewerSchema`).
public struct DatabaseTooNew: Error, CustomStringConvertible, Sendable {
    public var description: String
}

/// The database cannot be read as it is (missing, from an older version); the message says what to do.
public struct DatabaseUnavailable: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
