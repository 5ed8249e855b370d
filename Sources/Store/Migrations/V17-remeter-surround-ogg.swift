import Foundation
import GRDB

extension Migrations {
    static func v17RemeterSurroundOgg(_ db: Database) throws {
        // libsndfile hands Vorbis and Opus surround over in the codecs' own channel order (FL FC FR, surrounds,
        // LFE), and the meter weighed it as file order: a 5.1 file's rear left went uncounted as the LFE, and
        // its LFE counted as a surround. Decoders now deliver file order (`ChannelOrder`). Only loudness
        // depends on the order (peaks, the mono mix and the rest do not), so only it is made stale, and only
        // for Vorbis and Opus of five channels or more (three channels are all weighed alike).
        try db.execute(sql: """
            UPDATE analysis SET analyzer_versions = json_remove(analyzer_versions, '$.loudness')
            WHERE codec IN ('vorbis', 'opus') AND channels >= 5 AND json_valid(analyzer_versions)
            """)
    }
}
