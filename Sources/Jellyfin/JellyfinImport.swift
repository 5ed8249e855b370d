import Foundation
import Library
import Store

/// Maps Jellyfin's audio items to library files, and stores the artists Jellyfin credits each with. Jellyfin's
/// paths are absolute as its server sees them (`/music/Artist/Album/01 Song.flac` in a container): the resolver
/// strips leading folders until the path names a library file, and a path that does not resolve is tried as the
/// tag-built path. Ids are stored as Jellyfin's plugins send them (32 lowercase hex digits).
public enum JellyfinImport {
    public struct Report: Sendable {
        public var total = 0
        public var mapped = 0
        public var byStrategy: [Int: Int] = [:]
        public var unresolved: [(id: String, path: String)] = []
        /// Items passed over: no path (a stream, a remote item), or an id or path longer than any real one.
        public var passedOver = 0
        public var artists = 0
        /// One line for a run's summary.
        public var summary: String {
            let share = total > 0 ? 100 * Double(mapped) / Double(total) : 100
            return String(format: "jellyfin: %d of %d tracks mapped (%.1f%%), %d artists", mapped, total, share, artists)
        }
    }

    static let longestPath = 4096, longestId = 255

    public static func run(items: [JellyfinClient.Item], database: SpindleDatabase, root: LibraryRoot) throws -> Report {
        let matcher = try ServerTrackMatcher(database: database, root: root)
        var report = Report()
        var rows: [JellyfinTrackRecord] = []
        var credits = Set<MediaServerArtistRecord>()
        for item in items {
            let id = MediaServer.jellyfinForm(item.Id)
            guard let path = item.Path, !path.isEmpty, path.utf8.count <= longestPath, id.utf8.count <= longestId else {
                report.passedOver += 1
                continue
            }
            report.total += 1
            let match = try matcher.match(path: path, title: item.Name, album: item.Album, artist: item.AlbumArtist,
                                          suffix: item.Container)
            if match.fileId != nil {
                report.mapped += 1
                report.byStrategy[match.strategy ?? 0, default: 0] += 1
            } else {
                report.unresolved.append((id, path))
            }
            rows.append(JellyfinTrackRecord(jellyfinId: id, fileId: match.fileId, jellyfinPath: path, strategy: match.strategy,
                                            tried: match.triedJSON))
            for artist in (item.ArtistItems ?? []) + (item.AlbumArtists ?? []) where artist.Id.utf8.count <= longestId {
                credits.insert(MediaServerArtistRecord(server: .jellyfin, trackId: id, artistId: MediaServer.jellyfinForm(artist.Id),
                                                       artistName: artist.Name ?? ""))
            }
        }
        report.artists = Set(credits.map(\.artistId)).count
        try database.writer.write { db in
            try MediaServerQueries.replaceJellyfinTracks(db, rows)
            try MediaServerQueries.replaceArtists(db, server: .jellyfin, Array(credits))
        }
        return report
    }
}
