import Foundation
import GRDB

extension Migrations {
    static func v1FileIndex(_ db: Database) throws {
        try db.create(table: "library_roots") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("path", .text).notNull().unique()
            t.column("added_at", .datetime).notNull()
            t.column("last_scan_at", .datetime)
        }
        try db.create(table: "files") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("root_id", .integer).notNull().indexed().references("library_roots", onDelete: .cascade)
            t.column("path", .text).notNull()            // relative to the root, '/' separators
            t.column("name", .text).notNull()            // lower-cased file name, for name lookups
            t.column("size", .integer).notNull()
            t.column("mtime_ns", .integer).notNull()
            t.column("inode", .integer)
            t.column("content_key", .text)
            t.column("status", .text).notNull().defaults(to: "present")
            t.column("first_seen_at", .datetime).notNull()
            t.column("changed_at", .datetime).notNull()
            t.column("missing_since", .datetime)
            t.uniqueKey(["root_id", "path"])
        }
        try db.create(index: "files_on_name", on: "files", columns: ["name"])
        try db.create(index: "files_on_content_key", on: "files", columns: ["content_key"])
        try db.create(table: "tracks") { t in
            t.primaryKey("file_id", .integer).references("files", onDelete: .cascade)
            t.column("content_key", .text)
            t.column("title", .text)
            t.column("artist", .text)
            t.column("album_artist", .text)
            t.column("album", .text)
            t.column("genres", .text)                    // JSON array
            t.column("date", .text)
            t.column("year", .integer)
            t.column("track_number", .integer)
            t.column("track_total", .integer)
            t.column("disc_number", .integer)
            t.column("disc_total", .integer)
            t.column("language", .text)
            t.column("release_country", .text)
            t.column("bpm", .double)
            t.column("replaygain_track_gain", .text)
            t.column("replaygain_track_peak", .text)
            t.column("replaygain_album_gain", .text)
            t.column("replaygain_album_peak", .text)
            t.column("musicbrainz_track_id", .text)
            t.column("musicbrainz_album_id", .text)
            t.column("musicbrainz_artist_id", .text)
            t.column("musicbrainz_album_artist_id", .text)
            t.column("musicbrainz_release_group_id", .text)
            t.column("duration_s", .double)
            t.column("codec", .text)
            t.column("sample_rate", .integer)
            t.column("channels", .integer)
            t.column("bit_depth", .integer)
            t.column("bitrate_kbps", .integer)
            t.column("properties", .text)                // every tag property, JSON object of arrays
            t.column("read_at", .datetime).notNull()
        }
        try db.create(table: "runs") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("kind", .text).notNull()
            t.column("status", .text).notNull()          // running | completed | failed | interrupted
            t.column("pid", .integer)
            t.column("started_at", .datetime).notNull()
            t.column("finished_at", .datetime)
            t.column("files_total", .integer).notNull().defaults(to: 0)
            t.column("files_done", .integer).notNull().defaults(to: 0)
            t.column("files_failed", .integer).notNull().defaults(to: 0)
            t.column("files_skipped", .integer).notNull().defaults(to: 0)
            t.column("options", .text)
            t.column("summary", .text)
        }
        try db.create(table: "run_files") { t in
            t.column("run_id", .integer).notNull().references("runs", onDelete: .cascade)
            t.column("file_id", .integer).notNull().references("files", onDelete: .cascade)
            t.column("stage", .text).notNull()
            t.column("status", .text).notNull()          // pending | done | failed | skipped
            t.column("error", .text)
            t.column("attempts", .integer).notNull().defaults(to: 0)
            t.column("updated_at", .datetime).notNull()
            t.primaryKey(["run_id", "file_id", "stage"])
        }
        try db.create(index: "run_files_on_file", on: "run_files", columns: ["file_id", "stage"])
    }
}
