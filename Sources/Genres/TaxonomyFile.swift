import TOMLKit

/// Reads data/genre-taxonomy.toml: `[[genre]]` tables with name, family and aliases.
public enum TaxonomyFile {
    public static func parse(_ text: String) throws -> Taxonomy {
        let table = try TOMLTable(string: text)
        var genres: [Taxonomy.Genre] = []
        for item in table["genre"]?.array ?? TOMLArray() {
            guard let t = item.table, let name = t["name"]?.string else {
                throw RuleSet.ParseError(description: "every [[genre]] needs a name")
            }
            let aliases = (t["aliases"]?.array ?? TOMLArray()).compactMap { $0.string }
            genres.append(Taxonomy.Genre(name: name, family: t["family"]?.string ?? name, aliases: aliases))
        }
        return Taxonomy(genres: genres)
    }
}
