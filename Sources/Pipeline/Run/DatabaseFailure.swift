import GRDB

/// What a user can do about the SQLite failures a home server meets: a full or failing disk, a database file
/// another user owns (a container's UID), a damaged or foreign file. SQLite's own words ("attempt to write a readonly
/// database - while executing `CREATE TABLE grdb_issue_102 ...`") name neither the cause nor the remedy.
public enum DatabaseFailure {
    /// The message for a command's last words, or nil when the error is not one of these.
    public static func explain(_ error: Error) -> String? {
        guard let error = error as? DatabaseError else { return nil }
        let sqlite = "SQLite error \(error.resultCode.rawValue): \(error.message ?? "\(error.resultCode)")"
        switch error.resultCode {
        case .SQLITE_FULL:
            return "the disk holding the database is full (\(sqlite)): free some space and run again; "
                + "what earlier runs stored is kept"
        case .SQLITE_IOERR:
            return "a read or write of the database failed (\(sqlite)): the disk may be full or failing, a file-size "
                + "limit (`ulimit -f`) may stop it, or the network share holding it went away; look at the free space "
                + "and at `dmesg`, then run again; what earlier runs stored is kept"
        case .SQLITE_READONLY:
            return "the database cannot be written (\(sqlite)): the user running spindle needs write access to "
                + "the database file and to its folder (SQLite writes a journal beside it)"
        case .SQLITE_CORRUPT, .SQLITE_NOTADB:
            return "the database file is damaged or is not a Spindle database (\(sqlite)): restore it from a "
                + "backup, or move it aside and run again to build a new one (the library is analysed again)"
        default:
            return nil
        }
    }
}
