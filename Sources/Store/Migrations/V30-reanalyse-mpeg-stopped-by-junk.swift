import Foundation
import GRDB

extension Migrations {
    static func v30ReanalyseMpegStoppedByJunk(_ db: Database) throws {
        // libmpg123 stopped at junk inside an MP3 stream; FFmpeg now decodes past it. The MPEG audio whose
        // analysis stopped so is analysed again, whole.
        try reanalyseMPEGStoppedByJunk(db)
    }
}
