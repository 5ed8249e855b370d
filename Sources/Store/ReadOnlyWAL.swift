import Foundation
import GRDB

/// Reading a WAL-mode database (Spindle's, Navidrome's) as a user who may not write it.
///
/// While a writer has the database open, its -wal and -shm files exist and a reader needs only to read them.
/// Spindle's own writers leave them in place when they close (`SpindleDatabase.keepSideFiles`); other writers
/// (Navidrome, an older Spindle) delete them, and SQLite makes them again to read at all: in a folder this user
/// may not write it cannot (SQLITE_READONLY or SQLITE_CANTOPEN), and in one it may, they would be this user's,
/// and the database's owner could no longer write through them (SQLite running as root gives them to the
/// database's owner; anyone else cannot). No -wal file means no write is pending, so the main file alone is the
/// whole database, and it is read as immutable, creating nothing. A writer starting meanwhile writes to a new
/// -wal, which an immutable reader does not see; only a checkpoint into the main file during the read could
/// be seen half done. A command reads for a moment; the server opens again once a -wal appears (`ServedLibrary`).
enum ReadOnlyWAL {
    /// `open(location)` with `path` itself or its immutable URI, as above.
    static func open<T>(_ path: String, _ open: (String) throws -> T) throws -> T {
        let noWriter = !FileManager.default.fileExists(atPath: path + "-wal")
        if noWriter && !FileManager.default.isWritableFile(atPath: path) { return try open(immutableLocation(path)) }
        do {
            return try open(path)
        } catch let error as DatabaseError where noWriter && [.SQLITE_READONLY, .SQLITE_CANTOPEN].contains(error.resultCode) {
            return try open(immutableLocation(path))
        }
    }

    static func immutableLocation(_ path: String) -> String {
        "file:\(path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path)?immutable=1"
    }
}
