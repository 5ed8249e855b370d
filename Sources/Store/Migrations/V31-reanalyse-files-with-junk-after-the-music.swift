import Foundation
import GRDB

extension Migrations {
    static func v31ReanalyseFilesWithJunkAfterTheMusic(_ db: Database) throws {
        // Junk after an MP3's last frame or an Ogg file's last page (zero padding, a site's text, a broken
        // tag) made the whole file partial ("decoding stopped", "the Ogg stream's end is missing"), and
        // `tags write-analysis` left it alone; such a file is whole now.
        try reanalyseMPEGStoppedByJunk(db)
        try db.execute(sql: """
            UPDATE analysis SET analyzer_versions = '{}'
            WHERE codec IN ('vorbis', 'opus') AND damage LIKE 'truncated: decoded % frames, and the Ogg stream''s end is missing'
            """)
    }
}
