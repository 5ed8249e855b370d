import Foundation
import GRDB

extension Migrations {
    static func v14ReanalyseWavDecodedByFfmpeg(_ db: Database) throws {
        // Big-endian WAVs (RIFX) used to be decoded by FFmpeg, which read their samples byte-swapped: their
        // stored loudness, tempo and the rest describe noise. Every .wav analysis that FFmpeg's PCM decoders
        // made (libsndfile, which decodes the other WAVs, names its codec plain "pcm") is made stale, so the
        // next run decodes it again: the RIFX ones right, the few others (a data size never filled in) as before.
        try db.execute(sql: """
            UPDATE analysis SET analyzer_versions = '{}'
            WHERE codec LIKE 'pcm\\_%' ESCAPE '\\'
              AND file_id IN (SELECT id FROM files WHERE lower(path) LIKE '%.wav' OR lower(path) LIKE '%.wave')
            """)
    }
}
