import Foundation

public struct Membership: Sendable, Equatable {
    public var path: String
    public var score: Double
    public var explanation: String

    public init(path: String, score: Double, explanation: String) {
        self.path = path
        self.score = score
        self.explanation = explanation
    }
}

public struct CompositeGenre: Sendable, Equatable {
    public enum Kind: String, Sendable { case rule, cluster }
    public var name: String
    public var kind: Kind
    public var confidence: Double
    public var description: String
    public var members: [Membership]

    public init(name: String, kind: Kind, confidence: Double, description: String, members: [Membership]) {
        self.name = name
        self.kind = kind
        self.confidence = confidence
        self.description = description
        self.members = members
    }
}

/// Builds composite genres: rule genres from the templates, k-means clusters over the tracks' numbers,
/// clusters that duplicate a rule genre merged into it, and what is too small or too unsure dropped.
/// Everything is ordered by path and name, and the clustering seed is fixed: the same library gives the
/// same genres.
public struct GenreBuilder: Sendable {
    public var taxonomy: Taxonomy
    public var rules: RuleSet
    /// Jaccard overlap of members above which a cluster is the same shelf as a rule genre.
    public var mergeOverlap = 0.6
    /// The largest share of the clustered tracks one cluster may hold and still be a genre.
    public var maxClusterShare = 0.6

    public init(taxonomy: Taxonomy, rules: RuleSet) {
        self.taxonomy = taxonomy
        self.rules = rules
    }

    public struct Output: Sendable {
        public var genres: [CompositeGenre]
        /// Candidates left out, with why (too few tracks, too unsure, merged).
        public var dropped: [(name: String, reason: String)]
    }

    public func build(_ inputs: [TrackInput]) -> Output {
        let features = inputs.sorted { $0.path < $1.path }.map { TrackFeatures($0, taxonomy: taxonomy) }
        var candidates = ruleGenres(features)
        var dropped: [(String, String)] = []
        for cluster in clusterGenres(features) {
            let members = Set(cluster.members.map(\.path))
            let twin = candidates.indices.filter { candidates[$0].kind == .rule }.max { a, b in
                jaccard(members, candidates[a]) < jaccard(members, candidates[b])
            }
            if let twin, jaccard(members, candidates[twin]) >= mergeOverlap {
                // Same shelf: the rule's name stays; the cluster's members and confidence join it.
                let known = Set(candidates[twin].members.map(\.path))
                candidates[twin].members += cluster.members.filter { !known.contains($0.path) }
                candidates[twin].members.sort { $0.path < $1.path }
                candidates[twin].confidence = max(candidates[twin].confidence, cluster.confidence)
                candidates[twin].description += "; also found as the cluster “\(cluster.name)”"
                dropped.append((cluster.name, "merged into \(candidates[twin].name)"))
            } else {
                candidates.append(cluster)
            }
        }
        var kept: [CompositeGenre] = []
        for genre in candidates {
            if genre.members.count < rules.minSize {
                dropped.append((genre.name, "only \(genre.members.count) track(s), fewer than \(rules.minSize)"))
            } else if genre.confidence < rules.minConfidence {
                dropped.append((genre.name, String(format: "confidence %.2f under %.2f", genre.confidence, rules.minConfidence)))
            } else {
                kept.append(genre)
            }
        }
        kept.sort { ($0.members.count, $1.name) > ($1.members.count, $0.name) }
        return Output(genres: kept, dropped: dropped.sorted { $0.0 < $1.0 })
    }

    private func jaccard(_ a: Set<String>, _ g: CompositeGenre) -> Double {
        let b = Set(g.members.map(\.path))
        let union = a.union(b).count
        return union == 0 ? 0 : Double(a.intersection(b).count) / Double(union)
    }

    // MARK: rules

    func ruleGenres(_ features: [TrackFeatures]) -> [CompositeGenre] {
        var order: [String] = []
        var members: [String: [String: Membership]] = [:]
        var weights: [String: Double] = [:]
        var templates: [String: String] = [:]
        for rule in rules.rules {
            let placeholders = RuleSet.placeholders(in: rule.template)
            for f in features {
                guard let conditions = conditionNotes(rule, f) else { continue }
                for filling in fillings(placeholders, f) {
                    if let language = filling["language"], rule.excludeLanguages.contains(language.value) { continue }
                    var name = rule.template
                    for (key, attribute) in filling { name = name.replacingOccurrences(of: "{\(key)}", with: attribute.value) }
                    name = name.split(separator: " ").joined(separator: " ")
                    let sources = placeholders.compactMap { filling[$0] }
                    let score = sources.reduce(1.0) { $0 * $1.certainty } * conditions.factor
                    let explanation = (sources.map(\.source) + conditions.notes).joined(separator: "; ")
                    if members[name] == nil { order.append(name); templates[name] = rule.template }
                    if let existing = members[name]?[f.input.path], existing.score >= score { continue }
                    members[name, default: [:]][f.input.path] = Membership(path: f.input.path, score: score, explanation: explanation)
                    weights[name] = max(weights[name] ?? 0, rule.weight)
                }
            }
        }
        return order.map { name in
            let list = members[name]!.values.sorted { $0.path < $1.path }
            let mean = list.reduce(0) { $0 + $1.score } / Double(list.count)
            return CompositeGenre(name: name, kind: .rule, confidence: min(1, mean * (weights[name] ?? 1)),
                                  description: "rule \(templates[name]!)", members: list)
        }
    }

    /// Every way to fill the placeholders from the track's attributes (several genres give several).
    private func fillings(_ placeholders: [String], _ f: TrackFeatures) -> [[String: Attribute]] {
        var result: [[String: Attribute]] = [[:]]
        for key in placeholders {
            let options: [Attribute]
            switch key {
            case "language": options = f.language.map { [$0] } ?? []
            case "country": options = f.country.map { [$0] } ?? []
            case "genre": options = f.genres
            case "family": options = f.families
            case "decade": options = f.decade.map { [$0] } ?? []
            default: options = []
            }
            result = result.flatMap { partial in options.map { partial.merging([key: $0]) { a, _ in a } } }
            if result.isEmpty { return [] }
        }
        return result
    }

    /// Whether the rule's conditions hold, with the notes that say so and a factor for how clearly
    /// (a track barely over a threshold belongs a little less).
    private func conditionNotes(_ rule: RuleSet.Rule, _ f: TrackFeatures) -> (notes: [String], factor: Double)? {
        var notes: [String] = []
        var factor = 1.0
        if rule.minBPM != nil || rule.maxBPM != nil {
            guard let bpm = f.input.bpm else { return nil }
            if let m = rule.minBPM {
                guard bpm >= m else { return nil }
                factor *= 0.8 + 0.2 * min(1, (bpm - m) / 10)
            }
            if let m = rule.maxBPM {
                guard bpm <= m else { return nil }
                factor *= 0.8 + 0.2 * min(1, (m - bpm) / 10)
            }
            notes.append(String(format: "tempo %.0f BPM from the analysis", bpm))
        }
        if rule.minEnergy != nil || rule.maxEnergy != nil {
            guard let e = f.energy else { return nil }
            if let m = rule.minEnergy { guard e >= m else { return nil }; factor *= 0.8 + 0.2 * min(1, (e - m) / 0.1) }
            if let m = rule.maxEnergy { guard e <= m else { return nil }; factor *= 0.8 + 0.2 * min(1, (m - e) / 0.1) }
            notes.append(String(format: "energy %.2f from %.1f LUFS", e, f.input.lufs ?? 0))
        }
        return (notes, factor)
    }

    // MARK: clusters

    func clusterGenres(_ features: [TrackFeatures]) -> [CompositeGenre] {
        let usable = features.filter { $0.input.bpm != nil && $0.energy != nil }
        guard usable.count >= 8 else { return [] }
        // Numbers per track; a missing year or spectrum takes the column's mean (0 once standardised).
        let raw: [[Double?]] = usable.map { f in
            var v: [Double?] = [log2(f.input.bpm!), f.energy!, f.input.loudnessRange, f.input.year.map(Double.init)]
            v += (f.input.spectrum ?? [Double](repeating: .nan, count: 3)).map { $0.isNaN ? nil : $0 }
            return v
        }
        let dims = raw[0].count
        var points = [[Double]](repeating: [Double](repeating: 0, count: dims), count: raw.count)
        for d in 0..<dims {
            let present = raw.compactMap { $0[d] }
            guard present.count >= 2 else { continue }
            let mean = present.reduce(0, +) / Double(present.count)
            let sd = (present.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(present.count)).squareRoot()
            for i in raw.indices { points[i][d] = sd > 1e-9 ? ((raw[i][d] ?? mean) - mean) / sd : 0 }
        }
        // Tempo weighs double: it is what a listener sorts by first.
        for i in points.indices { points[i][0] *= 2 }
        guard let result = KMeans.best(points, ks: 2...max(2, min(8, usable.count / 4))) else { return [] }
        var genres: [CompositeGenre] = []
        var usedNames: [String: Int] = [:]
        for c in 0..<result.k {
            let indices = points.indices.filter { result.assignment[$0] == c }
            // A cluster holding most of the library is no shelf: it says only "not the outliers".
            guard !indices.isEmpty, Double(indices.count) <= maxClusterShare * Double(points.count) else { continue }
            let members = indices.map { usable[$0] }
            var (name, description) = describe(members)
            usedNames[name, default: 0] += 1
            if usedNames[name]! > 1 { name += " \(usedNames[name]!)" }
            let distances = indices.map { KMeans.distance2(points[$0], result.centroids[c]).squareRoot() }
            let typical = max(1e-9, distances.reduce(0, +) / Double(distances.count))
            let memberships = zip(indices, distances).map { i, d -> Membership in
                let f = usable[i]
                let this = String(format: "this track: %.0f BPM, energy %.2f", f.input.bpm!, f.energy!)
                    + (f.decade.map { ", \($0.value)" } ?? "") + (f.families.first.map { ", \($0.value)" } ?? "")
                // 1 up to the typical distance from the centre, then falling: 0.5 at three times it.
                return Membership(path: f.input.path, score: min(1, 2 / (1 + d / typical)),
                                  explanation: "cluster: \(description); \(this)")
            }.sorted { $0.path < $1.path }
            let silhouette = indices.reduce(0) { $0 + result.silhouettes[$1] } / Double(indices.count)
            genres.append(CompositeGenre(name: name, kind: .cluster, confidence: (silhouette + 1) / 2,
                                         description: "cluster: \(description)", members: memberships))
        }
        return genres
    }

    /// A cluster's name and description from what its members share.
    private func describe(_ members: [TrackFeatures]) -> (String, String) {
        let bpms = members.map { $0.input.bpm! }.sorted()
        let energies = members.map { $0.energy! }.sorted()
        let low = bpms[Int(Double(bpms.count - 1) * 0.1)], high = bpms[Int(Double(bpms.count - 1) * 0.9)]
        let medianBPM = bpms[bpms.count / 2], medianEnergy = energies[energies.count / 2]
        let tempoWord = medianBPM >= 115 ? "Upbeat" : (medianBPM < 90 ? "Slow" : "Mid-tempo")
        let energyWord = medianEnergy >= 0.6 ? "loud" : (medianEnergy <= 0.4 ? "mellow" : "moderate")
        func dominant(_ values: [String?]) -> (String, Double)? {
            var counts: [String: Int] = [:]
            for v in values.compactMap({ $0 }) { counts[v, default: 0] += 1 }
            guard let top = counts.sorted(by: { ($0.value, $1.key) > ($1.value, $0.key) }).first else { return nil }
            let share = Double(top.value) / Double(values.count)
            return share >= 0.5 ? (top.key, share) : nil
        }
        let decade = dominant(members.map { $0.decade?.value })
        let family = dominant(members.map { $0.families.first?.value })
        var parts = [String(format: "%.0f–%.0f BPM", low, high), energyWord]
        if let decade { parts.append(decade.0) }
        if let family { parts.append(String(format: "%@ in %.0f%% of members", family.0, family.1 * 100)) }
        var nameParts = [tempoWord]
        if let decade { nameParts.append(decade.0) }
        nameParts.append(family?.0 ?? (energyWord == "loud" ? "Loud Mix" : (energyWord == "mellow" ? "Mellow Mix" : "Mix")))
        return (nameParts.joined(separator: " "), parts.joined(separator: ", "))
    }
}
