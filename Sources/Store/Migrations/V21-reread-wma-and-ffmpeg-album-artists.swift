import Foundation
import GRDB

extension Migrations {
    static func v21RereadWmaAndFfmpegAlbumArtists(_ db: Database) throws {
        // A WMA file's key and ReplayGain attributes were not read (TagLib 1.13 maps them to no property), nor
        // FFmpeg's "ALBUM_ARTIST" in APE tags, nor a TTA file's APE tag at all: WMA tracks and those without an
        // album artist (which every TTA track tagged that way is) are read again.
        try db.execute(sql: "UPDATE tracks SET content_key = NULL WHERE codec = 'wma' OR album_artist IS NULL")
    }
}
