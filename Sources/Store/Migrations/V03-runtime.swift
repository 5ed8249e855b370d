import Foundation
import GRDB

extension Migrations {
    static func v3Runtime(_ db: Database) throws {
        // Worker crashes per file: a file that crashed a worker twice is not retried until it changes.
        try db.alter(table: "analysis") { t in
            t.add(column: "crashes", .integer).notNull().defaults(to: 0)
        }
        // Tags that could not be read keep a row with the reason, so they are not re-read every night.
        try db.alter(table: "tracks") { t in
            t.add(column: "error", .text)
            t.add(column: "crashes", .integer).notNull().defaults(to: 0)
        }
        // Entries the walk could not index (names that are not UTF-8, FIFOs, escaping symlinks, ...).
        try db.create(table: "scan_issues") { t in
            t.column("root_id", .integer).notNull().references("library_roots", onDelete: .cascade)
            t.column("path", .text).notNull()
            t.column("reason", .text).notNull()
            t.column("seen_at", .datetime).notNull()
            t.primaryKey(["root_id", "path"])
        }
    }
}
