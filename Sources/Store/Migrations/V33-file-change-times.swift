import Foundation
import GRDB

extension Migrations {
    static func v33FileChangeTimes(_ db: Database) throws {
        // A tag edited in place with the modification time set back (Picard's, Kid3's and Mp3tag's "keep
        // timestamps") kept its size and mtime, and the scan kept the old tags. Null until a scan fills it.
        try db.execute(sql: "ALTER TABLE files ADD COLUMN ctime_ns INTEGER")
    }
}
