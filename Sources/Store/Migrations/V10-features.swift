import Foundation
import GRDB

extension Migrations {
    static func v10Features(_ db: Database) throws {
        // The key, and the feature vector (little-endian float32s) whose dimension names are kept per
        // version of the features analyzer in feature_dimensions.
        try db.alter(table: "analysis") { t in
            t.add(column: "key", .text)
            t.add(column: "key_strength", .double)
            t.add(column: "features", .blob)
        }
        try db.create(table: "feature_dimensions") { t in
            t.column("version", .integer).notNull()
            t.column("position", .integer).notNull()
            t.column("name", .text).notNull()
            t.primaryKey(["version", "position"])
        }
    }
}
