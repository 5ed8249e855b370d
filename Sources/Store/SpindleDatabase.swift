import Foundation
import GRDB

/// The Spindle database: one SQLite file in WAL mode, migrated to the current schema when opened.
public final class SpindleDatabase: Sendable {
    public let writer: DatabasePool
    public let path: String

    /// Opens (creating folders and the file if needed) and migrates.
    public init(path: String) throws {
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty {
            try Folders.make(folder)
        }
        writer = try DatabasePool(path: path, configuration: Self.configuration())
        self.path = path
        try Migrations.migrator().migrate(writer)
    }

    /// Opens and migrates only up to `migration` (tests of in-place upgrades).
    public init(path: String, upTo migration: String) throws {
        writer = try DatabasePool(path: path, configuration: Self.configuration())
        self.path = path
        try Migrations.migrator().migrate(writer, upTo: migration)
    }

    /// Opens an existing database for reading only (`spindle serve`): never creates, migrates or writes.
    /// A database an older Spindle wrote is refused until a writing command has upgraded it, because the
    /// queries read the current schema. Reads wait at most `busyTimeout` for a lock before failing.
    public init(readingOnly path: String, busyTimeout: TimeInterval = 2) throws {
        guard FileManager.default.fileExists(atPath: path) else { throw DatabaseUnavailable("no database at \(path)") }
        var config = Self.configuration()
        config.readonly = true
        config.busyMode = .timeout(busyTimeout)
        writer = try DatabasePool(path: path, configuration: config)
        self.path = path
        let applied = Set(try writer.read { db in try Migrations.migrator().appliedMigrations(db) })
        let missing = Self.migrationNames.filter { !applied.contains($0) }
        if !missing.isEmpty {
            throw DatabaseUnavailable("\(path) was written by an older Spindle (missing \(missing.joined(separator: ", "))): run `spindle status` once to upgrade it")
        }
    }

    static func configuration() -> Configuration {
        var config = Configuration()
        config.busyMode = .timeout(30)
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            // The fuzzy index's triggers call it on every connection that writes `files`.
            db.add(function: PathWords.sqlFunction)
        }
        return config
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

/// The database cannot be read as it is (missing, from an older version); the message says what to do.
public struct DatabaseUnavailable: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
