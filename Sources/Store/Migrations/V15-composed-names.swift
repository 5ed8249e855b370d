import Foundation
import GRDB

extension Migrations {
    static func v15ComposedNames(_ db: Database) throws {
        // File names and path words in Unicode's composed form (NFC), so that a Mac's decomposed names
        // (Hangul as jamo) are found by the composed ones players send (`FileRecord.nameKey`, `PathWords`).
        // A path already composed (every ASCII one) has the same name and words either way: only the others
        // are rewritten, so a 100,000-file library of composed names upgrades without rebuilding its index.
        let rows = try Row.fetchAll(db, sql: "SELECT id, path FROM files")
        for row in rows {
            let id: Int64 = row[0], path: String = row[1]
            guard !path.utf8.allSatisfy({ $0 < 0x80 }),
                  !path.utf8.elementsEqual(path.precomposedStringWithCanonicalMapping.utf8) else { continue }
            try db.execute(sql: "UPDATE files SET name = ? WHERE id = ?", arguments: [FileRecord.nameKey(path), id])
            try db.execute(sql: "DELETE FROM file_words WHERE rowid = ?", arguments: [id])
            try db.execute(sql: "INSERT INTO file_words(rowid, words) VALUES (?, spindle_path_words(?))", arguments: [id, path])
        }
    }
}
