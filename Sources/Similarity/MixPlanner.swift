import Foundation
import TextFormats

/// An instant mix: tracks near the seed, in an order where each transition is smooth. Greedy, like a DJ
/// choosing the next record: from the seed's neighbourhood take the track that is cheapest to go to from
/// the current one, where cost is the timbre distance, a step off the seed's neighbourhood, a tempo that
/// cannot be beat-matched and a key that clashes; never the same artist twice in a row, and never the same
/// recording twice (same artist and title, or so close in sound and length, in the same key, that it is another
/// encoding of it).
public struct MixPlanner: Sendable {
    public struct Step: Sendable, Equatable {
        public var row: Int
        /// Distance to the seed.
        public var distance: Double
        /// How the track follows the previous one ("seed" for the first).
        public var transition: String
    }

    public var space: SonicSpace
    /// How many of the seed's neighbours are considered for a mix of n: `poolFactor × n`.
    public var poolFactor = 4
    /// Cost of a tempo outside ±4 % (also at half or double), and of a clashing key.
    public var tempoPenalty = 0.6
    public var keyPenalty = 0.4
    /// How much staying near the seed counts against following the last track.
    public var seedPull = 0.5
    /// Two tracks as long to the half second (between their silences, when known), in the same key, and
    /// closer than this share of the larger of their typical neighbour distances (`typicalRank`) are one
    /// recording in two encodings. On the development set such pairs (transcodes, padded copies) lie at most
    /// 0.40 of it apart, pairs of other recordings at least 0.64. Measured against the seed's typical distance,
    /// as until now, the two overlapped (0.48 against 0.38) and 14 of 820 mixed tracks repeated a recording.
    /// Without lengths, only an absolute 0.15 counts.
    public var sameRecordingShare = 0.5
    public var sameRecordingUnknownLength = 0.15
    /// A track's typical neighbour distance: to its `typicalRank`-th nearest track, the median of its 50 nearest.
    static let typicalRank = 25

    /// The typical distance from a track's nearest neighbours, nearest first: the median of them, up to the
    /// `typicalRank`-th (the same from 51 tracks up). In a smaller library the `typicalRank`-th nearest is among
    /// a track's farthest (below 27 tracks, the farthest of all), and half of that is near enough for unrelated
    /// tracks of one length and no key (drum loops, noise) to pass for encodings of one recording: a mix of a
    /// 12-track library left out 4 such tracks.
    static func typical(_ near: [Neighbour]) -> Double {
        near.isEmpty ? 0 : near[min(typicalRank, near.count / 2)].distance
    }

    public init(space: SonicSpace) { self.space = space }

    public func plan(seed: Int, count n: Int) -> [Step] {
        guard n > 0 else { return [] }
        let pool = neighbourhood(of: seed, size: max(n * poolFactor, 50))
        let toSeed = Dictionary(uniqueKeysWithValues: pool.map { ($0.row, $0.distance) })
        var remaining = pool.map(\.row)
        var steps = [Step(row: seed, distance: 0, transition: "seed")]
        var current = seed
        while steps.count < n {
            var best: (cost: Double, row: Int)?
            for row in remaining where !sameArtist(current, row) {
                let cost = space.distance(current, row) + seedPull * toSeed[row]! + penalty(current, row)
                if best == nil || cost < best!.cost || (cost == best!.cost && space.tracks[row].path < space.tracks[best!.row].path) {
                    best = (cost, row)
                }
            }
            guard let next = best else { break }
            steps.append(Step(row: next.row, distance: toSeed[next.row]!, transition: transition(current, next.row)))
            remaining.removeAll { $0 == next.row }
            current = next.row
        }
        return steps
    }

    /// The seed's `size` nearest recordings, nearest first: a track that repeats the seed or one already
    /// taken is passed over, and the search widens until `size` are found, the library runs out or 32 × `size`
    /// tracks were looked at (a full sort of a large library is not worth a longer mix). Without
    /// this a library holding each album twice (or an album and a compilation of it) filled the pool with
    /// copies, and a mix of 8 from 2,660 tracks held 3.
    public func neighbourhood(of seed: Int, size: Int) -> [Neighbour] {
        let first = space.nearest(to: seed, count: size)
        // Typical distances are looked up only for pairs as long as each other in one key: few, in a library.
        // The seed's is in the list just fetched (`size` is at least 50, and a shorter list is the whole library).
        var typicals: [Int: Double] = first.isEmpty ? [:] : [seed: Self.typical(first)]
        func typical(_ row: Int) -> Double {
            if let known = typicals[row] { return known }
            let distance = Self.typical(space.nearest(to: row, count: 2 * Self.typicalRank))
            typicals[row] = distance
            return distance
        }
        var pool: [Neighbour] = []
        var searched = size
        var near = first
        var checked = 0
        while true {
            // A wider list starts with the narrower one (ties go to the earlier row), so only its new part is checked.
            for candidate in near[checked...] where !isRepeat(seed, candidate.row, typical: typical)
                && !pool.contains(where: { isRepeat($0.row, candidate.row, typical: typical) }) {
                pool.append(candidate)
                if pool.count == size { return pool }
            }
            checked = near.count
            guard near.count == searched, searched < min(space.count - 1, 32 * size) else { return pool }
            searched = min(2 * searched, space.count - 1, 32 * size)
            near = space.nearest(to: seed, count: searched)
        }
    }

    /// Whether `b` is `a` again: the same artist and title, or another encoding of it (as long, in the same
    /// key, and nearer than `sameRecordingShare` of the larger of their `typical` neighbour distances).
    func isRepeat(_ a: Int, _ b: Int, typical: (Int) -> Double) -> Bool {
        let x = space.tracks[a], y = space.tracks[b]
        if let t = x.title?.lowercased(), !t.isEmpty, t == y.title?.lowercased(), sameArtist(a, b) { return true }
        // Two keys found and different are two recordings, however alike their sound and length: the sonic
        // space compares chroma relative to the key, so a song and another in the same style and another key
        // lie close. Encodings of one recording keep its key (all 39 of the development set's transcodes and
        // padded copies do).
        if let k = x.key, let l = y.key, k != l { return false }
        // Lengths between the silences when both are known: a copy padded or trimmed otherwise (a single and
        // its album track, a gapless rip) is still as long where it sounds.
        let lengths = x.soundingDuration.flatMap { p in y.soundingDuration.map { (p, $0) } }
            ?? x.duration.flatMap { p in y.duration.map { (p, $0) } }
        guard let (p, q) = lengths else { return space.distance(a, b) < sameRecordingUnknownLength }
        guard abs(p - q) <= 0.5 else { return false }
        return space.distance(a, b) < sameRecordingShare * max(typical(a), typical(b))
    }

    /// By lead artist: "A feat. B" after "A" is A twice in a row.
    func sameArtist(_ a: Int, _ b: Int) -> Bool {
        guard let x = space.tracks[a].artist.map({ ArtistCredit.lead($0).lowercased() }),
              let y = space.tracks[b].artist.map({ ArtistCredit.lead($0).lowercased() }), !x.isEmpty else { return false }
        return x == y
    }

    func penalty(_ a: Int, _ b: Int) -> Double {
        var cost = 0.0
        if let ta = space.tracks[a].bpm, let tb = space.tracks[b].bpm, ta > 0, tb > 0 {
            if !TempoRelation(ta, tb).isMatchable { cost += tempoPenalty }
        } else {
            cost += tempoPenalty / 2
        }
        if let ka = space.key(a), let kb = space.key(b) {
            if !KeyRelation(ka, kb).isCompatible { cost += keyPenalty }
        } else {
            cost += keyPenalty / 2
        }
        return cost
    }

    /// "timbre 0.42 away, 124 → 126 BPM (+1.6 %), A minor → C major (relative keys)".
    func transition(_ a: Int, _ b: Int) -> String {
        var parts = [String(format: "%.2f away", space.distance(a, b))]
        if let ta = space.tracks[a].bpm, let tb = space.tracks[b].bpm, ta > 0, tb > 0 {
            let r = TempoRelation(ta, tb)
            let level = r.octave == 0 ? "" : (r.octave > 0 ? ", double time" : ", half time")
            parts.append(String(format: "%.0f → %.0f BPM (%+.1f %%%@)", ta, tb, r.percent, level))
        }
        if let ka = space.key(a), let kb = space.key(b) {
            parts.append("\(ka.name) → \(kb.name) (\(KeyRelation(ka, kb).phrase))")
        }
        return parts.joined(separator: ", ")
    }
}
