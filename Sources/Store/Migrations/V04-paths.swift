import Foundation
import GRDB

extension Migrations {
    static func v4Paths(_ db: Database) throws {
        // Words of every indexed path, for the resolver's fuzzy strategy. The unicode61 tokenizer folds
        // case and accents and splits on punctuation, so "Beyoncé/01_Halo.flac" indexes as beyonce 01 halo flac.
        try db.execute(sql: """
            CREATE VIRTUAL TABLE file_words USING fts5(words, tokenize = "unicode61 remove_diacritics 2");
            INSERT INTO file_words(rowid, words) SELECT id, path FROM files;
            CREATE TRIGGER files_words_insert AFTER INSERT ON files BEGIN
                INSERT INTO file_words(rowid, words) VALUES (new.id, new.path);
            END;
            CREATE TRIGGER files_words_update AFTER UPDATE OF path ON files BEGIN
                DELETE FROM file_words WHERE rowid = old.id;
                INSERT INTO file_words(rowid, words) VALUES (new.id, new.path);
            END;
            CREATE TRIGGER files_words_delete AFTER DELETE ON files BEGIN
                DELETE FROM file_words WHERE rowid = old.id;
            END;
            """)
        // Navidrome's track ids mapped to library files (null file_id: unresolved).
        try db.create(table: "navidrome_tracks") { t in
            t.primaryKey("navidrome_id", .text)
            t.column("file_id", .integer).references("files", onDelete: .setNull)
            t.column("navidrome_path", .text).notNull()
            t.column("strategy", .integer)
            t.column("tried", .text)
            t.column("imported_at", .datetime).notNull()
        }
    }
}
