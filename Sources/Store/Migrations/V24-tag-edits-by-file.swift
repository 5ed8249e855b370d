import Foundation
import GRDB

extension Migrations {
    static func v24TagEditsByFile(_ db: Database) throws {
        // Undo asks, for each file, which other batches wrote it (newest first: a later batch must be undone
        // before; after an undo, the earlier batches take the file's state): by file and by path, not by a
        // scan of every edit ever journaled for each file of a batch.
        try db.create(index: "tag_edits_on_file", on: "tag_edits", columns: ["file_id"])
        try db.create(index: "tag_edits_on_path", on: "tag_edits", columns: ["path"])
    }
}
