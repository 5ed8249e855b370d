import Foundation
import Library
import Store

/// Maps Navidrome's tracks to library files. Navidrome's database is opened read-only and never written.
/// Both schemas are read: the newer one (`library` table, `media_file.path` relative to the library's
/// folder) and the older one (absolute `media_file.path`, e.g. `/music/...`). A path that does not resolve
/// is tried again as the tag-built path a Subsonic client would see (AlbumArtist/Album/Title.ext).
public enum NavidromeImport {
    public struct Report: Sendable {
        public var total = 0
        public var mapped = 0
        public var byStrategy: [Int: Int] = [:]
        public var unresolved: [(id: String, path: String)] = []
    }

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
        let resolver = try PathResolver(database: database, root: root)
        var report = Report()
        report.total = tracks.count
        var rows: [NavidromeTrackRecord] = []
        for track in tracks {
            var path = track.path
            if let lib = track.libraryPath, !lib.isEmpty, path.hasPrefix(lib.hasSuffix("/") ? lib : lib + "/") {
                path = String(path.dropFirst(lib.count)).trimmingCharacters(in: CharacterSet(charactersIn: "/"))
            }
            var resolution = try resolver.resolve(path)
            var tried = resolution.tried
            if resolution.resolved == nil, let title = track.title {
                let artist = track.albumArtist ?? track.artist ?? ""
                let fake = [artist, track.album ?? "", title + (track.suffix.map { ".\($0)" } ?? "")]
                    .map { $0.replacingOccurrences(of: "/", with: "_") }.joined(separator: "/")
                let second = try resolver.resolve(fake)
                tried += second.tried
                if second.resolved != nil { resolution = second }
            }
            var fileId: Int64?
            if let resolved = resolution.resolved {
                fileId = try database.writer.read { db in try FileQueries.fileId(db, rootPath: root.path, path: resolved) }
            }
            if fileId != nil {
                report.mapped += 1
                report.byStrategy[resolution.strategy ?? 0, default: 0] += 1
            } else {
                report.unresolved.append((track.id, track.path))
            }
            rows.append(NavidromeTrackRecord(navidromeId: track.id, fileId: fileId, navidromePath: track.path,
                                             strategy: fileId == nil ? nil : resolution.strategy,
                                             tried: jsonArray(tried)))
        }
        try database.writer.write { db in try NavidromeQueries.replaceMappings(db, rows) }
        return report
    }

    /// The paths tried, as the JSON array `navidrome_tracks.tried` holds.
    static func jsonArray(_ strings: [String]) -> String {
        (try? JSONEncoder().encode(strings)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
    }
}
