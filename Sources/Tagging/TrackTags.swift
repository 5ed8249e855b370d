import Foundation

/// The fields Spindle indexes, taken from TagLib property names with the usual conventions:
/// "3/12" track numbers, "2019-05-01" dates, several GENRE values or one "Rock; Pop" value.
public struct TrackTags: Sendable, Equatable {
    public var title: String?
    public var artist: String?
    public var albumArtist: String?
    public var album: String?
    public var genres: [String] = []
    public var date: String?
    public var year: Int?
    public var trackNumber: Int?
    public var trackTotal: Int?
    public var discNumber: Int?
    public var discTotal: Int?
    public var language: String?
    public var releaseCountry: String?
    public var bpm: Double?
    public var replayGainTrackGain: String?
    public var replayGainTrackPeak: String?
    public var replayGainAlbumGain: String?
    public var replayGainAlbumPeak: String?
    public var musicBrainzTrackId: String?
    public var musicBrainzAlbumId: String?
    public var musicBrainzArtistId: String?
    public var musicBrainzAlbumArtistId: String?
    public var musicBrainzReleaseGroupId: String?

    public init(_ s: TagSnapshot) {
        title = s.first("TITLE")
        artist = s.first("ARTIST")
        albumArtist = Self.albumArtistKeys.lazy.compactMap(s.first).first
        album = s.first("ALBUM")
        genres = Self.splitGenres(s.all("GENRE"))
        // Vorbis comments and APE tags written by some taggers name the date YEAR or RELEASEDATE (Navidrome reads
        // both); the original release stands in when nothing else gives one.
        date = ["DATE", "RELEASEDATE", "YEAR", "ORIGINALDATE", "ORIGINALYEAR"].lazy.compactMap(s.first).first
        year = date.flatMap(Self.year(from:))
        (trackNumber, trackTotal) = Self.numberPair(s.first("TRACKNUMBER"), total: s.first("TRACKTOTAL") ?? s.first("TOTALTRACKS"))
        (discNumber, discTotal) = Self.numberPair(s.first("DISCNUMBER"), total: s.first("DISCTOTAL") ?? s.first("TOTALDISCS"))
        language = s.first("LANGUAGE")
        releaseCountry = s.first("RELEASECOUNTRY")
        bpm = s.first("BPM").flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }.flatMap { $0 > 0 ? $0 : nil }
        replayGainTrackGain = s.first("REPLAYGAIN_TRACK_GAIN")
        replayGainTrackPeak = s.first("REPLAYGAIN_TRACK_PEAK")
        replayGainAlbumGain = s.first("REPLAYGAIN_ALBUM_GAIN")
        replayGainAlbumPeak = s.first("REPLAYGAIN_ALBUM_PEAK")
        musicBrainzTrackId = s.first("MUSICBRAINZ_TRACKID")
        musicBrainzAlbumId = s.first("MUSICBRAINZ_ALBUMID")
        musicBrainzArtistId = s.first("MUSICBRAINZ_ARTISTID")
        musicBrainzAlbumArtistId = s.first("MUSICBRAINZ_ALBUMARTISTID")
        musicBrainzReleaseGroupId = s.first("MUSICBRAINZ_RELEASEGROUPID")
    }

    /// Where taggers put the album artist and Navidrome reads it: TagLib's name, then "ALBUM ARTIST", which
    /// foobar2000 writes in Vorbis comments (TagLib converts it only in APE tags).
    public static let servedAlbumArtistKeys = ["ALBUMARTIST", "ALBUM ARTIST"]

    /// Where Spindle reads the album artist: those, then "ALBUM_ARTIST", FFmpeg's own name, which it writes
    /// unconverted into the APE tags of the WavPack, Monkey's Audio and TTA files it makes (Navidrome reads no such field).
    public static let albumArtistKeys = servedAlbumArtistKeys + ["ALBUM_ARTIST"]

    /// Multi-valued GENRE stays multi-valued; a single value holding separators ("Rock; Pop", "Rock/Pop"
    /// is left alone: "AC/DC"-style names make '/' ambiguous) is split on ';', '|' and NUL.
    static func splitGenres(_ values: [String]) -> [String] {
        var out: [String] = []
        var seen = Set<String>()
        for v in values {
            for part in v.split(whereSeparator: { $0 == ";" || $0 == "|" || $0 == "\u{0}" }) {
                let g = part.trimmingCharacters(in: .whitespacesAndNewlines)
                if !g.isEmpty, seen.insert(g).inserted { out.append(g) }
            }
        }
        return out
    }

    /// The year of a date as taggers write it: "1999-12-31", "1999", "19991231", and also the day-first and
    /// month-first forms ("31.12.1999", "12/31/1999"), a leading space or a note ("1988 (1994 remaster)"):
    /// the first run of exactly four digits, or the first four of eight (YYYYMMDD), from 1000 to 2999.
    static func year(from date: String) -> Int? {
        var runs: [Substring] = []
        var rest = Substring(date)
        func isDigit(_ c: Character) -> Bool { c.isASCII && c.isNumber }
        while let start = rest.firstIndex(where: isDigit) {
            let end = rest[start...].firstIndex { !isDigit($0) } ?? rest.endIndex
            runs.append(rest[start..<end])
            rest = rest[end...]
        }
        for run in runs where run.count == 4 || (run.count == 8 && run.startIndex == runs[0].startIndex) {
            if let y = Int(run.prefix(4)), (1000...2999).contains(y) { return y }
        }
        return nil
    }

    /// "3/12" → (3, 12); "03" → (3, total).
    static func numberPair(_ value: String?, total: String?) -> (Int?, Int?) {
        let totalValue = total.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard let value else { return (nil, totalValue) }
        let parts = value.split(separator: "/", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
        let number = parts.first.flatMap { Int($0) }
        let embeddedTotal = parts.count > 1 ? Int(parts[1]) : nil
        return (number, embeddedTotal ?? totalValue)
    }
}
