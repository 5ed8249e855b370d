import Analysis
import Foundation
import Similarity

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
