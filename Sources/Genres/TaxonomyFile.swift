import TOMLKit
import TextFormats

/// Reads data/genre-taxonomy.toml: `[[genre]]` tables with name, family and aliases.
public enum TaxonomyFile {
    public static func parse(_ text: String) throws -> Taxonomy {
        let table = try TOMLText.table(text)
        var genres: [Taxonomy.Genre] = []
        for item in table["genre"]?.array ?? TOMLArray() {
            guard let t = item.table, let name = t["name"]?.string else {
                throw RuleSet.ParseError(description: "every [[genre]] needs a name")
            }
            let aliases = (t["aliases"]?.array ?? TOMLArray()).compactMap { $0.string }
            genres.append(Taxonomy.Genre(name: name, family: t["family"]?.string ?? name, aliases: aliases))
        }
        // Spellings compare as lookups do (case, spaces, punctuation, accents, "&" for "and"): one claimed by two
        // genres would go to whichever came last, silently.
        var owner: [String: String] = [:]
        for g in genres {
            for spelling in [g.name] + g.aliases {
                let key = Taxonomy.key(spelling)
                if let other = owner[key], other != g.name {
                    throw RuleSet.ParseError(description: "'\(spelling)' names both \(other) and \(g.name): keep it under one genre")
                }
                owner[key] = g.name
            }
        }
        return Taxonomy(genres: genres)
    }
}
