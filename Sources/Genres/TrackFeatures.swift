import Analysis
import Foundation

/// What the genre builder knows of one track, straight from `tracks` and `analysis`.
public struct TrackInput: Sendable {
    public var path: String
    public var title: String?
    public var artist: String?
    public var album: String?
    public var genres: [String]
    public var year: Int?
    public var languageTag: String?
    public var country: String?
    public var bpm: Double?
    /// The tempo analyzer's `bpm_confidence` and `bpm_alternative` (see `TrackTempo`).
    public var bpmConfidence: Double?
    public var bpmAlternative: Double?
    public var lufs: Double?
    public var loudnessRange: Double?
    /// The features analyzer's vector (names in `feature_dimensions`), its key and the track's length.
    public var features: [Float]?
    public var key: MusicalKey?
    public var duration: Double?
    /// The length between leading and trailing silence: what two encodings of a recording share when one
    /// was padded or trimmed differently.
    public var soundingDuration: Double?

    public init(path: String, title: String? = nil, artist: String? = nil, album: String? = nil, genres: [String] = [],
                year: Int? = nil, languageTag: String? = nil, country: String? = nil, bpm: Double? = nil,
                lufs: Double? = nil, loudnessRange: Double? = nil,
                features: [Float]? = nil, key: MusicalKey? = nil, duration: Double? = nil,
                bpmConfidence: Double? = nil, bpmAlternative: Double? = nil, soundingDuration: Double? = nil) {
        self.path = path; self.title = title; self.artist = artist; self.album = album; self.genres = genres
        self.year = year; self.languageTag = languageTag; self.country = country; self.bpm = bpm; self.lufs = lufs
        self.loudnessRange = loudnessRange
        self.features = features; self.key = key; self.duration = duration
        self.bpmConfidence = bpmConfidence; self.bpmAlternative = bpmAlternative
        self.soundingDuration = soundingDuration
    }
}

/// A fact about a track with where it came from and how sure it is.
public struct Attribute: Sendable, Equatable {
    public var value: String
    public var source: String
    public var certainty: Double
}

/// Derived features: the attributes rules use, each with its reason, and the numbers clustering uses.
public struct TrackFeatures: Sendable {
    public var input: TrackInput
    public var language: Attribute?
    public var country: Attribute?
    public var genres: [Attribute] = []
    public var families: [Attribute] = []
    public var decade: Attribute?
    /// 0..1 from integrated loudness, lowered by a wide loudness range.
    public var energy: Double?

    public init(_ input: TrackInput, taxonomy: Taxonomy) {
        self.input = input
        if let tag = input.languageTag, let name = Language.name(forTag: tag) {
            language = Attribute(value: name, source: "language \(name) from the LANGUAGE tag '\(tag)'", certainty: 1)
        } else {
            let text = [input.title, input.artist, input.album].compactMap { $0 }.joined(separator: " ")
            if let name = Language.fromScript(text) {
                language = Attribute(value: name, source: "language \(name) inferred from the script of the title/artist/album",
                                     certainty: 0.85)
            }
        }
        if let code = input.country, let demonym = Language.demonym(forCountry: code) {
            country = Attribute(value: demonym, source: "country \(demonym) from RELEASECOUNTRY '\(code)'", certainty: 1)
        }
        for raw in input.genres {
            let wholeMatch = taxonomy.canonical(raw)
            let whole = wholeMatch != nil
            for g in wholeMatch.map({ [$0] }) ?? taxonomy.genres(inPartsOf: raw) {
                let exact = whole && Taxonomy.key(raw) == Taxonomy.key(g.name)
                let source = exact ? "genre \(g.name) from GENRE '\(raw)'"
                    : "genre \(g.name) from GENRE '\(raw)' (\(whole ? "an alias" : "a part of it"))"
                if !genres.contains(where: { $0.value == g.name }) {
                    genres.append(Attribute(value: g.name, source: source, certainty: exact ? 1 : 0.95))
                }
                if !families.contains(where: { $0.value == g.family }) {
                    let via = g.family == g.name ? source : "\(source), family \(g.family)"
                    families.append(Attribute(value: g.family, source: via, certainty: exact ? 1 : 0.95))
                }
            }
        }
        if let year = input.year, year >= 1900, year <= 2100 {
            let label = year < 2000 ? "\(year % 100 / 10 * 10)s" : "\(year / 10 * 10)s"
            decade = Attribute(value: label, source: "decade \(label) from the date \(year)", certainty: 1)
        }
        if let lufs = input.lufs {
            let loud = min(1, max(0, (lufs + 30) / 24))
            let dynamics = min(0.3, max(0, ((input.loudnessRange ?? 0) - 4) / 20))
            energy = max(0, loud - dynamics)
        }
    }
}
