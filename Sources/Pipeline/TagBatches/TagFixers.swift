import Foundation
import Genres
import Tagging
import TextFormats

/// Built-in fixers for `tags fix`: each looks at the current tags and proposes edits; the batch machinery
/// shows or applies them.
public enum TagFixer: String, CaseIterable, Sendable {
    case whitespace
    case genreAliases = "genre-aliases"
    case albumArtist = "album-artist"
    case numbers

    public var summary: String {
        switch self {
        case .whitespace: return "trim whitespace and remove control characters from every value (a tab becomes a space, a CR a line feed)"
        case .genreAliases: return "respell genres as the taxonomy's canonical names (hip hop, HipHop → Hip-Hop); a sub-genre (Heavy Metal) keeps its name"
        case .albumArtist: return "fill or unify ALBUMARTIST across an album whose tracks disagree (a guest, \"A feat. B\", does not make it Various Artists)"
        case .numbers: return "normalise TRACKNUMBER/DISCNUMBER (\"03\" → \"3\", \" 3 / 12 \" → \"3/12\")"
        }
    }

    /// Proposed edits for `files` (relative path → current tags).
    static func edits(_ fixers: [TagFixer], files: [(path: String, tags: TagSnapshot)], taxonomy: Taxonomy?) -> [(String, TagEdit)] {
        var edits: [String: TagEdit] = [:]
        func set(_ path: String, _ key: String, _ values: [String]) { edits[path, default: TagEdit()].set[key] = values }
        /// A key's values as the fixers before this one left them: each fixer builds on the others' work (an
        /// album whose ALBUM tags differ only by a trailing space is one album once `whitespace` has run).
        func current(_ f: (path: String, tags: TagSnapshot), _ key: String) -> [String]? {
            edits[f.path]?.set[key] ?? f.tags.properties[key]
        }
        func first(_ f: (path: String, tags: TagSnapshot), _ key: String) -> String? {
            current(f, key)?.first { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        }
        // In one order whatever the order asked: cleaning first, so the others compare clean values.
        for fixer in allCases where fixers.contains(fixer) {
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
                    let genres = current(f, "GENRE") ?? []
                    var canonical: [String] = []
                    for g in genres {
                        let name = taxonomy.respelled(g) ?? g
                        if !canonical.contains(name) { canonical.append(name) }
                    }
                    if !genres.isEmpty && canonical != genres { set(f.path, "GENRE", canonical) }
                }
            case .albumArtist:
                // Albums are the tracks sharing a folder and an ALBUM tag.
                var albums: [String: [(path: String, tags: TagSnapshot)]] = [:]
                for f in files {
                    guard let album = first(f, "ALBUM") else { continue }
                    let folder = (f.path as NSString).deletingLastPathComponent
                    albums[folder + "\u{0}" + album, default: []].append(f)
                }
                // A track's album artist may sit under foobar2000's "ALBUM ARTIST": it counts, and a track whose
                // album artist is already the target there is left as it is. Under FFmpeg's "ALBUM_ARTIST" it names
                // the target, but the track still gets ALBUMARTIST: Navidrome reads no such field.
                func albumArtist(_ f: (path: String, tags: TagSnapshot), keys: [String] = TrackTags.albumArtistKeys) -> [String]? {
                    keys.lazy.filter { first(f, $0) != nil }.compactMap { current(f, $0) }.first
                }
                for key in albums.keys.sorted() {
                    let tracks = albums[key]!
                    let albumArtists = tracks.compactMap { albumArtist($0)?.first }
                    // Guests do not make a compilation: "A feat. B" on an album of A's is A's.
                    let artists = Set(tracks.compactMap { first($0, "ARTIST").map(ArtistCredit.lead) })
                    let target: String
                    if let common = Self.mostCommon(albumArtists) {
                        target = common
                    } else if artists.count == 1 {
                        target = artists.first!
                    } else if artists.count > 1 {
                        target = "Various Artists"
                    } else { continue }
                    for t in tracks where albumArtist(t, keys: TrackTags.servedAlbumArtistKeys) != [target] {
                        set(t.path, "ALBUMARTIST", [target])
                    }
                }
            case .numbers:
                for f in files {
                    for key in ["TRACKNUMBER", "DISCNUMBER"] {
                        guard let values = current(f, key), let v = values.first else { continue }
                        let normalised = Self.number(v)
                        if normalised != v { set(f.path, key, [normalised]) }
                    }
                }
            }
        }
        return edits.keys.sorted().map { ($0, edits[$0]!) }
    }

    /// Trimmed, with control characters gone but the words and lines they separated kept apart: a tab is a
    /// space, a CR LF or a lone CR (classic Mac text) a line feed, anything else dropped.
    static func clean(_ s: String) -> String {
        var out = String.UnicodeScalarView()
        var previous: Unicode.Scalar?
        for c in s.unicodeScalars {
            defer { previous = c }
            switch c {
            case "\t": out.append(" ")
            case "\r": out.append("\n")
            case "\n": if previous != "\r" { out.append(c) }
            default: if c.properties.generalCategory != .control { out.append(c) }
            }
        }
        return String(out).trimmingCharacters(in: .whitespacesAndNewlines)
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
