import Foundation
import GRDB

extension Migrations {
    static func v5Genres(_ db: Database) throws {
        try db.create(table: "composite_genres") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("name", .text).notNull().unique()
            t.column("kind", .text).notNull()               // rule | cluster
            t.column("confidence", .double).notNull()
            t.column("size", .integer).notNull()
            t.column("description", .text).notNull()
            t.column("built_at", .datetime).notNull()
        }
        try db.create(table: "genre_memberships") { t in
            t.column("genre_id", .integer).notNull().references("composite_genres", onDelete: .cascade)
            t.column("file_id", .integer).notNull().references("files", onDelete: .cascade)
            t.column("score", .double).notNull()
            t.column("explanation", .text).notNull()
            t.primaryKey(["genre_id", "file_id"])
        }
        try db.create(index: "genre_memberships_on_file", on: "genre_memberships", columns: ["file_id"])
        // A coarse spectral profile per track (mean visualiser level of the low, mid and high bands),
        // kept beside the frames so genre building need not read them.
        try db.alter(table: "analysis") { t in
            t.add(column: "spectrum_low", .double)
            t.add(column: "spectrum_mid", .double)
            t.add(column: "spectrum_high", .double)
        }
    }
}
