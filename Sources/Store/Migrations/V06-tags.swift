import Foundation
import GRDB

extension Migrations {
    static func v6Tags(_ db: Database) throws {
        try db.alter(table: "analysis") { t in
            t.add(column: "loudness_blocks", .blob)   // gating-block histogram, for album loudness
        }
        try db.create(table: "tag_batches") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("created_at", .datetime).notNull()
            t.column("command", .text).notNull()
            t.column("status", .text).notNull()        // applying | applied | partial | undone
            t.column("undone_at", .datetime)
        }
        // One row per file and key: the old values are journaled before the file is written.
        try db.create(table: "tag_edits") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("batch_id", .integer).notNull().indexed().references("tag_batches", onDelete: .cascade)
            t.column("file_id", .integer).references("files", onDelete: .setNull)
            t.column("path", .text).notNull()
            t.column("key", .text).notNull()
            t.column("old_values", .text)              // JSON array; NULL: the key was absent
            t.column("new_values", .text)              // JSON array; NULL: the key is removed
            t.column("status", .text).notNull()        // pending | applied | failed | undone | conflict
            t.column("error", .text)
            t.column("size_after", .integer)
            t.column("mtime_after_ns", .integer)
        }
    }
}
