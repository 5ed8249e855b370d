import Foundation
import GRDB

extension Migrations {
    static func v22FlacWithoutLengthIsWhole(_ db: Database) throws {
        // A FLAC whose STREAMINFO states no length (written to a pipe) was decoded whole but reported as
        // "truncated: decoded N of 9223372036854775807 frames" (libsndfile's "unknown"); its results are whole.
        try db.execute(sql: """
            UPDATE analysis SET damage = NULL
            WHERE codec = 'flac' AND damage LIKE 'truncated: decoded % of 9223372036854775807 frames'
            """)
    }
}
