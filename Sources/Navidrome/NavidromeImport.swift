import Foundation
import Library
import Store

/// Maps Navidrome's tracks to library files. Navidrome's database is opened read-only and never written.
/// Both schemas are read: the newer one (`library` table, `media_file.path` relative to the library's
/// folder) and the older one (absolute `media_file.path`, e.g. `/music/...`). A path that does not resolve
/// is tried again as the tag-built path a Subsonic client would see (AlbumArtist/Album/Title.ext).
///
/// Navidrome since 0.58 may hold several libraries (music, audiobooks, another family member's), each with
/// paths relative to its own folder. Only those whose tracks are this library's files are mapped: the tracks of
/// another would otherwise be matched to files they merely share a relative path or a few words with.
public enum NavidromeImport {
    public struct Report: Sendable {
        /// Tracks of the Navidrome libraries found to be this one.
        public var total = 0
        public var mapped = 0
        public var byStrategy: [Int: Int] = [:]
        public var unresolved: [(id: String, path: String)] = []
        /// Navidrome's other libraries, left out: name (folder) and track count, by name.
        public var otherLibraries: [(library: String, tracks: Int)] = []
        /// One line for a run's summary.
        public var summary: String {
            let share = total > 0 ? 100 * Double(mapped) / Double(total) : 100
            return String(format: "navidrome: %d of %d tracks mapped (%.1f%%), %d artists", mapped, total, share, artists)
        }
        /// Artists credited on the tracks read (by Navidrome's artist ids).
        public var artists = 0
        /// Rows passed over for an id or path longer than any real one (`longestId`, `longestPath`).
        public var oversized = 0
    }

    /// Longest id and path kept: a path no file system takes (PATH_MAX), an id far past Navidrome's 22-character
    /// ones. A hostile database's 10 MB paths were stored as given, 200 MB of database and as much of log.
    static let longestPath = 4096, longestId = 255

    public static func run(navidromeDB: String, database: SpindleDatabase, root: LibraryRoot) throws -> Report {
        // Only a regular file: opening a FIFO or a device would hang or read forever.
        var st = stat()
        guard stat(navidromeDB, &st) == 0 else {
            throw NavidromeError("cannot read Navidrome database \(navidromeDB): \(String(cString: strerror(errno)))")
        }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            throw NavidromeError("Navidrome database \(navidromeDB) is not a regular file")
        }
        guard FileManager.default.isReadableFile(atPath: navidromeDB) else {
            throw NavidromeError("cannot read Navidrome database \(navidromeDB)")
        }
        let tracks: [NavidromeQueries.MediaFile]
        do {
            tracks = try NavidromeQueries.mediaFiles(navidromeDB: navidromeDB)
        } catch let error as NavidromeQueries.NotNavidrome {
            throw NavidromeError(error.description)
        } catch let error as NavidromeQueries.CannotRead {
            throw NavidromeError(error.description)
        }
        let matcher = try ServerTrackMatcher(database: database, root: root)
        var report = Report()
        var rows: [NavidromeTrackRecord] = []
        var credits: [MediaServerArtistRecord] = []
        let ours = try librariesOfThisRoot(tracks, resolver: matcher.resolver)
        var others: [String: Int] = [:]
        var otherIds = Set<String>()
        for track in tracks {
            guard track.path.utf8.count <= longestPath, track.id.utf8.count <= longestId else {
                report.oversized += 1
                continue
            }
            guard ours.contains(track.libraryId) else {
                others[libraryLabel(track), default: 0] += 1
                otherIds.insert(track.id)
                rows.append(NavidromeTrackRecord(navidromeId: track.id, fileId: nil, navidromePath: track.path,
                                                 strategy: nil, tried: "[]"))
                continue
            }
            report.total += 1
            let match = try matcher.match(path: relativePath(track), title: track.title, album: track.album,
                                          artist: track.albumArtist ?? track.artist, suffix: track.suffix)
            if match.fileId != nil {
                report.mapped += 1
                report.byStrategy[match.strategy ?? 0, default: 0] += 1
            } else {
                report.unresolved.append((track.id, track.path))
            }
            rows.append(NavidromeTrackRecord(navidromeId: track.id, fileId: match.fileId, navidromePath: track.path,
                                             strategy: match.strategy, tried: match.triedJSON))
            credits += track.artists.filter { $0.id.utf8.count <= longestId && $0.name.utf8.count <= longestPath }.map {
                MediaServerArtistRecord(server: .navidrome, trackId: track.id, artistId: $0.id, artistName: $0.name)
            }
        }
        report.artists = Set(credits.map(\.artistId)).count
        try database.writer.write { db in
            try NavidromeQueries.replaceMappings(db, rows, others: otherIds)
            try MediaServerQueries.replaceArtists(db, server: .navidrome, credits)
        }
        report.otherLibraries = others.sorted { $0.key < $1.key }.map { (library: $0.key, tracks: $0.value) }
        return report
    }

    /// The track's path relative to its Navidrome library's folder (the newer schema's paths already are).
    static func relativePath(_ track: NavidromeQueries.MediaFile) -> String {
        guard let lib = track.libraryPath, !lib.isEmpty, track.path.hasPrefix(lib.hasSuffix("/") ? lib : lib + "/") else {
            return track.path
        }
        return String(track.path.dropFirst(lib.count)).trimmingCharacters(in: CharacterSet(charactersIn: "/"))
    }

    static func libraryLabel(_ track: NavidromeQueries.MediaFile) -> String {
        let name = track.libraryName.map { "'\($0)'" } ?? "#\(track.libraryId ?? "?")"
        return track.libraryPath.map { "\(name) (\($0))" } ?? name
    }

    /// The Navidrome libraries whose tracks are this library's files: those where the share of tracks found at
    /// their own path (strategies 1–2, no guessing) is at least half the best library's. A library that is
    /// this one scores near 1, another library near 0, and a Navidrome library that this root is only a part
    /// of (Spindle indexing `Rock/` of Navidrome's whole `/music`) its part. With one library, or no track
    /// found at its own path, every track is tried as before: a library Spindle scanned under a folder layout
    /// Navidrome does not share still maps by name and words.
    static func librariesOfThisRoot(_ tracks: [NavidromeQueries.MediaFile], resolver: PathResolver) throws -> Set<String?> {
        let byLibrary = Dictionary(grouping: tracks, by: \.libraryId)
        guard byLibrary.count > 1 else { return Set(byLibrary.keys) }
        var shares: [String?: Double] = [:]
        for (library, members) in byLibrary {
            // An even sample of a large library decides as well as all of it.
            let step = max(1, members.count / sampleSize)
            let sample = stride(from: 0, to: members.count, by: step).map { members[$0] }
            let found = try sample.filter { try resolver.resolveExactly(relativePath($0)).isExact }.count
            shares[library] = Double(found) / Double(sample.count)
        }
        let best = shares.values.max() ?? 0
        guard best > 0 else { return Set(byLibrary.keys) }
        return Set(shares.filter { $0.value >= best / 2 }.keys)
    }

    static let sampleSize = 500
}
