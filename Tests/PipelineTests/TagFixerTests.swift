import Genres
@testable import Pipeline
import Tagging
import TextFormats
import XCTest

/// The built-in fixers on the tags they meet: values pasted from elsewhere, albums with guests, and fixers
/// asked for together.
final class TagFixerTests: XCTestCase {
    func snapshot(_ properties: [String: [String]]) -> TagSnapshot {
        TagSnapshot(properties: properties, codec: "flac", durationSeconds: 1, bitrateKbps: nil, sampleRate: 44100,
                    channels: 2, bitDepth: 16)
    }

    func edits(_ fixers: [TagFixer], _ files: [(String, [String: [String]])]) -> [String: TagEdit] {
        Dictionary(uniqueKeysWithValues: TagFixer.edits(fixers, files: files.map { ($0.0, snapshot($0.1)) }, taxonomy: nil))
    }

    // A tab between words was dropped ("Song\t1" became "Song1"), and a lone CR (classic Mac line ends)
    // joined two lines of lyrics.
    func testWhitespaceKeepsWordsAndLinesApart() {
        let e = edits([.whitespace], [("a.flac", ["TITLE": [" Song\t1 "], "LYRICS": ["One\r\nTwo\rThree\u{7}!\n"]])])
        XCTAssertEqual(e["a.flac"]?.set["TITLE"], ["Song 1"])
        XCTAssertEqual(e["a.flac"]?.set["LYRICS"], ["One\nTwo\nThree!"])
    }

    // A guest on one track made the album "Various Artists"; an ALBUM tag with a trailing space made a track
    // an album of its own, even with `whitespace` asked for in the same run (and after album-artist).
    func testAlbumArtistReadsCleanedValuesAndLeadArtists() {
        let e = edits([.albumArtist, .whitespace], [
            ("Alb/1.flac", ["ALBUM": ["Alb "], "ARTIST": ["Aya feat. Bo"]]),
            ("Alb/2.flac", ["ALBUM": ["Alb"], "ARTIST": ["Aya"]]),
            ("Alb/3.flac", ["ALBUM": ["Alb"], "ARTIST": ["Aya (Ft. Cid)"]]),
        ])
        for path in ["Alb/1.flac", "Alb/2.flac", "Alb/3.flac"] { XCTAssertEqual(e[path]?.set["ALBUMARTIST"], ["Aya"], path) }
        XCTAssertEqual(e["Alb/1.flac"]?.set["ALBUM"], ["Alb"])
    }

    func testAlbumArtistOfACompilationIsVariousArtists() {
        let e = edits([.albumArtist], [
            ("C/1.flac", ["ALBUM": ["Hits"], "ARTIST": ["Simon & Garfunkel"]]),
            ("C/2.flac", ["ALBUM": ["Hits"], "ARTIST": ["Simon"]]),
        ])
        XCTAssertEqual(e["C/1.flac"]?.set["ALBUMARTIST"], ["Various Artists"])
        XCTAssertEqual(e["C/2.flac"]?.set["ALBUMARTIST"], ["Various Artists"])
    }

    // foobar2000 writes the album artist as "ALBUM ARTIST" in Vorbis comments. The fixer did not see it: a DJ
    // mix's tracks became "Various Artists" under ALBUMARTIST beside the "ALBUM ARTIST" naming the DJ, and an
    // album tagged alike on every track was rewritten to add a second field with the same name in it.
    func testAlbumArtistReadsFoobarsAlbumArtistField() {
        let e = edits([.albumArtist], [
            ("Mix/1.flac", ["ALBUM": ["Mix"], "ARTIST": ["Aya"], "ALBUM ARTIST": ["DJ Cid"]]),
            ("Mix/2.flac", ["ALBUM": ["Mix"], "ARTIST": ["Bo"], "ALBUM ARTIST": ["DJ Cid"]]),
            ("Mix/3.flac", ["ALBUM": ["Mix"], "ARTIST": ["Dee"]]),
        ])
        XCTAssertNil(e["Mix/1.flac"])
        XCTAssertNil(e["Mix/2.flac"])
        XCTAssertEqual(e["Mix/3.flac"]?.set["ALBUMARTIST"], ["DJ Cid"])
        XCTAssertEqual(TrackTags(snapshot(["ALBUM ARTIST": ["DJ Cid"]])).albumArtist, "DJ Cid")
        XCTAssertEqual(TrackTags(snapshot(["ALBUM ARTIST": ["DJ Cid"], "ALBUMARTIST": ["Cid"]])).albumArtist, "Cid")
    }

    // FFmpeg's "ALBUM_ARTIST" (in the APE tags of files it converts) names the album artist, which Navidrome does
    // not read there: the fixer writes it as ALBUMARTIST, not "Various Artists" nor nothing.
    func testAlbumArtistUnderFFmpegsNameIsWrittenWhereNavidromeReadsIt() {
        let e = edits([.albumArtist], [
            ("Mix/1.wv", ["ALBUM": ["Mix"], "ARTIST": ["Aya"], "ALBUM_ARTIST": ["DJ Cid"]]),
            ("Mix/2.wv", ["ALBUM": ["Mix"], "ARTIST": ["Bo"], "ALBUM_ARTIST": ["DJ Cid"]]),
        ])
        XCTAssertEqual(e["Mix/1.wv"]?.set["ALBUMARTIST"], ["DJ Cid"])
        XCTAssertEqual(e["Mix/2.wv"]?.set["ALBUMARTIST"], ["DJ Cid"])
    }

    // The aliases group sub-genres with their genre for composite genres; written into files they had
    // collapsed "Heavy Metal" and "Hard Rock" into "Metal" and "Trap" into "Hip-Hop".
    func testGenreAliasesOnlyRespell() {
        let taxonomy = Taxonomy(genres: [
            .init(name: "Hip-Hop", family: "Hip-Hop", aliases: ["hip hop", "trap"]),
            .init(name: "Metal", family: "Rock", aliases: ["heavy metal", "hard rock"]),
            .init(name: "Drum and Bass", family: "Electronic", aliases: ["drum & bass", "dnb"]),
        ])
        let files: [(String, [String: [String]])] = [
            ("1.flac", ["GENRE": ["hip hop"]]), ("2.flac", ["GENRE": ["Heavy Metal", "Hard Rock"]]),
            ("3.flac", ["GENRE": ["Drum & Bass", "DnB"]]), ("4.flac", ["GENRE": ["Trap", "HIPHOP"]]),
        ]
        let e = Dictionary(uniqueKeysWithValues: TagFixer.edits([.genreAliases], files: files.map { ($0.0, snapshot($0.1)) },
                                                              taxonomy: taxonomy))
        XCTAssertEqual(e["1.flac"]?.set["GENRE"], ["Hip-Hop"])
        XCTAssertNil(e["2.flac"])
        XCTAssertEqual(e["3.flac"]?.set["GENRE"], ["Drum and Bass", "DnB"])
        XCTAssertEqual(e["4.flac"]?.set["GENRE"], ["Trap", "Hip-Hop"])
    }

    func testLeadArtist() {
        let credits = [("Drake feat. Rihanna", "Drake"), ("Drake ft Rihanna", "Drake"), ("Daft Punk [feat. Pharrell]", "Daft Punk"),
                       ("Simon & Garfunkel", "Simon & Garfunkel"), ("Softcraft", "Softcraft")]
        for (credit, lead) in credits { XCTAssertEqual(ArtistCredit.lead(credit), lead, credit) }
    }
}
