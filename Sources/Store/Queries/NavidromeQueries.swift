import Foundation
import GRDB

/// Navidrome's track ids mapped to library files (`navidrome_tracks`), and Navidrome's own database, read.
public enum NavidromeQueries {
    /// Every Navidrome track's row, replaced; `others`, the tracks of Navidrome libraries that are not this
    /// root's, keep the file an import for another root (a second disk in the same database) mapped them to,
    /// instead of losing it to this import's "not ours".
    public static func replaceMappings(_ db: Database, _ rows: [NavidromeTrackRecord], others: Set<String>) throws {
        let kept = try NavidromeTrackRecord.filter(Column("file_id") != nil).fetchAll(db).filter { others.contains($0.navidromeId) }
        try NavidromeTrackRecord.deleteAll(db)
        // A hostile database may repeat an id: the last row for it wins.
        for var row in rows { try row.upsert(db) }
        for var row in kept { try row.upsert(db) }
    }

    /// The present file of root `rootId` that Navidrome's track `id` is, or nil.
    public static func path(_ db: Database, rootId: Int64, navidromeId id: String) throws -> String? {
        try String.fetchOne(db, sql: """
            SELECT f.path FROM navidrome_tracks n JOIN files f ON f.id = n.file_id
            WHERE n.navidrome_id = ? AND f.root_id = ? AND f.status = 'present'
            """, arguments: [id, rootId])
    }

    /// Navidrome's id for each of `paths` that has one (the least, where a file has several), by path.
    public static func navidromeIds(_ db: Database, rootId: Int64, paths: [String]) throws -> [String: String] {
        var out: [String: String] = [:]
        for start in stride(from: 0, to: paths.count, by: 500) {
            let chunk = Array(paths[start..<min(paths.count, start + 500)])
            let rows = try Row.fetchAll(db, sql: """
                SELECT f.path, min(n.navidrome_id) FROM navidrome_tracks n JOIN files f ON f.id = n.file_id
                WHERE f.root_id = ? AND f.path IN (\(chunk.map { _ in "?" }.joined(separator: ", "))) GROUP BY f.path
                """, arguments: StatementArguments([rootId]) + StatementArguments(chunk))
            for row in rows { try out[row.at(0) as String] = row.at(1) as String }
        }
        return out
    }

    /// One `media_file` row of Navidrome's database, every column read as text whatever type it holds.
    public struct MediaFile: Sendable {
        public var id, path: String
        /// The Navidrome library holding the track (newer schema; nil in the older one) and its folder.
        public var libraryId, libraryName, libraryPath: String?
        public var title, album, albumArtist, artist, suffix: String?
    }

    /// Reads Navidrome's tracks, opening its database read-only. Both schemas: the newer (`library` table,
    /// paths relative to the library's folder) and the older (absolute paths). Any column may hold any type
    /// in SQLite (a NULL id, an integer title, a BLOB path): rows without an id or a path are passed over.
    public static func mediaFiles(navidromeDB path: String) throws -> [MediaFile] {
        do {
            // A stopped Navidrome's database is read as it is, making no -wal or -shm beside it.
            return try ReadOnlyWAL.open(path) { try mediaFiles(opening: $0, named: path) }
        } catch let error as DatabaseError {
            throw CannotRead(path: path, reason: error.message ?? "SQLite error \(error.resultCode.rawValue)")
        }
    }

    private static func mediaFiles(opening location: String, named path: String) throws -> [MediaFile] {
        var config = Configuration()
        config.readonly = true
        let navidrome = try DatabaseQueue(path: location, configuration: config)
        return try navidrome.read { db -> [MediaFile]? in
            guard try db.tableExists("media_file") else { return nil }
            let columns = Set(try db.columns(in: "media_file").map(\.name))
            func column(_ name: String) -> String { columns.contains(name) ? "m.\(name)" : "NULL" }
            let hasLibrary = try db.tableExists("library") && columns.contains("library_id")
            let sql = """
                SELECT m.id, m.path, \(hasLibrary ? "l.path" : "NULL"), \(column("title")), \(column("album")),
                       \(column("album_artist")), \(column("artist")), \(column("suffix")),
                       \(hasLibrary ? "m.library_id" : "NULL"), \(hasLibrary ? "l.name" : "NULL")
                FROM media_file m \(hasLibrary ? "LEFT JOIN library l ON l.id = m.library_id" : "")
                """
            return try Row.fetchAll(db, sql: sql).compactMap { row -> MediaFile? in
                guard let id = text(row[0]), !id.isEmpty, let path = text(row[1]), !path.isEmpty else { return nil }
                return MediaFile(id: id, path: path, libraryId: text(row[8]), libraryName: text(row[9]),
                                 libraryPath: text(row[2]), title: text(row[3]), album: text(row[4]),
                                 albumArtist: text(row[5]), artist: text(row[6]), suffix: text(row[7]))
            }
        } ?? { throw NotNavidrome(path: path) }()
    }

    public struct CannotRead: Error, CustomStringConvertible {
        public let path, reason: String
        public var description: String { "cannot read Navidrome database \(path): \(reason)" }
    }

    public struct NotNavidrome: Error, CustomStringConvertible {
        public let path: String
        public var description: String { "\(path) has no media_file table: not a Navidrome database" }
    }

    /// A column's value as text whatever SQLite type it has; a BLOB only when it is valid UTF-8.
    static func text(_ value: DatabaseValue) -> String? {
        switch value.storage {
        case .null: return nil
        case .int64(let i): return String(i)
        case .double(let d): return d.isFinite ? String(d) : nil
        case .string(let s): return s
        case .blob(let data): return String(data: data, encoding: .utf8)
        }
    }
}
