import Foundation
import GRDB

extension Migrations {
    static func v37MediaServerArtistsAndJellyfinTracks(_ db: Database) throws {
        // Jellyfin's item ids mapped to library files, as navidrome_tracks holds Navidrome's (null file_id:
        // unresolved). Ids are kept as Jellyfin's plugins send them: 32 lowercase hex digits, no dashes.
        try db.create(table: "jellyfin_tracks") { t in
            t.primaryKey("jellyfin_id", .text)
            t.column("file_id", .integer).references("files", onDelete: .setNull)
            t.column("jellyfin_path", .text).notNull()
            t.column("strategy", .integer)
            t.column("tried", .text)
            t.column("imported_at", .datetime).notNull()
        }
        try db.create(index: "jellyfin_tracks_on_file", on: "jellyfin_tracks", columns: ["file_id"])
        // The artists each media server credits a track with, by the server's own ids: what /api/similar_artists
        // is asked for and answers with.
        try db.create(table: "media_server_artists") { t in
            t.column("server", .text).notNull().check { ["navidrome", "jellyfin"].contains($0) }
            t.column("track_id", .text).notNull()
            t.column("artist_id", .text).notNull()
            t.column("artist_name", .text).notNull()
            t.primaryKey(["server", "track_id", "artist_id"])
        }
        try db.create(index: "media_server_artists_by_artist", on: "media_server_artists", columns: ["server", "artist_id"])
    }
}
