import Foundation
import GRDB

extension Migrations {
    static func v9Shards(_ db: Database) throws {
        // Which database this is (merges record where copied runs came from, so merging a shard twice
        // copies nothing twice) and which library a root is: the names at its top, compared between shards
        // whose roots may be mounted at different paths on different machines.
        try db.create(table: "database_info") { t in
            t.primaryKey("key", .text)
            t.column("value", .text).notNull()
        }
        try db.execute(sql: "INSERT INTO database_info (key, value) VALUES ('id', ?)", arguments: [UUID().uuidString])
        try db.alter(table: "library_roots") { t in
            t.add(column: "top_level", .text)      // JSON array of the root's entry names, sorted
            t.add(column: "shard", .text)          // "K/N" when this database holds one shard of the library
        }
        try db.alter(table: "runs") { t in
            t.add(column: "origin", .text)         // "<database id>#<run id>" of a run merged from a shard
        }
    }
}
