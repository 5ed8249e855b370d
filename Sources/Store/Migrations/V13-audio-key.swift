import Foundation
import GRDB

extension Migrations {
    static func v13AudioKey(_ db: Database) throws {
        // The audio's identity apart from its tags, so that a file another tagger rewrote keeps its analysis.
        try db.alter(table: "files") { t in t.add(column: "audio_key", .text) }
    }
}
