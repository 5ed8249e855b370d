import Foundation
import GRDB

extension Migrations {
    static func v26NavidromeTracksByFile(_ db: Database) throws {
        // A file forgotten after going missing sets its Navidrome ids' file to null: by index, not by a scan
        // of every id imported for each file deleted.
        try db.create(index: "navidrome_tracks_on_file", on: "navidrome_tracks", columns: ["file_id"])
    }
}
