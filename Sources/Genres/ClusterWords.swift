import Analysis
import Foundation
import Similarity

/// What a cluster is called and how its description and each member's explanation read.
struct ClusterWords {
    var name: String
    var description: String
    /// The cluster's side of a member's explanation: "mellow 41 % (library 18 %)".
    var cluster: [String]
    /// A member's own values on the same things.
    var member: (Int) -> [String]
}

/// The embedding basis's cluster words: named from the tags whose mean over the members stands out most
/// from the library's ("Mellow Acoustic"), mood words first; explained by those tags' probabilities, the
/// member's own, and the measured traits that set the cluster apart ("smooth, dark", "mostly minor keys").
/// No σ: percentages a listener reads.
enum TagClusterWords {
    /// A tag names a cluster when its members' mean sits this many of the library's standard deviations above
    /// the library's mean.
    static let namingThreshold = 0.5
    /// Nor a tag its members hold at under this probability, however rare it is elsewhere.
    static let minimumProbability = 0.1

    static func make(space: SonicSpace, clusters: [(rows: [Int], tempo: SonicClusters.TempoRange?)]) -> [ClusterWords] {
        let tagCount = MusicnnTags.names.count
        let library = space.tagMeans
        var taken = Set<String>()
        var out = [ClusterWords?](repeating: nil, count: clusters.count)
        // Larger clusters choose first, so the names do not depend on the order k-means numbered them.
        for i in clusters.indices.sorted(by: { (clusters[$0].rows.count, $1) > (clusters[$1].rows.count, $0) }) {
            let rows = clusters[i].rows
            let mean = (0..<tagCount).map { t in rows.reduce(0.0) { $0 + Double(space.tag($1, t)) } / Double(rows.count) }
            let standing = (0..<tagCount).map { space.tagScore(mean[$0], $0) }
            // By how much more the members have a tag than the library, in probability: a rare tag's tiny
            // spread must not let a few points of it outrank what a listener hears first.
            let excess = (0..<tagCount).map { mean[$0] - library[$0] }
            let ranked = MusicnnTags.distinct((0..<tagCount).sorted { (excess[$0], $1) > (excess[$1], $0) }, count: 4)
            let strong = ranked.prefix { standing[$0] >= namingThreshold && mean[$0] >= minimumProbability }.count
            let traits = measuredTraits(rows, space: space)
            // When no tag sets the cluster apart, its measured traits name it ("Dark Soft"), then what its
            // members most probably are: a tag held at 2 % by members and library alike names nothing.
            let probable = MusicnnTags.distinct((0..<tagCount).sorted { (mean[$0], $1) > (mean[$1], $0) }, count: 4)
            let adjectives = traits.adjectives.map { $0.prefix(1).uppercased() + $0.dropFirst() }
            let candidates: [String]
            var used: Int
            if strong > 0 {
                candidates = []
                used = min(2, strong)
            } else {
                candidates = adjectives + probable.map(MusicnnTags.title)
                used = max(1, min(2, adjectives.count))
            }
            var withTempo = false
            func compose() -> String {
                var name: String
                if strong > 0 {
                    let chosen = Array(ranked.prefix(used))
                    // Mood words first, then the tags in the model's order, which runs from broad to narrow
                    // ("Mellow Acoustic", "Electronic Dance"), so noise cannot swap a name's words between runs.
                    let ordered = chosen.filter { MusicnnTags.moods.contains(MusicnnTags.names[$0]) }.sorted()
                        + chosen.filter { !MusicnnTags.moods.contains(MusicnnTags.names[$0]) }.sorted()
                    name = ordered.map(MusicnnTags.title).joined(separator: " ")
                } else {
                    name = candidates.prefix(used).joined(separator: " ")
                }
                if withTempo, let span = clusters[i].tempo { name += " " + span.text }
                return name
            }
            var name = compose()
            while taken.contains(name) {
                if used < (strong > 0 ? ranked.count : candidates.count) { used += 1 } else if !withTempo, clusters[i].tempo != nil { withTempo = true } else {
                    name += " (\(rows.count) tracks)"
                    break
                }
                name = compose()
            }
            taken.insert(name)
            let chosen = strong > 0 ? Array(ranked.prefix(used)) : Array(probable.prefix(2))
            let cluster = chosen.map {
                String(format: "%@ %.0f %% (library %.0f %%)", MusicnnTags.word($0), mean[$0] * 100, library[$0] * 100)
            }
            var description = strong > 0 ? "cluster in the tagger's embedding, set apart by " + cluster.joined(separator: ", ")
                : "cluster in the tagger's embedding, set apart by no tag; most probably " + cluster.joined(separator: ", ")
            if !traits.words.isEmpty { description += "; measured: " + traits.words.joined(separator: ", ") }
            if let span = clusters[i].tempo { description += "; \(span.text)" }
            out[i] = ClusterWords(name: name, description: description, cluster: cluster + traits.words) { row in
                chosen.map { String(format: "%@ %.0f %%", MusicnnTags.word($0), space.tag(row, $0) * 100) }
            }
        }
        return out.map { $0! }
    }

    /// Up to two traits whose members' mean sits half a standard deviation or more from the library's
    /// ("smooth", "bright"), and the mode when two thirds of the keyed members share it.
    static func measuredTraits(_ rows: [Int], space: SonicSpace) -> (adjectives: [String], words: [String]) {
        let candidates: [SonicTrait] = [.brightness, .percussiveness, .noisiness, .clarity, .loudness]
        let profile = candidates.map { t in (t, rows.reduce(0.0) { $0 + space.trait($1, t) } / Double(rows.count)) }
        let adjectives = profile.filter { abs($0.1) >= SonicClusters.namingThreshold }.sorted { abs($0.1) > abs($1.1) }.prefix(2)
            .map { ($0.1 >= 0 ? $0.0.high : $0.0.low).lowercased() }
        guard let minor = SonicClusters.sharedMode(rows, in: space) else { return (adjectives, adjectives) }
        return (adjectives, adjectives + [minor ? "mostly minor keys" : "mostly major keys"])
    }
}
