import Foundation
import GRDB

extension Migrations {
    static func v8AnalyzerVersions(_ db: Database) throws {
        // One version per analyzer, so a changed analyzer makes only its own results stale. Rows written
        // under the single version 2 hold the first version of each of the four analyzers.
        try db.alter(table: "analysis") { t in
            t.add(column: "analyzer_versions", .text)
        }
        try db.execute(sql: """
            UPDATE analysis SET analyzer_versions = '{"frames":1,"loudness":1,"silence":1,"tempo":1}'
            WHERE analyzer_version = 2
            """)
    }
}
