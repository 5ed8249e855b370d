import Foundation
import GRDB

extension Migrations {
    static func v23GenresPerLibrary(_ db: Database) throws {
        // Each library root keeps its own composite genres. With one set for the database, the nightly run of
        // a second library (two disks, one default database) replaced the first one's genres, and the first
        // library's `playlists write` then wrote the other's genres, empty, into its folder. A name is unique
        // within its library; a genre built before this keeps the root of its members.
        try db.create(table: "new_composite_genres") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("name", .text).notNull()
            t.column("kind", .text).notNull()
            t.column("confidence", .double).notNull()
            t.column("size", .integer).notNull()
            t.column("description", .text).notNull()
            t.column("built_at", .datetime).notNull()
            t.column("root_id", .integer).references("library_roots", onDelete: .cascade)
            t.uniqueKey(["root_id", "name"])
        }
        try db.execute(sql: """
            INSERT INTO new_composite_genres (id, name, kind, confidence, size, description, built_at, root_id)
            SELECT g.id, g.name, g.kind, g.confidence, g.size, g.description, g.built_at,
                   (SELECT f.root_id FROM genre_memberships m JOIN files f ON f.id = m.file_id WHERE m.genre_id = g.id LIMIT 1)
            FROM composite_genres g
            """)
        try db.drop(table: "composite_genres")
        try db.rename(table: "new_composite_genres", to: "composite_genres")
    }
}
