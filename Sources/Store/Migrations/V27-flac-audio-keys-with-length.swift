import Foundation
import GRDB

extension Migrations {
    static func v27FlacAudioKeysWithLength(_ db: Database) throws {
        // A FLAC's audio key now holds its frames' length, so a file cut short keeps no analysis of the whole:
        // the keys of the old form are computed again, 2,000 a scan, as for a library indexed before audio keys.
        try db.execute(sql: "UPDATE files SET audio_key = NULL WHERE audio_key LIKE 'flac:%' OR audio_key LIKE 'oggflac:%'")
    }
}
