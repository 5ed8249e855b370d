import Foundation
import GRDB

extension Migrations {
    static func v19RereadTagsWithoutYearOrAlbumArtist(_ db: Database) throws {
        // A date under YEAR or RELEASEDATE (Vorbis comments, APE tags) was not read, so those tracks had no
        // year and no decade; nor was foobar2000's "ALBUM ARTIST". Those tracks' tags are read again at the
        // next scan; the others keep theirs.
        try db.execute(sql: "UPDATE tracks SET content_key = NULL WHERE year IS NULL OR album_artist IS NULL")
    }
}
