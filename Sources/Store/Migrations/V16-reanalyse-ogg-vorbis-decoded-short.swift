import Foundation
import GRDB

extension Migrations {
    static func v16ReanalyseOggVorbisDecodedShort(_ db: Database) throws {
        // libsndfile skipped the audio packets an encoder had put on an Ogg Vorbis file's header page, so
        // such files were analysed without their start (an LMMS crash cymbal lost its attack, 0.39 s and
        // 7 LU). They decode whole now (`OggPages`). Their analysed duration falls short of TagLib's,
        // which counts from the granule positions, by at least 1,024 samples (over 21 ms); a healthy file
        // differs by under a millisecond. Those analyses are made stale so the next run decodes them again.
        try db.execute(sql: """
            UPDATE analysis SET analyzer_versions = '{}'
            WHERE codec = 'vorbis'
              AND (SELECT t.duration_s FROM tracks t WHERE t.file_id = analysis.file_id) - duration_s > 0.015
            """)
    }
}
