import Foundation
import GRDB

extension Migrations {
    static func v35RetryFilesThatCouldNotBeReached(_ db: Database) throws {
        // A file that could not be stat'ed or opened when its turn came (gone since the scan, a disk not
        // mounted) kept a current error row and was never read again while unchanged. Such rows go stale,
        // and the next run reads those files again; the messages are the decoder's and the tag reader's.
        try db.execute(sql: """
            UPDATE analysis SET content_key = NULL
            WHERE status = 'error' AND (error LIKE 'cannot stat (%' OR error LIKE 'cannot open for reading (%'
                                        OR error LIKE 'a folder that cannot be read (%');
            UPDATE tracks SET content_key = NULL WHERE error = 'not a readable regular file';
            """)
    }
}
