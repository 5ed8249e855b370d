import Foundation
import GRDB

/// A media server whose ids Spindle maps to library files: Navidrome (`navidrome import`, `navidrome_tracks`)
/// or Jellyfin (`jellyfin import`, `jellyfin_tracks`). The AudioMuse-AI API answers in the ids of the server asked.
public enum MediaServer: String, Codable, Sendable, CaseIterable, DatabaseValueConvertible {
    case navidrome, jellyfin

    var table: String { self == .navidrome ? "navidrome_tracks" : "jellyfin_tracks" }
    var idColumn: String { self == .navidrome ? "navidrome_id" : "jellyfin_id" }
    public var name: String { self == .navidrome ? "Navidrome" : "Jellyfin" }

    /// A Jellyfin id in the form its plugins send and `jellyfin_tracks` keeps: a GUID in any of .NET's text
    /// forms (with dashes or braces, any case) as 32 lowercase hex digits; any other text as it is.
    public static func jellyfinForm(_ id: String) -> String {
        let bare = id.lowercased().filter { $0 != "-" && $0 != "{" && $0 != "}" }
        return bare.count == 32 && bare.allSatisfy(\.isHexDigit) ? bare : id
    }
}

/// The id maps of both media servers, read: tracks by id and ids by path, and the artists the servers credit.
public enum MediaServerQueries {
    /// The present file of root `rootId` that the server's track `id` is, or nil.
    public static func path(_ db: Database, rootId: Int64, server: MediaServer, id: String) throws -> String? {
        try String.fetchOne(db, sql: """
            SELECT f.path FROM \(server.table) n JOIN files f ON f.id = n.file_id
            WHERE n.\(server.idColumn) = ? AND f.root_id = ? AND f.status = 'present'
            """, arguments: [id, rootId])
    }

    /// The server's id for each of `paths` that has one (the least, where a file has several), by path.
    public static func ids(_ db: Database, rootId: Int64, server: MediaServer, paths: [String]) throws -> [String: String] {
        var out: [String: String] = [:]
        for start in stride(from: 0, to: paths.count, by: 500) {
            let chunk = Array(paths[start..<min(paths.count, start + 500)])
            let rows = try Row.fetchAll(db, sql: """
                SELECT f.path, min(n.\(server.idColumn)) FROM \(server.table) n JOIN files f ON f.id = n.file_id
                WHERE f.root_id = ? AND f.path IN (\(chunk.map { _ in "?" }.joined(separator: ", "))) GROUP BY f.path
                """, arguments: StatementArguments([rootId]) + StatementArguments(chunk))
            for row in rows { try out[row.at(0) as String] = row.at(1) as String }
        }
        return out
    }

    /// How many of the server's tracks are mapped to files of root `rootId`.
    public static func mappedCount(_ db: Database, rootId: Int64, server: MediaServer) throws -> Int {
        try Int.fetchOne(db, sql: """
            SELECT count(*) FROM \(server.table) n JOIN files f ON f.id = n.file_id WHERE f.root_id = ? AND f.status = 'present'
            """, arguments: [rootId]) ?? 0
    }

    /// An artist credit of a present file of root `rootId`, by the server's ids.
    public struct ArtistCredit: Sendable, Equatable {
        public var path, artistId, artistName: String
    }

    /// Every artist credit of the library's mapped tracks on the server.
    public static func artistCredits(_ db: Database, rootId: Int64, server: MediaServer) throws -> [ArtistCredit] {
        try Row.fetchAll(db, sql: """
            SELECT DISTINCT f.path, a.artist_id, a.artist_name FROM media_server_artists a
            JOIN \(server.table) n ON n.\(server.idColumn) = a.track_id JOIN files f ON f.id = n.file_id
            WHERE a.server = ? AND f.root_id = ? AND f.status = 'present'
            """, arguments: [server, rootId]).map { row in
            ArtistCredit(path: try row.at(0), artistId: try row.at(1), artistName: try row.at(2))
        }
    }

    /// The artists whose id is `text`, or failing that whose name it is (any case), on the servers that credit them.
    public static func artists(_ db: Database, idOrName text: String) throws -> [(server: MediaServer, artistId: String)] {
        var rows = try Row.fetchAll(db, sql: "SELECT DISTINCT server, artist_id FROM media_server_artists WHERE artist_id = ?",
                                    arguments: [text])
        if rows.isEmpty {
            rows = try Row.fetchAll(db, sql: """
                SELECT DISTINCT server, artist_id FROM media_server_artists WHERE artist_name = ? COLLATE NOCASE
                """, arguments: [text])
        }
        return try rows.map { (try $0.at(0), try $0.at(1)) }
    }

    /// What changes when the server's artist credits are imported again: their count and the newest row.
    public static func artistStamp(_ db: Database, server: MediaServer) throws -> [Int64] {
        let row = try Row.fetchOne(db, sql: "SELECT count(*), max(rowid) FROM media_server_artists WHERE server = ?", arguments: [server])
        return [try row?.at(0) ?? 0, (try row?.at(1) as Int64?) ?? 0]
    }

    /// The server's artist credits, replaced by `rows` (a hostile source may repeat one: the last wins).
    /// Rows are numbered on from the table's highest rowid, so that `artistStamp` changes with every import.
    public static func replaceArtists(_ db: Database, server: MediaServer, _ rows: [MediaServerArtistRecord]) throws {
        var next = try Int64.fetchOne(db, sql: "SELECT max(rowid) FROM media_server_artists") ?? 0
        try MediaServerArtistRecord.filter(Column("server") == server).deleteAll(db)
        for row in rows {
            next += 1
            try db.execute(sql: """
                INSERT OR REPLACE INTO media_server_artists (rowid, server, track_id, artist_id, artist_name) VALUES (?, ?, ?, ?, ?)
                """, arguments: [next, row.server, row.trackId, row.artistId, row.artistName])
        }
    }

    /// Every Jellyfin item's row, replaced.
    public static func replaceJellyfinTracks(_ db: Database, _ rows: [JellyfinTrackRecord]) throws {
        try JellyfinTrackRecord.deleteAll(db)
        for var row in rows { try row.upsert(db) }
    }
}
