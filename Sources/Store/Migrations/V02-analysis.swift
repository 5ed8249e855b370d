import Foundation
import GRDB

extension Migrations {
    static func v2Analysis(_ db: Database) throws {
        try db.create(table: "analysis") { t in
            t.primaryKey("file_id", .integer).references("files", onDelete: .cascade)
            t.column("content_key", .text)
            t.column("analyzer_version", .integer).notNull()
            t.column("analyzed_at", .datetime).notNull()
            t.column("status", .text).notNull()          // ok | error
            t.column("error", .text)
            t.column("damage", .text)                    // set when only part of the file decoded
            t.column("codec", .text)
            t.column("duration_s", .double)
            t.column("sample_rate", .integer)
            t.column("channels", .integer)
            t.column("bpm", .double)
            t.column("bpm_confidence", .double)
            t.column("first_beat_s", .double)
            t.column("lufs_integrated", .double)
            t.column("loudness_range_lu", .double)
            t.column("true_peak_dbtp", .double)
            t.column("sample_peak_dbfs", .double)
            t.column("replaygain_track_gain_db", .double)
            t.column("lead_silence_end_s", .double)
            t.column("trail_silence_start_s", .double)
            t.column("is_silent", .boolean)
            t.column("frames_fps", .double)
            t.column("frames_bands", .integer)
            t.column("frames_count", .integer)
            t.column("seconds", .double)
        }
        try db.create(table: "vis_frames") { t in
            t.primaryKey("file_id", .integer).references("files", onDelete: .cascade)
            t.column("fps", .double).notNull()
            t.column("bands", .integer).notNull()
            t.column("count", .integer).notNull()
            t.column("data", .blob).notNull()
        }
        // The Navidrome companion's names: silence_start is where TRAILING silence begins,
        // silence_end where LEADING silence ends.
        try db.execute(sql: """
            CREATE VIEW smart_dj_profiles AS
            SELECT f.path AS relative_path, a.bpm AS bpm,
                   a.trail_silence_start_s AS silence_start, a.lead_silence_end_s AS silence_end,
                   a.lufs_integrated AS lufs
            FROM analysis a JOIN files f ON f.id = a.file_id
            WHERE a.status = 'ok' AND f.status = 'present'
            """)
    }
}
