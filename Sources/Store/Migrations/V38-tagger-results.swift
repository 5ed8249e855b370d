import GRDB

extension Migrations {
    static func v38TaggerResults(_ db: Database) throws {
        // The tagging network's results (issue 63): MusiCNN's 50 tag probabilities and its 200-wide embedding,
        // each a float32 little-endian blob, versioned by the tagger's entry in analyzer_versions.
        try db.alter(table: "analysis") { t in
            t.add(column: "tag_probabilities", .blob)
            t.add(column: "embedding", .blob)
        }
    }
}
