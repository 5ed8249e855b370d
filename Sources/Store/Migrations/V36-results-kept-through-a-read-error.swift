import Foundation
import GRDB

extension Migrations {
    static func v36ResultsKeptThroughAReadError(_ db: Database) throws {
        // A forced run that could not read a file (a read error, a disk away) keeps its results and tags,
        // and had left it so: the next runs took them as current, and status listed the failure until the
        // file changed. Set, the next run reads the file again. A decode that libsndfile stopped at a read
        // error ("decoding stopped: System error : Input/output error.", a WAV, AIFF or Ogg file) was stored
        // as partial results of a whole file: those files are analysed again. (The other decoders' words for
        // it, "truncated" or "libFLAC stopped decoding", are a cut file's too, and stay.)
        try db.execute(sql: """
            ALTER TABLE analysis ADD COLUMN unread_at DATETIME;
            ALTER TABLE tracks ADD COLUMN unread_at DATETIME;
            UPDATE analysis SET analyzer_versions = '{}' WHERE damage LIKE 'decoding stopped:%Input/output error%';
            """)
    }
}
