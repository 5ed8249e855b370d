import Foundation
import GRDB

extension Migrations {
    static func v20RetempoHalfTime(_ db: Database) throws {
        // Tempo version 12 no longer halves a half-time groove (trap, dubstep: 140 had read 70). Version 11's
        // results differ only where it halved, which gave at most half the range's top (100 BPM by default):
        // those are measured again, the rest are version 12's already.
        try db.execute(sql: """
            UPDATE analysis SET analyzer_versions = json_set(analyzer_versions, '$.tempo', 12)
            WHERE json_valid(analyzer_versions) AND json_extract(analyzer_versions, '$.tempo') = 11
              AND (bpm IS NULL OR bpm > 101)
            """)
        try db.execute(sql: """
            UPDATE analysis SET analyzer_versions = json_remove(analyzer_versions, '$.tempo')
            WHERE json_valid(analyzer_versions) AND json_extract(analyzer_versions, '$.tempo') = 11
            """)
    }
}
