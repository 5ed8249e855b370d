import Foundation

/// Canonical genres, their families and aliases (data/genre-taxonomy.toml). Lookups ignore case, spaces and
/// punctuation, so "Hip Hop", "hip-hop" and "HIPHOP" are one genre.
public struct Taxonomy: Sendable {
    public struct Genre: Sendable, Equatable {
        public var name: String
        public var family: String
        public var aliases: [String]

        public init(name: String, family: String, aliases: [String]) {
            self.name = name
            self.family = family
            self.aliases = aliases
        }
    }

    public let genres: [Genre]
    private let index: [String: Int]

    public init(genres: [Genre]) {
        self.genres = genres
        var index: [String: Int] = [:]
        for (i, g) in genres.enumerated() {
            for spelling in [g.name] + g.aliases { index[Self.key(spelling)] = i }
        }
        self.index = index
    }

    /// The canonical genre a tag value names, if the taxonomy knows it.
    public func canonical(_ raw: String) -> Genre? {
        index[Self.key(raw)].map { genres[$0] }
    }

    /// The genres one tag value names: the value as a whole, or else each of its parts. Stores and taggers
    /// put two names in one value: iTunes' own genres are "Hip-Hop/Rap" and "R&B/Soul", Gracenote's
    /// "Alternative & Punk", ID3v1's "Jazz+Funk", Discogs' "Folk, World, & Country", and taggers without
    /// multiple values write "Rock; Pop". Whole, those are no genre. A name that holds an "&" ("Drum & Bass",
    /// "R&B") is found whole, or as a part between the other separators, before it is split at " & ".
    public func genres(in raw: String) -> [Genre] {
        canonical(raw).map { [$0] } ?? genres(inPartsOf: raw)
    }

    /// The genres the parts of `raw` name (`genres(in:)` when the whole names none).
    public func genres(inPartsOf raw: String) -> [Genre] {
        var found: [Genre] = []
        func add(_ g: Genre?) { if let g, !found.contains(g) { found.append(g) } }
        for part in raw.split(whereSeparator: { "/;,|+".contains($0) }).map(String.init) {
            if let g = canonical(part) { add(g); continue }
            for name in part.components(separatedBy: " & ") { add(canonical(name)) }
        }
        return found
    }

    /// The canonical name when `raw` is only another spelling of it (case, spaces, punctuation, accents, "&"
    /// for "and"): what `tags fix genre-aliases` writes. A sub-genre or an abbreviation listed as an alias
    /// ("Heavy Metal" under Metal, "DnB") joins its genre in composite genres but keeps its own name in the files.
    public func respelled(_ raw: String) -> String? {
        guard let genre = canonical(raw), Self.key(genre.name) == Self.key(raw) else { return nil }
        return genre.name
    }

    static func key(_ s: String) -> String {
        s.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
            .replacingOccurrences(of: "&", with: "and")
            .filter { $0.isLetter || $0.isNumber }
    }
}
