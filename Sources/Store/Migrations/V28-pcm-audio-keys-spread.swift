import Foundation
import GRDB

extension Migrations {
    static func v28PcmAudioKeysSpread(_ db: Database) throws {
        // A WAV's or AIFF's audio key now samples the middle of its samples too, so PCM changed in place is
        // told from a touched file: keys of the old form are computed again by the scans' backfill.
        try db.execute(sql: """
            UPDATE files SET audio_key = NULL
            WHERE lower(path) LIKE '%.wav' OR lower(path) LIKE '%.wave' OR lower(path) LIKE '%.aif'
               OR lower(path) LIKE '%.aiff' OR lower(path) LIKE '%.aifc'
            """)
    }
}
