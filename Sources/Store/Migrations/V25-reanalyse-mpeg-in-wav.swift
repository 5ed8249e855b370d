import Foundation
import GRDB

extension Migrations {
    static func v25ReanalyseMpegInWav(_ db: Database) throws {
        // MPEG audio inside a WAV was decoded by libsndfile, which stops silently partway through VBR audio:
        // its duration, loudness, silences and the rest describe the first part only. FFmpeg decodes it now.
        // Every MPEG analysis of a file not named as an MPEG file is made stale (a bare MP3 named .wav is
        // decoded again for nothing, at no harm).
        try db.execute(sql: """
            UPDATE analysis SET analyzer_versions = '{}'
            WHERE codec IN ('mp1', 'mp2', 'mp3')
              AND file_id IN (SELECT id FROM files WHERE lower(path) NOT LIKE '%.mp1' AND lower(path) NOT LIKE '%.mp2'
                                                   AND lower(path) NOT LIKE '%.mp3' AND lower(path) NOT LIKE '%.mpga')
            """)
    }
}
