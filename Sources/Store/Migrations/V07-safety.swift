import Foundation
import GRDB

extension Migrations {
    static func v7Safety(_ db: Database) throws {
        // The content key a tag write left, so undo can tell the file it wrote from a later edit.
        try db.alter(table: "tag_edits") { t in
            t.add(column: "content_key_after", .text)
        }
        // The fuzzy index holds PathWords' words (Swift's folding: ß as ss, full-width as ASCII), the
        // words a query is made of, instead of the raw path folded by SQLite's tokenizer.
        try db.execute(sql: """
            DROP TRIGGER files_words_insert;
            DROP TRIGGER files_words_update;
            DELETE FROM file_words;
            INSERT INTO file_words(rowid, words) SELECT id, spindle_path_words(path) FROM files;
            CREATE TRIGGER files_words_insert AFTER INSERT ON files BEGIN
                INSERT INTO file_words(rowid, words) VALUES (new.id, spindle_path_words(new.path));
            END;
            CREATE TRIGGER files_words_update AFTER UPDATE OF path ON files BEGIN
                DELETE FROM file_words WHERE rowid = old.id;
                INSERT INTO file_words(rowid, words) VALUES (new.id, spindle_path_words(new.path));
            END;
            """)
    }
}
