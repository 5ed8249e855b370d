import Foundation
import GRDB

extension Migrations {
    static func v29ReanalyseFlacStoppedByDamage(_ db: Database) throws {
        // libsndfile stopped decoding a FLAC at its first damaged frame; libFLAC, now first, decodes on. The
        // FLACs whose analysis stopped so are analysed again, whole.
        try db.execute(sql: """
            UPDATE analysis SET analyzer_versions = '{}' WHERE codec = 'flac' AND damage LIKE 'decoding stopped:%'
            """)
    }
}
