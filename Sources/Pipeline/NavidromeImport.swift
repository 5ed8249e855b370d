import Foundation
import GRDB
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

    struct Track {
        var id, path: String
        var libraryPath: String?
        var title, album, albumArtist, artist, suffix: String?
    }

    /// A column's value as text whatever SQLite type it has; a BLOB only when it is valid UTF-8.
    static func text(_ value: DatabaseValue) -> String? {
        switch value.storage {
        case .null: return nil
        case .int64(let i): return String(i)
        case .double(let d): return d.isFinite ? String(d) : nil
        case .string(let s): return s
        case .blob(let data): return String(data: data, encoding: .utf8)
        }
    }

    public static func run(navidromeDB: String, database: SpindleDatabase, root: LibraryRoot) throws -> Report {
        // Only a regular file: opening a FIFO or a device would hang or read forever.
        var st = stat()
        guard stat(navidromeDB, &st) == 0 else {
            throw ConfigurationError("cannot read Navidrome database \(navidromeDB): \(String(cString: strerror(errno)))")
        }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            throw ConfigurationError("Navidrome database \(navidromeDB) is not a regular file")
        }
        guard FileManager.default.isReadableFile(atPath: navidromeDB) else {
            throw ConfigurationError("cannot read Navidrome database \(navidromeDB)")
        }
        var config = Configuration()
        config.readonly = true
        let navidrome = try DatabaseQueue(path: navidromeDB, configuration: config)
        let tracks = try navidrome.read { db -> [Track] in
            guard try db.tableExists("media_file") else {
                throw ConfigurationError("\(navidromeDB) has no media_file table: not a Navidrome database")
            }
            let columns = Set(try db.columns(in: "media_file").map(\.name))
            func column(_ name: String) -> String { columns.contains(name) ? "m.\(name)" : "NULL" }
            let hasLibrary = try db.tableExists("library") && columns.contains("library_id")
            let sql = """
                SELECT m.id, m.path, \(hasLibrary ? "l.path" : "NULL"), \(column("title")), \(column("album")),
                       \(column("album_artist")), \(column("artist")), \(column("suffix"))
                FROM media_file m \(hasLibrary ? "LEFT JOIN library l ON l.id = m.library_id" : "")
                """
            // Any column may hold any type in SQLite (a NULL id, an integer title, a BLOB path): read each as
            // text where it can be, and pass over rows without an id or a path.
            return try Row.fetchAll(db, sql: sql).compactMap { row -> Track? in
                guard let id = text(row[0]), !id.isEmpty, let path = text(row[1]), !path.isEmpty else { return nil }
                return Track(id: id, path: path, libraryPath: text(row[2]), title: text(row[3]), album: text(row[4]),
                             albumArtist: text(row[5]), artist: text(row[6]), suffix: text(row[7]))
            }
        }
        let resolver = try PathResolver(database: database, root: root)
        var report = Report()
        report.total = tracks.count
        var rows: [(Track, Int64?, Int?, [String])] = []
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
                fileId = try database.writer.read { db in
                    try Int64.fetchOne(db, sql: "SELECT f.id FROM files f JOIN library_roots r ON r.id = f.root_id WHERE r.path = ? AND f.path = ?",
                                       arguments: [root.path, resolved])
                }
            }
            if fileId != nil {
                report.mapped += 1
                report.byStrategy[resolution.strategy ?? 0, default: 0] += 1
            } else {
                report.unresolved.append((track.id, track.path))
            }
            rows.append((track, fileId, fileId == nil ? nil : resolution.strategy, tried))
        }
        try database.writer.write { db in
            try db.execute(sql: "DELETE FROM navidrome_tracks")
            let now = Date()
            for (track, fileId, strategy, tried) in rows {
                try db.execute(sql: """
                    INSERT INTO navidrome_tracks (navidrome_id, file_id, navidrome_path, strategy, tried, imported_at)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """, arguments: [track.id, fileId, track.path, strategy,
                                     JSONValue.array(tried.map { .string($0) }).serialized(), now])
            }
        }
        return report
    }
}
