import Foundation
import GRDB

extension Migrations {
    static func v18RemeterStatedLayouts(_ db: Database) throws {
        // The meter weighed channels by their count alone: a four-channel file as four fronts (a quad file's
        // rears count +1.5 dB in BS.1770), a 2.1 or 3.1 file's LFE as a front, a 4.0 file's back centre as
        // a front. Decoders now report the layout a file states (`SpeakerLayout`), and four channels
        // without one are quad, as in FLAC. Only loudness depends on it, and only with three or more channels.
        try db.execute(sql: """
            UPDATE analysis SET analyzer_versions = json_remove(analyzer_versions, '$.loudness')
            WHERE channels >= 3 AND json_valid(analyzer_versions)
            """)
    }
}
