import Analysis
import Foundation

/// What the sonic space, the mix planner and the genre builder know of one track, straight from `tracks` and
/// `analysis`.
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
    /// The tagger's 50 tag probabilities (`MusicnnTags.names`' order) and its 200-wide embedding, when the
    /// track was tagged.
    public var tags: [Float]?
    public var embedding: [Float]?

    public init(path: String, title: String? = nil, artist: String? = nil, album: String? = nil, genres: [String] = [],
                year: Int? = nil, languageTag: String? = nil, country: String? = nil, bpm: Double? = nil,
                lufs: Double? = nil, loudnessRange: Double? = nil,
                features: [Float]? = nil, key: MusicalKey? = nil, duration: Double? = nil,
                bpmConfidence: Double? = nil, bpmAlternative: Double? = nil, soundingDuration: Double? = nil,
                tags: [Float]? = nil, embedding: [Float]? = nil) {
        self.path = path; self.title = title; self.artist = artist; self.album = album; self.genres = genres
        self.year = year; self.languageTag = languageTag; self.country = country; self.bpm = bpm; self.lufs = lufs
        self.loudnessRange = loudnessRange
        self.features = features; self.key = key; self.duration = duration
        self.bpmConfidence = bpmConfidence; self.bpmAlternative = bpmAlternative
        self.soundingDuration = soundingDuration
        self.tags = tags; self.embedding = embedding
    }
}
