import Foundation
import GRDB

extension Migrations {
    static func v11Playlists(_ db: Database) throws {
        // The playlist files Spindle wrote, so it rewrites only its own and removes only its own (and
        // only while their content is still what it wrote).
        try db.create(table: "playlists") { t in
            t.primaryKey("file", .text)           // absolute path of the .m3u8
            t.column("genre", .text).notNull()
            t.column("digest", .text).notNull()   // FNV-1a of the bytes written
            t.column("tracks", .integer).notNull()
            t.column("written_at", .datetime).notNull()
        }
    }
}
