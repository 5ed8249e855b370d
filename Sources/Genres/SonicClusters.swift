import Foundation
import Similarity

/// Composite genres found by k-means in the sonic space, each named from what sets it apart from the rest
/// of the library: the tagger's tags in the embedding basis ("Mellow Acoustic", "Electronic Dance", see
/// `TagClusterWords`), the traits in the feature basis ("Bright Percussive 125–135 BPM"); each membership
/// explained by the track's own values on them.
struct SonicClusters {
    var space: SonicSpace
    /// The largest share of the tracks one cluster may hold and still be a genre.
    var maxShare: Double
    /// The fewest tracks a genre may have.
    var minSize: Int
    /// A trait names a cluster when its members' mean sits this many standard deviations from the library's.
    static let namingThreshold = 0.5

    func genres() -> [CompositeGenre] {
        let n = space.count
        guard n >= 8 else { return [] }
        guard let result = KMeans.best(space.values, dimensions: space.dimensions, ks: 2...max(2, min(8, n / 4)),
                                       minClusterSize: minSize, maxClusterShare: maxShare) else { return [] }
        let d = space.dimensions
        var clusters: [(rows: [Int], profile: [Double], tempo: TempoRange?, silhouette: Double, centroid: Int)] = []
        for c in 0..<result.k {
            let rows = (0..<n).filter { result.assignment[$0] == c }
            // A cluster holding most of the library is no shelf: it says only "not the outliers".
            guard !rows.isEmpty, Double(rows.count) <= maxShare * Double(n) else { continue }
            let profile = SonicTrait.all.map { t in rows.reduce(0) { $0 + space.trait($1, t) } / Double(rows.count) }
            clusters.append((rows, profile, tempoRange(rows), result.clusterSilhouettes[c], c))
        }
        let words = space.basis == .embedding
            ? TagClusterWords.make(space: space, clusters: clusters.map { ($0.rows, $0.tempo) })
            : traitWords(clusters.map { ($0.rows, $0.profile, $0.tempo) })
        // The nearest centre of another cluster large enough to be a genre, by name: k-means puts a track in the
        // cluster whose centre is nearest over every dimension, so a member can sit on the far side of its
        // cluster's named traits ("Dense" holding a sparse track), and this is what says why it is here rather
        // than there.
        func runnerUp(_ row: Int, besides own: Int) -> (name: String, distance: Double)? {
            clusters.indices.filter { $0 != own && clusters[$0].rows.count >= minSize }.map { other in
                (words[other].name, Double(KMeans.distance2(space.values, row, result.centroids, clusters[other].centroid,
                                                            dimensions: d)).squareRoot())
            }.min { $0.distance < $1.distance }
        }
        return clusters.enumerated().map { index, cluster in
            let naming = words[index]
            let distances = cluster.rows.map { row in
                Double(KMeans.distance2(space.values, row, result.centroids, cluster.centroid, dimensions: d)).squareRoot()
            }
            let typical = max(1e-9, distances.reduce(0, +) / Double(distances.count))
            let members = zip(cluster.rows, distances).map { row, distance -> Membership in
                var this = naming.member(row)
                if let bpm = space.tracks[row].bpm {
                    this.append(String(format: "%.0f BPM", bpm) + (space.tracks[row].tempoIsTrusted ? "" : " (uncertain)"))
                }
                if let key = space.key(row) { this.append(key.name) }
                var explanation = "cluster: " + naming.cluster.joined(separator: ", ") + "; this track: " + this.joined(separator: ", ")
                    + String(format: "; %.2f from the centre (members' mean %.2f)", distance, typical)
                if let next = runnerUp(row, besides: index) {
                    explanation += String(format: ", next nearest %@ at %.2f", next.name, next.distance)
                }
                // 1 up to the typical distance from the centre, then falling: 0.5 at three times it.
                return Membership(path: space.tracks[row].path, score: min(1, 2 / (1 + distance / typical)), explanation: explanation)
            }.sorted { $0.path < $1.path }
            return CompositeGenre(name: naming.name, kind: .cluster, confidence: (cluster.silhouette + 1) / 2,
                                  description: naming.description, members: members)
        }
    }

    /// The feature basis's words: named from traits, each shown with its standard deviations.
    func traitWords(_ clusters: [(rows: [Int], profile: [Double], tempo: TempoRange?)]) -> [ClusterWords] {
        let names = Self.uniqueNames(clusters.map { ($0.profile, $0.tempo, $0.rows.count, SonicClusters.sharedMode($0.rows, in: space)) })
        return zip(clusters, names).map { cluster, naming in
            let described = naming.traits.map { SonicTrait.all[$0].describe(cluster.profile[$0]) }
            var description = "cluster over timbre, rhythm and tonal dimensions: " + described.joined(separator: ", ")
            if let range = cluster.tempo { description += ", \(range.text)" }
            return ClusterWords(name: naming.name, description: description, cluster: described) { row in
                naming.traits.map { t in String(format: "%@ %+.1fσ", SonicTrait.all[t].noun, space.trait(row, SonicTrait.all[t])) }
            }
        }
    }

    /// The mode most of a cluster's keyed members share (two thirds or more), if any: mode may name a
    /// cluster only then, never "Minor" over a cluster of major keys.
    static func sharedMode(_ rows: [Int], in space: SonicSpace) -> Bool? {
        let modes = rows.compactMap { space.key($0)?.minor }
        guard !modes.isEmpty else { return nil }
        let minor = modes.filter { $0 }.count
        if minor * 3 >= modes.count * 2 { return true }
        if (modes.count - minor) * 3 >= modes.count * 2 { return false }
        return nil
    }

    struct TempoRange { var low: Double; var high: Double; var text: String }

    /// The members' tempo span (10th to 90th percentile) when it is narrow enough to name a shelf by; only
    /// trusted tempi count, and they must be at least half the members.
    func tempoRange(_ rows: [Int]) -> TempoRange? {
        let bpms = rows.filter { space.tracks[$0].tempoIsTrusted }.compactMap { space.tracks[$0].bpm }.sorted()
        guard bpms.count >= 3, bpms.count * 2 >= rows.count else { return nil }
        let low = bpms[Int(Double(bpms.count - 1) * 0.1)], high = bpms[Int(Double(bpms.count - 1) * 0.9)]
        guard high / low <= 1.2 else { return nil }
        let l = (low / 5).rounded(.down) * 5, h = max(l + 5, (high / 5).rounded(.up) * 5)
        return TempoRange(low: l, high: h, text: String(format: "%.0f–%.0f BPM", l, h))
    }

    /// Names from the strongest traits, at most two adjectives where two suffice; a name already taken
    /// grows by the next trait, then by the tempo span. Larger clusters choose first, so the names do not
    /// depend on the order k-means numbered the clusters.
    static func uniqueNames(_ clusters: [(profile: [Double], tempo: TempoRange?, size: Int, mode: Bool?)]) -> [(name: String, traits: [Int])] {
        var result = [(name: String, traits: [Int])](repeating: ("", []), count: clusters.count)
        var taken = Set<String>()
        let order = clusters.indices.sorted { a, b in
            (clusters[a].size, clusters[b].profile.map(abs).reduce(0, +)) > (clusters[b].size, clusters[a].profile.map(abs).reduce(0, +))
        }
        for i in order {
            let profile = clusters[i].profile
            // Strongest first; tempo is named by its span when there is one, so its adjective is left out then.
            let ranked = SonicTrait.all.indices
                .filter { !($0 == SonicTrait.tempo.index && clusters[i].tempo != nil) }
                .filter { $0 != SonicTrait.mode.index || clusters[i].mode == (profile[$0] >= 0) }
                .sorted { abs(profile[$0]) > abs(profile[$1]) || (abs(profile[$0]) == abs(profile[$1]) && $0 < $1) }
            // The strong traits are a prefix of `ranked`; a name reads the first `used` of it.
            var used = min(2, max(1, ranked.prefix { abs(profile[$0]) >= namingThreshold }.count))
            func compose(tempo: Bool) -> String {
                let traits = ranked.prefix(used)
                // Mode reads best last ("Soft Sparse Minor"), before the tempo span.
                let words = traits.filter { $0 != SonicTrait.mode.index } + traits.filter { $0 == SonicTrait.mode.index }
                var name = words.map { profile[$0] >= 0 ? SonicTrait.all[$0].high : SonicTrait.all[$0].low }.joined(separator: " ")
                if tempo, let span = clusters[i].tempo { name += " " + span.text }
                return name
            }
            var withTempo = clusters[i].tempo != nil && used < 2
            var name = compose(tempo: withTempo)
            while taken.contains(name) {
                if !withTempo, clusters[i].tempo != nil {
                    withTempo = true
                } else if used < ranked.count {
                    used += 1
                } else {
                    name += " (\(clusters[i].size) tracks)"
                    break
                }
                name = compose(tempo: withTempo)
            }
            taken.insert(name)
            result[i] = (name, Array(ranked.prefix(used)))
        }
        return result
    }
}
