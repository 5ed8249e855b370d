import Analysis
import Foundation

/// The library's tracks as points in one space, so that a plain Euclidean distance means "sounds
/// different": clusters, `similar`, `mix`, `path` and the report's map all measure in this one space.
///
/// Its basis is the tagger's embedding when at least half the tracks with a feature vector have one (the
/// `embedding` basis; tracks still without one wait for their analysis, as tracks of another features
/// version do): MusiCNN's 200-wide penultimate layer, centred on the library's mean and scaled to unit
/// length, so that the distance is a cosine one and two unrelated tracks lie about √2 apart, as in the
/// feature basis. On the development set (133 files) it puts a render's nearest other recording among renders
/// of its kind (score, score with drums, tracker) for 64 of 82 where the feature basis does for 61, keeps
/// every transcode's nearest its other encoding (34 of 34), and finds a tracker module's package for 5 of 26
/// (feature basis 6, an MFCC mean/std baseline 8); its clusters' purity is 0.81 where the feature basis's is
/// 0.68. The feature vector still gives the traits that clusters and
/// explanations speak of, and tempo and key still order mixes.
///
/// Without embeddings (no weights installed) the basis is the feature vector (`features`): every
/// dimension plus log₂ tempo, each standardised over the library and weighted by its group.
///
/// The groups and why they weigh what they weigh (each group's share of the expected squared distance
/// between two tracks, whatever its number of dimensions: a dimension's weight is √(share / dimensions)):
/// - **timbre 0.70**: MFCC statistics, spectral centroid / roll-off / flatness, contrast. What instruments
///   and production sound like is what a listener recognises first, and it is the most stable across a track.
/// - **rhythm 0.25**: onset rate, attack, the percussive share (features analyzer version 4: whether a drum
///   kit plays) and tempo. Enough that a ballad and a dance track with the same instruments fall apart, not so
///   much that an octave error in the tempo moves a track across the map. Only a trusted tempo counts
///   (confidence 0.5 or more; below it a tempo is often another metrical level, and the track takes the
///   library's mean): on the tempo corpus, tracks whose nearest is of their own group 119 → 124 of 234 (scores
///   24 → 25 of 31, songs 19 → 22 of 37, tracker modules 16 → 20 of 68, recorded soundtracks 53 → 50 of 90),
///   on the development set tracker modules from their package 5 → 6 of 26, renders of their kind 58 → 61 of
///   82, transcodes 34 of 34. The percussive share tells the devset's renders with drums from those without
///   at an AUC of 0.98; given a group of its own (0.15, from timbre and rhythm), renders whose nearest other
///   recording is of their kind went from 56 to 57 of 82, but the tempo corpus's tracks whose nearest is of
///   their own group fell from 96 to 92 of 203: fitted to one set, so it stays a rhythm dimension.
/// - **tonal 0.05**: the key-relative chroma, key strength and mode. Mode and harmonic colour matter, but
///   the key-relative chroma varies between pieces of one style more than the other groups do: a tie-breaker
///   among tracks that sound alike, not a dimension of its own. At 0.15 (timbre 0.60), of 234 tracks of the
///   tempo corpus whose group (a game's soundtrack, a package of modules, a composer) has another, 109 had
///   their nearest track from their own group, and only 40 of 90 recorded soundtrack excerpts, where 20 MFCC
///   means and spreads alone find 52; at 0.05 (timbre 0.70): 118, of them 48 of the 90, with scores 23 → 25 of
///   31, tracker modules 20 → 19 of 68, songs 19 of 37 either way. On the development set every transcode's
///   nearest track stays another encoding of it (34 of 34), and the renders whose nearest other recording is of
///   their kind (score, score with drums, tracker) go from 56 to 60 of 82; of its 82 mixes of 10, 545 of the
///   738 transitions can be beat-matched (535 before), none repeating a recording either way. Timbre 0.75
///   with no tonal part gives 116 and 62. Those figures are of features analyzer version 4 (13 MFCCs); with
///   version 5's 20 the same grid of nine weightings gives 112–120, this one 119.
public struct SonicSpace: Sendable {
    /// What the distances are measured on.
    public enum Basis: String, Sendable {
        case features, embedding
    }

    /// How help texts describe the space.
    public static var description: String {
        "the tagger's embedding (cosine) where tracks have one, else the feature vector weighted \(Group.weighting)"
    }

    public enum Group: String, Sendable, CaseIterable {
        case timbre, rhythm, tonal

        public var share: Double {
            switch self {
            case .timbre: return 0.70
            case .rhythm: return 0.25
            case .tonal: return 0.05
            }
        }

        /// The shares as help texts give them: "timbre 0.70, rhythm 0.25, tonal 0.05".
        public static var weighting: String {
            allCases.map { String(format: "%@ %.2f", $0.rawValue, $0.share) }.joined(separator: ", ")
        }

        /// The group of a stored dimension name; the names are the features analyzer's (`feature_dimensions`).
        public static func of(_ name: String) -> Group {
            if ["onset_rate", "attack", "percussive_log", SonicSpace.tempoDimension].contains(name) { return .rhythm }
            if name.hasPrefix("chroma") || name == "key_strength" || name == "minor" { return .tonal }
            return .timbre
        }
    }

    /// The dimension appended to the stored vector: tempo on a log scale, so 60→66 is as far as 120→132.
    public static let tempoDimension = "log2_bpm"

    /// The tracks, sorted by path: a row's index is its position here.
    public let tracks: [TrackInput]
    public let basis: Basis
    /// The feature vector's dimension names and log₂ tempo: what `traits` and the feature basis read.
    public let names: [String]
    public let dimensions: Int
    /// Row-major, `tracks.count × dimensions`: the feature basis's standardised and weighted dimensions, or
    /// the embedding basis's unit vectors.
    public let values: [Float]
    /// The feature basis's weight of each of `names` (its group's share spread over the group's dimensions).
    public let weights: [Float]
    /// Row-major, `tracks.count × SonicTrait.all.count`: each trait's standardised value (0 = library mean).
    public let traits: [Float]
    /// Row-major, `tracks.count × MusicnnTags.names.count` tag probabilities in the embedding basis; empty
    /// in the feature basis.
    public let tags: [Float]
    /// Each tag's mean probability over the space's tracks, and its standard deviation (embedding basis).
    public let tagMeans: [Double]
    let tagSpreads: [Double]

    /// The space over the tracks whose vector has `names.count` values; others are left out (no vector yet,
    /// or a vector from another version of the analyzer), and in the embedding basis so are tracks without
    /// an embedding or tags. Nil when fewer than two tracks remain.
    public init?(_ inputs: [TrackInput], names stored: [String]) {
        let vectors = inputs.filter { $0.features?.count == stored.count && !stored.isEmpty }
        let embedded = vectors.filter { $0.embedding?.count == Self.embeddingWidth && $0.tags?.count == MusicnnTags.names.count }
        let basis = Self.basis(vectors: vectors.count, embedded: embedded.count)
        let tracks = (basis == .embedding ? embedded : vectors).sorted { $0.path < $1.path }
        guard tracks.count >= 2 else { return nil }
        let names = stored + [Self.tempoDimension]
        let d = names.count
        var raw = [Double](repeating: 0, count: tracks.count * d)
        var present = [Bool](repeating: true, count: tracks.count * d)
        for (i, t) in tracks.enumerated() {
            for (j, v) in t.features!.enumerated() { raw[i * d + j] = Double(v); present[i * d + j] = v.isFinite }
            // A tempo the analysis is unsure of (under `TempoResult.trusted`) is left out like a missing one: it is
            // most often twice or half the truth, and an octave is the whole tempo axis.
            if let bpm = t.bpm, t.tempoIsTrusted { raw[i * d + d - 1] = log2(bpm) } else { present[i * d + d - 1] = false }
        }
        // In place: at 100,000 tracks a second array of doubles is 46 MB.
        Self.standardise(&raw, present: present, rows: tracks.count, columns: d)
        self.tracks = tracks
        self.basis = basis
        self.names = names
        self.traits = SonicTrait.values(tracks: tracks, names: names, standard: raw)
        let groupCounts = Dictionary(grouping: names, by: Group.of).mapValues(\.count)
        let weights = names.map { Float((Group.of($0).share / Double(groupCounts[Group.of($0)]!)).squareRoot()) }
        self.weights = weights
        switch basis {
        case .features:
            var values = [Float](repeating: 0, count: raw.count)
            for i in 0..<tracks.count { for j in 0..<d { values[i * d + j] = Float(raw[i * d + j]) * weights[j] } }
            self.dimensions = d
            self.values = values
            self.tags = []
            (tagMeans, tagSpreads) = ([], [])
        case .embedding:
            self.dimensions = Self.embeddingWidth
            self.values = Self.centredUnitRows(tracks.map { $0.embedding! }, width: Self.embeddingWidth)
            let tags = tracks.flatMap { $0.tags! }
            let moments = Self.columnMoments(tags.map(Double.init), present: nil, rows: tracks.count, columns: MusicnnTags.names.count)
            self.tags = tags
            (tagMeans, tagSpreads) = (moments.map(\.mean), moments.map(\.sd))
        }
    }

    /// The basis a library of `vectors` tracks with a feature vector, `embedded` of them with an embedding too,
    /// is measured on.
    public static func basis(vectors: Int, embedded: Int) -> Basis {
        embedded >= 2 && embedded * 2 >= vectors ? .embedding : .features
    }

    /// The tagger's embedding width (MusiCNN's penultimate layer).
    public static let embeddingWidth = 200

    /// Rows minus their mean row, each scaled to unit length (a row equal to the mean stays 0).
    static func centredUnitRows(_ rows: [[Float]], width: Int) -> [Float] {
        var mean = [Double](repeating: 0, count: width)
        for row in rows { for j in 0..<width { mean[j] += Double(row[j]) } }
        for j in 0..<width { mean[j] /= Double(rows.count) }
        var out = [Float](repeating: 0, count: rows.count * width)
        for (i, row) in rows.enumerated() {
            var norm = 0.0
            for j in 0..<width { let c = Double(row[j]) - mean[j]; norm += c * c }
            let scale = norm > 1e-18 ? 1 / norm.squareRoot() : 0
            for j in 0..<width { out[i * width + j] = Float((Double(row[j]) - mean[j]) * scale) }
        }
        return out
    }

    public var count: Int { tracks.count }

    /// z-scores per column; a missing value takes the column's mean (0), a constant column is 0.
    static func standardise(_ raw: [Double], present: [Bool], rows: Int, columns: Int) -> [Double] {
        var values = raw
        standardise(&values, present: present, rows: rows, columns: columns)
        return values
    }

    /// The same, over `values` in place.
    static func standardise(_ values: inout [Double], present: [Bool], rows: Int, columns: Int) {
        for (j, m) in columnMoments(values, present: present, rows: rows, columns: columns).enumerated() {
            let usable = m.count >= 2 && m.sd > 1e-9
            for i in 0..<rows {
                let k = i * columns + j
                values[k] = usable && present[k] ? (values[k] - m.mean) / m.sd : 0
            }
        }
    }

    /// Each column's mean and (population) standard deviation over its present values, and how many there are.
    static func columnMoments(_ values: [Double], present: [Bool]?, rows: Int, columns: Int) -> [(mean: Double, sd: Double, count: Int)] {
        (0..<columns).map { j in
            var sum = 0.0, n = 0
            for i in 0..<rows where present?[i * columns + j] ?? true { sum += values[i * columns + j]; n += 1 }
            let mean = n > 0 ? sum / Double(n) : 0
            var squares = 0.0
            for i in 0..<rows where present?[i * columns + j] ?? true { let x = values[i * columns + j] - mean; squares += x * x }
            return (mean, n > 0 ? (squares / Double(n)).squareRoot() : 0, n)
        }
    }

    public func index(of path: String) -> Int? {
        var lo = 0, hi = tracks.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if tracks[mid].path < path { lo = mid + 1 } else { hi = mid }
        }
        return lo < tracks.count && tracks[lo].path == path ? lo : nil
    }

    /// Distance between two rows (0 = identical; two unrelated tracks lie about √2 apart).
    public func distance(_ a: Int, _ b: Int) -> Double { Double(squaredDistance(a, b)).squareRoot() }

    func squaredDistance(_ a: Int, _ b: Int) -> Float { KMeans.distance2(values, a, values, b, dimensions: dimensions) }

    /// A row's share of distance in one group (for "why": similar timbre, similar rhythm); feature basis only.
    func groupDistance(_ a: Int, _ b: Int, _ group: Group) -> Double {
        precondition(basis == .features, "groups are the feature basis's")
        var s: Float = 0
        for j in 0..<dimensions where Group.of(names[j]) == group {
            let t = values[a * dimensions + j] - values[b * dimensions + j]
            s += t * t
        }
        return (Double(s) / group.share).squareRoot()
    }

    public func trait(_ row: Int, _ trait: SonicTrait) -> Double {
        Double(traits[row * SonicTrait.all.count + trait.index])
    }

    /// A track's probability of the tag at `index` of `MusicnnTags.names` (embedding basis).
    public func tag(_ row: Int, _ index: Int) -> Float { tags[row * MusicnnTags.names.count + index] }

    /// How far a probability sits from the library's mean for that tag, in its standard deviations (0 for a
    /// tag every track shares alike).
    public func tagScore(_ probability: Double, _ index: Int) -> Double {
        tagSpreads[index] > 1e-6 ? (probability - tagMeans[index]) / tagSpreads[index] : 0
    }

    public func tagScore(_ row: Int, _ index: Int) -> Double { tagScore(Double(tag(row, index)), index) }

    /// Key of a track, for mixing and "why".
    public func key(_ row: Int) -> MusicalKey? { tracks[row].key }
}
