import Foundation
import Similarity

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

/// Builds composite genres: rule genres from the templates, k-means clusters in the sonic space (`SonicSpace`),
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

    /// `featureNames` are the dimension names of the tracks' feature vectors (`feature_dimensions`); tracks
    /// with a vector of that length are clustered, all tracks go through the rules.
    public func build(_ inputs: [TrackInput], featureNames: [String] = []) -> Output {
        let features = inputs.sorted { $0.path < $1.path }.map { TrackFeatures($0, taxonomy: taxonomy) }
        var candidates = ruleGenres(features)
        var dropped: [(String, String)] = []
        for cluster in clusterGenres(inputs, featureNames: featureNames) {
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

    /// A tempo condition met by a track's `bpm` but not by the other metrical level an untrusted tempo leaves
    /// open (`TrackInput.plausibleTempi`) scales its membership by this: below `TempoResult.trusted`, 30 of the
    /// development set's 37 renders had the right `bpm` (81 %).
    static let doubtfulTempoFactor = 0.8

    /// Whether the rule's conditions hold, with the notes that say so and a factor for how clearly
    /// (a track barely over a threshold belongs a little less).
    private func conditionNotes(_ rule: RuleSet.Rule, _ f: TrackFeatures) -> (notes: [String], factor: Double)? {
        var notes: [String] = []
        var factor = 1.0
        if rule.minBPM != nil || rule.maxBPM != nil {
            guard let bpm = f.input.bpm else { return nil }
            func holds(_ t: Double) -> Bool { t >= (rule.minBPM ?? t) && t <= (rule.maxBPM ?? t) }
            guard holds(bpm) else { return nil }
            if let m = rule.minBPM { factor *= 0.8 + 0.2 * min(1, (bpm - m) / 10) }
            if let m = rule.maxBPM { factor *= 0.8 + 0.2 * min(1, (m - bpm) / 10) }
            // An untrusted tempo whose other reading breaks the condition may not belong.
            if let other = f.input.plausibleTempi.dropFirst().first(where: { !holds($0) }) {
                factor *= Self.doubtfulTempoFactor
                notes.append(String(format: "tempo %.0f BPM from the analysis, uncertain (confidence %.2f): it may be %.0f",
                                    bpm, f.input.bpmConfidence ?? 0, other))
            } else {
                notes.append(String(format: "tempo %.0f BPM from the analysis", bpm))
            }
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

    func clusterGenres(_ inputs: [TrackInput], featureNames: [String]) -> [CompositeGenre] {
        guard let space = SonicSpace(inputs, names: featureNames) else { return [] }
        return SonicClusters(space: space, maxShare: maxClusterShare, minSize: rules.minSize).genres()
    }
}
