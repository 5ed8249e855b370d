import Foundation
import Genres
import Tagging

/// Built-in fixers for `tags fix`: each looks at the current tags and proposes edits; the batch machinery
/// shows or applies them.
public enum TagFixer: String, CaseIterable, Sendable {
    case whitespace
    case genreAliases = "genre-aliases"
    case albumArtist = "album-artist"
    case numbers

    public var summary: String {
        switch self {
        case .whitespace: return "trim whitespace and remove control characters from every value"
        case .genreAliases: return "rename genres to the taxonomy's canonical names (Hip Hop → Hip-Hop)"
        case .albumArtist: return "fill or unify ALBUMARTIST across an album whose tracks disagree"
        case .numbers: return "normalise TRACKNUMBER/DISCNUMBER (\"03\" → \"3\", \" 3 / 12 \" → \"3/12\")"
        }
    }

    /// Proposed edits for `files` (relative path → current tags).
    static func edits(_ fixers: [TagFixer], files: [(path: String, tags: TagSnapshot)], taxonomy: Taxonomy?) -> [(String, TagEdit)] {
        var edits: [String: TagEdit] = [:]
        func set(_ path: String, _ key: String, _ values: [String]) { edits[path, default: TagEdit()].set[key] = values }
        for fixer in fixers {
            switch fixer {
            case .whitespace:
                for f in files {
                    for (key, values) in f.tags.properties {
                        let cleaned = values.map(Self.clean)
                        if cleaned != values { set(f.path, key, cleaned) }
                    }
                }
            case .genreAliases:
                guard let taxonomy else { continue }
                for f in files {
                    let current = edits[f.path]?.set["GENRE"] ?? f.tags.properties["GENRE"] ?? []
                    var canonical: [String] = []
                    for g in current {
                        let name = taxonomy.canonical(g)?.name ?? g
                        if !canonical.contains(name) { canonical.append(name) }
                    }
                    if !current.isEmpty && canonical != current { set(f.path, "GENRE", canonical) }
                }
            case .albumArtist:
                // Albums are the tracks sharing a folder and an ALBUM tag.
                var albums: [String: [(path: String, tags: TagSnapshot)]] = [:]
                for f in files {
                    guard let album = f.tags.first("ALBUM") else { continue }
                    let folder = (f.path as NSString).deletingLastPathComponent
                    albums[folder + "\u{0}" + album, default: []].append(f)
                }
                for key in albums.keys.sorted() {
                    let tracks = albums[key]!
                    let albumArtists = tracks.compactMap { $0.tags.first("ALBUMARTIST") }
                    let artists = Set(tracks.compactMap { $0.tags.first("ARTIST") })
                    let target: String
                    if let common = Self.mostCommon(albumArtists) {
                        target = common
                    } else if artists.count == 1 {
                        target = artists.first!
                    } else if artists.count > 1 {
                        target = "Various Artists"
                    } else { continue }
                    for t in tracks where t.tags.properties["ALBUMARTIST"] != [target] { set(t.path, "ALBUMARTIST", [target]) }
                }
            case .numbers:
                for f in files {
                    for key in ["TRACKNUMBER", "DISCNUMBER"] {
                        guard let values = f.tags.properties[key], let v = values.first else { continue }
                        let normalised = Self.number(v)
                        if normalised != v { set(f.path, key, [normalised]) }
                    }
                }
            }
        }
        return edits.keys.sorted().map { ($0, edits[$0]!) }
    }

    static func clean(_ s: String) -> String {
        String(String.UnicodeScalarView(s.unicodeScalars.filter { !($0.properties.generalCategory == .control && $0 != "\n") }))
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// "03" → "3", " 3 / 12 " → "3/12", "03/012" → "3/12"; anything else unchanged.
    static func number(_ s: String) -> String {
        let parts = s.split(separator: "/", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
        guard let n = parts.first.flatMap({ Int($0) }) else { return s }
        if parts.count == 2 {
            guard let total = Int(parts[1]) else { return s }
            return "\(n)/\(total)"
        }
        return "\(n)"
    }

    static func mostCommon(_ values: [String]) -> String? {
        var counts: [String: Int] = [:]
        for v in values { counts[v, default: 0] += 1 }
        return counts.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.first?.key
    }
}
