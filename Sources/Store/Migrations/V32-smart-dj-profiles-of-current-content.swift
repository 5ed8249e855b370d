import Foundation
import GRDB

extension Migrations {
    static func v32SmartDjProfilesOfCurrentContent(_ db: Database) throws {
        // The companion's view handed out a changed file's old analysis (another recording's BPM and
        // silences, a player crossfading on them) until the file was analysed again, where the read API
        // answers 404 for it. Only rows of the content a file holds now; and the library
        // each row is of, for a database with several. (The predicate is `AnalysisQueries.ofCurrentContent`,
        // spelt out: a migration's SQL must not change with later code.)
        try db.execute(sql: """
            DROP VIEW IF EXISTS smart_dj_profiles;
            CREATE VIEW smart_dj_profiles AS
            SELECT f.path AS relative_path, a.bpm AS bpm,
                   a.trail_silence_start_s AS silence_start, a.lead_silence_end_s AS silence_end,
                   a.lufs_integrated AS lufs, r.path AS library
            FROM analysis a JOIN files f ON f.id = a.file_id JOIN library_roots r ON r.id = f.root_id
            WHERE a.status = 'ok' AND f.status = 'present' AND a.content_key IS f.content_key
            """)
    }
}
