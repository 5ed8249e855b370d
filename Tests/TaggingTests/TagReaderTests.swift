import Foundation
import TestSupport
@testable import Tagging
import XCTest

final class TagReaderTests: TemporaryFolderTestCase {

    /// Writes a 2 s tone and tags it with ffmpeg (libsndfile writes only a few fixed fields).
    func tagged(_ name: String, codec: [String], tags: [String: String]) throws -> String {
        let source = dir + "/src.wav"
        try Synth.write(Synth.sine(frequency: 440, seconds: 2, amplitude: 0.4), to: source, format: .wav16)
        var args = ["-y", "-loglevel", "error", "-i", source] + codec
        for (k, v) in tags.sorted(by: { $0.key < $1.key }) { args += ["-metadata", "\(k)=\(v)"] }
        let path = dir + "/" + name
        guard Synth.run("ffmpeg", args + [path]) == 0 else {
            throw XCTSkip("ffmpeg (the command) is needed to write tagged test files; .ci/run installs it")
        }
        return path
    }

    func testFlacVorbisComments() throws {
        let path = try tagged("a.flac", codec: ["-c:a", "flac"], tags: [
            "TITLE": "사랑의 노래", "ARTIST": "아이유", "ALBUM": "Palette", "GENRE": "K-Pop;Ballad",
            "DATE": "2017-04-21", "TRACKNUMBER": "3/12", "DISCNUMBER": "1", "LANGUAGE": "kor", "BPM": "128",
            "REPLAYGAIN_TRACK_GAIN": "-6.50 dB", "ALBUMARTIST": "IU", "RELEASECOUNTRY": "KR",
        ])
        let snapshot = try TagReader.read(path: path)
        XCTAssertEqual(snapshot.codec, "flac")
        XCTAssertEqual(try XCTUnwrap(snapshot.durationSeconds), 2, accuracy: 0.01)
        XCTAssertEqual(snapshot.sampleRate, 44100)
        XCTAssertEqual(snapshot.channels, 2)
        XCTAssertEqual(snapshot.bitDepth, 16)
        let t = TrackTags(snapshot)
        XCTAssertEqual(t.title, "사랑의 노래")
        XCTAssertEqual(t.artist, "아이유")
        XCTAssertEqual(t.albumArtist, "IU")
        XCTAssertEqual(t.genres, ["K-Pop", "Ballad"])
        XCTAssertEqual(t.year, 2017)
        XCTAssertEqual(t.trackNumber, 3)
        XCTAssertEqual(t.trackTotal, 12)
        XCTAssertEqual(t.discNumber, 1)
        XCTAssertEqual(t.language, "kor")
        XCTAssertEqual(t.releaseCountry, "KR")
        XCTAssertEqual(t.bpm, 128)
        XCTAssertEqual(t.replayGainTrackGain, "-6.50 dB")
    }

    /// FFmpeg writes its own key names into APE tags ("album_artist"): a WavPack file converted by it had no
    /// album artist, so its album gain was measured apart from its album's other tracks.
    func testFFmpegsAlbumArtistInAPETagsIsRead() throws {
        let path = try tagged("a.wv", codec: ["-c:a", "wavpack"],
                              tags: ["album_artist": "Various Artists", "artist": "Aya", "album": "Mix"])
        let snapshot = try TagReader.read(path: path)
        XCTAssertEqual(snapshot.first("ALBUM_ARTIST"), "Various Artists", "\(snapshot.properties)")
        XCTAssertEqual(TrackTags(snapshot).albumArtist, "Various Artists")
    }

    /// TagLib 1.13 has no DSF reader: the ID3v2 chunk at the end of the file is read through FFmpeg and its
    /// frames come out under TagLib's property names. Before, a DSF file had no tags at all (and was not
    /// even indexed).
    func testDSFTagsComeFromItsID3ChunkUnderTagLibNames() throws {
        let tone = Synth.dsdSine(frequency: 1000, seconds: 0.5, amplitude: 0.25)
        let path = dir + "/a.dsf"
        try Synth.writeDSF([tone, tone], to: path, tags: [
            "TIT2": "Hunter", "TPE1": "Björk", "TPE2": "Björk", "TALB": "Homogenic", "TRCK": "1/10", "TPOS": "1",
            "TCON": "Electronic", "TDRC": "1997", "TBPM": "120", "TKEY": "Am",
            "TXXX:REPLAYGAIN_TRACK_GAIN": "-5.41 dB",
        ])
        let snapshot = try TagReader.read(path: path)
        XCTAssertTrue(snapshot.codec.hasPrefix("dsd"), snapshot.codec)
        XCTAssertEqual(snapshot.channels, 2)
        XCTAssertEqual(try XCTUnwrap(snapshot.durationSeconds), 0.5, accuracy: 0.02, "within one 4096-byte block")
        XCTAssertEqual(snapshot.first("INITIALKEY"), "Am")
        let t = TrackTags(snapshot)
        XCTAssertEqual(Self.core(t), ["title": "Hunter", "artist": "Björk", "album artist": "Björk", "album": "Homogenic",
                                      "track": "1", "genres": "Electronic", "year": "1997"])
        XCTAssertEqual(t.trackTotal, 10)
        XCTAssertEqual(t.discNumber, 1)
        XCTAssertEqual(t.bpm, 120)
        XCTAssertEqual(t.replayGainTrackGain, "-5.41 dB")
    }

    /// The fields every container test checks, as one comparable value.
    static func core(_ t: TrackTags) -> [String: String] {
        ["title": t.title ?? "", "artist": t.artist ?? "", "album artist": t.albumArtist ?? "", "album": t.album ?? "",
         "track": t.trackNumber.map(String.init) ?? "", "genres": t.genres.joined(separator: ";"),
         "year": t.year.map(String.init) ?? ""]
    }

    /// Matroska audio: TagLib 1.13 has no reader either; FFmpeg's tags under TagLib's names.
    func testMatroskaTagsComeThroughFFmpeg() throws {
        let path = try tagged("a.mka", codec: ["-c:a", "libopus"], tags: [
            "title": "Glósóli", "artist": "Sigur Rós", "album_artist": "Sigur Rós", "album": "Takk", "track": "2",
            "genre": "Post-rock", "date": "2005",
        ])
        let snapshot = try TagReader.read(path: path)
        XCTAssertNil(snapshot.properties["DURATION"], "the muxer's statistics are no tags")
        XCTAssertEqual(Self.core(TrackTags(snapshot)), ["title": "Glósóli", "artist": "Sigur Rós", "album artist": "Sigur Rós",
                                                         "album": "Takk", "track": "2", "genres": "Post-rock", "year": "2005"])
    }

    func testMP3AndM4ACodecsAndFields() throws {
        let mp3 = try tagged("a.mp3", codec: ["-c:a", "libmp3lame", "-q:a", "4"],
                             tags: ["title": "Песня", "artist": "Кино", "genre": "Rock", "date": "1988", "track": "7"])
        let m = try TagReader.read(path: mp3)
        XCTAssertEqual(m.codec, "mp3")
        let mt = TrackTags(m)
        XCTAssertEqual(mt.title, "Песня")
        XCTAssertEqual(mt.genres, ["Rock"])
        XCTAssertEqual(mt.year, 1988)
        XCTAssertEqual(mt.trackNumber, 7)
        let m4a = try tagged("a.m4a", codec: ["-c:a", "aac", "-b:a", "96k"],
                             tags: ["title": "夜に駆ける", "artist": "YOASOBI", "genre": "J-Pop", "date": "2019"])
        let a = try TagReader.read(path: m4a)
        XCTAssertEqual(a.codec, "aac")
        XCTAssertEqual(TrackTags(a).title, "夜に駆ける")
        XCTAssertEqual(TrackTags(a).year, 2019)
    }

    // MPEG-1 Layer II (DAB and broadcast recordings) was reported as "mp3": TagLib's MPEG::File holds every layer.
    func testMP2IsNamedByItsLayer() throws {
        // FFmpeg's MP2 muxer writes no tags; the codec comes from the frames.
        let mp2 = try tagged("a.mp2", codec: ["-c:a", "mp2", "-b:a", "192k"], tags: [:])
        XCTAssertEqual(try TagReader.read(path: mp2).codec, "mp2")
    }

    // ID3v2's genre refinements: "(RX)" is Remix and "(CR)" Cover; TagLib 1.13 gave the bare codes.
    func testID3GenreRefinementsAreNamed() throws {
        let mp3 = try tagged("rx.mp3", codec: ["-c:a", "libmp3lame", "-id3v2_version", "3"], tags: ["genre": "(RX)(CR)"])
        XCTAssertEqual(TrackTags(try TagReader.read(path: mp3)).genres, ["Remix", "Cover"])
        let v24 = try tagged("rx24.mp3", codec: ["-c:a", "libmp3lame", "-id3v2_version", "4"], tags: ["genre": "RX"])
        XCTAssertEqual(TrackTags(try TagReader.read(path: v24)).genres, ["Remix"])
    }

    func testOggWrittenByLibsndfile() throws {
        let path = dir + "/x.ogg"
        try Synth.write(Synth.sine(frequency: 440, seconds: 1, amplitude: 0.4), to: path, format: .oggVorbis)
        let s = try TagReader.read(path: path)
        XCTAssertEqual(s.codec, "vorbis")
        XCTAssertTrue(TrackTags(s).genres.isEmpty)
    }

    func testUnreadableInputsFailWithAReason() throws {
        FileManager.default.createFile(atPath: dir + "/empty.flac", contents: Data())
        XCTAssertThrowsError(try TagReader.read(path: dir + "/empty.flac"))
        FileManager.default.createFile(atPath: dir + "/junk.mp3", contents: Data(repeating: 0x41, count: 5000))
        XCTAssertThrowsError(try TagReader.read(path: dir + "/junk.mp3")) { error in
            XCTAssertFalse((error as! TagError).reason.isEmpty)
        }
        XCTAssertThrowsError(try TagReader.read(path: dir))
    }

    func testNumberAndGenreConventions() {
        XCTAssertEqual(TrackTags.numberPair("03", total: nil).0, 3)
        XCTAssertEqual(TrackTags.numberPair("4/10", total: "12").1, 10)
        XCTAssertEqual(TrackTags.numberPair("4", total: "12").1, 12)
        XCTAssertEqual(TrackTags.splitGenres(["Rock; Pop", "Pop", " Jazz "]), ["Rock", "Pop", "Jazz"])
        XCTAssertEqual(TrackTags.splitGenres(["AC/DC Tribute"]), ["AC/DC Tribute"])
        XCTAssertEqual(TrackTags.year(from: "1999-12-31"), 1999)
        XCTAssertNil(TrackTags.year(from: "n/a"))
        // Dates as other taggers and locales write them had no year (and so no decade for composite genres).
        let dates = [("31.12.1999", 1999), ("12/31/1999", 1999), (" 2015", 2015), ("19991231", 1999), ("1988 (1994 remaster)", 1988),
                     ("2015-03-01T00:00:00Z", 2015), ("[2003]", 2003)]
        for (date, year) in dates { XCTAssertEqual(TrackTags.year(from: date), year, date) }
        XCTAssertNil(TrackTags.year(from: "12345"))
        XCTAssertNil(TrackTags.year(from: "0000"))
        // A Vorbis comment's YEAR or RELEASEDATE is the date when DATE is absent (it had no year at all); DATE wins.
        func year(_ properties: [String: [String]]) -> Int? {
            TrackTags(TagSnapshot(properties: properties, codec: "vorbis", durationSeconds: 1, bitrateKbps: nil, sampleRate: 44100,
                                  channels: 2, bitDepth: nil)).year
        }
        XCTAssertEqual(year(["YEAR": ["1997"]]), 1997)
        XCTAssertEqual(year(["RELEASEDATE": ["2001-02-03"]]), 2001)
        XCTAssertEqual(year(["ORIGINALYEAR": ["1971"]]), 1971)
        XCTAssertEqual(year(["DATE": ["2011"], "YEAR": ["1997"], "ORIGINALDATE": ["1971"]]), 2011)
    }
}
