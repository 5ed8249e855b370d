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

    /// One `media_file` row of Navidrome's database, every column read as text whatever type it holds.
    public struct MediaFile: Sendable {
        public var id, path: String
        /// The Navidrome library holding the track (newer schema; nil in the older one) and its folder.
        public var libraryId, libraryName, libraryPath: String?
        public var title, album, albumArtist, artist, suffix: String?
        /// The artists and album artists Navidrome credits the track with, by its artist ids.
        public var artists: [(id: String, name: String)] = []
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
            let credits = try artistCredits(db, columns: columns)
            return try Row.fetchAll(db, sql: sql).compactMap { row -> MediaFile? in
                guard let id = text(row[0]), !id.isEmpty, let path = text(row[1]), !path.isEmpty else { return nil }
                return MediaFile(id: id, path: path, libraryId: text(row[8]), libraryName: text(row[9]),
                                 libraryPath: text(row[2]), title: text(row[3]), album: text(row[4]),
                                 albumArtist: text(row[5]), artist: text(row[6]), suffix: text(row[7]),
                                 artists: credits[id] ?? [])
            }
        } ?? { throw NotNavidrome(path: path) }()
    }

    /// Artist credits by track id: from `media_file_artists` (roles artist and albumartist) where Navidrome has
    /// it (0.55 and later), else from `media_file`'s own artist_id and album_artist_id columns.
    private static func artistCredits(_ db: Database, columns: Set<String>) throws -> [String: [(id: String, name: String)]] {
        let sql: String
        if try db.tableExists("media_file_artists"), try db.tableExists("artist") {
            sql = """
                SELECT c.media_file_id, c.artist_id, a.name FROM media_file_artists c JOIN artist a ON a.id = c.artist_id
                WHERE c.role IN ('artist', 'albumartist')
                """
        } else if columns.isSuperset(of: ["artist_id", "artist", "album_artist_id", "album_artist"]) {
            sql = "SELECT id, artist_id, artist FROM media_file UNION SELECT id, album_artist_id, album_artist FROM media_file"
        } else {
            return [:]
        }
        var out: [String: [(id: String, name: String)]] = [:]
        for row in try Row.fetchAll(db, sql: sql) {
            guard let track = text(row[0]), let id = text(row[1]), !id.isEmpty, let name = text(row[2]) else { continue }
            if !(out[track]?.contains { $0.id == id } ?? false) { out[track, default: []].append((id, name)) }
        }
        return out
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
