import Foundation
import Library
import Store

/// Stage `playlists`: one extended M3U8 per composite genre, for Navidrome (which imports playlists found
/// in the library on every scan, or in its PlaylistsPath) and Jellyfin. Paths are relative to the playlist
/// file. A file is rewritten only when its content changes, always through a temporary and a rename, and
/// Spindle removes or replaces only files it wrote whose bytes are still what it wrote (`playlists` table).
public enum PlaylistsStage {
    public struct Report: Sendable {
        public var folder = ""
        public var written = 0
        public var unchanged = 0
        public var removed = 0
        /// Files left alone, with why (someone else's file, edited since Spindle wrote it).
        public var skipped: [(file: String, reason: String)] = []
        /// Tracks no playlist can list: a line break in the path (`M3U.canList`).
        public var unlisted: [String] = []
        /// The library's composite genres, one playlist each.
        public var genres = 0
    }

    /// The folder a run writes to: the command line's, the config file's `[playlists] dir`, else
    /// "Spindle Playlists" at the top of the library, where Navidrome's scan finds it.
    public static func folder(_ requested: String?, settings: Settings, root: LibraryRoot) -> String {
        let chosen = requested ?? settings.playlistsFolder ?? defaultFolder(root)
        let absolute = chosen.hasPrefix("/") ? chosen : FileManager.default.currentDirectoryPath + "/" + chosen
        return URL(fileURLWithPath: absolute).standardizedFileURL.path
    }

    static func defaultFolder(_ root: LibraryRoot) -> String {
        URL(fileURLWithPath: root.path + "/Spindle Playlists").standardizedFileURL.path
    }

    /// A symlink where the default folder goes is not followed: anyone who may write the top of the library
    /// could have put it there, and every playlist was written where it led. A folder chosen with `DIR` or
    /// `[playlists] dir` may be a symlink; its owner chose it.
    static func refusePlantedLink(_ folder: String, root: LibraryRoot) throws {
        var st = stat()
        guard folder == defaultFolder(root), lstat(folder, &st) == 0, (st.st_mode & S_IFMT) == S_IFLNK else { return }
        throw PipelineError("\(folder) is a symbolic link, not a folder: playlists are not written through it; remove it, "
            + "or give the folder it leads to as `playlists write DIR` or [playlists] dir")
    }

    /// The playlists' folder, made when missing. One that cannot be made (a library mounted read-only, a
    /// path through a file) says why and where else playlists can go.
    static func makeFolder(_ path: String) throws {
        do {
            try Folders.make(path)
        } catch {
            throw PipelineError("cannot create the playlists folder \(path): \(error.reason); give a writable one as "
                + "`playlists write DIR` or as [playlists] dir (Navidrome's PlaylistsPath, say)")
        }
    }

    public static func run(database: SpindleDatabase, root: LibraryRoot, rootId: Int64, folder requested: String) throws -> Report {
        // Relative paths are computed between real locations, so a symlinked folder still points right.
        var folder = URL(fileURLWithPath: requested).resolvingSymlinksInPath().path
        let (genres, known) = try database.writer.read { db in
            (try GenreQueries.stored(db, rootId: rootId), try PlaylistQueries.written(db, in: folder))
        }
        // Nothing to write and nothing of Spindle's to remove: no empty folder in the library for the media
        // server to show (genres not built yet, or a library too small for any).
        if genres.isEmpty && known.isEmpty { return Report(folder: folder) }
        try refusePlantedLink(requested, root: root)
        try makeFolder(requested)
        folder = URL(fileURLWithPath: requested).resolvingSymlinksInPath().path
        let realRoot = URL(fileURLWithPath: root.path).resolvingSymlinksInPath().path
        let library = try SonicLibrary.load(database, rootId: rootId)
        let tracks = Dictionary(uniqueKeysWithValues: library.rows.map { ($0.input.path, $0.input) })
        let ours = Dictionary(uniqueKeysWithValues: known.map { ($0.file, $0) })
        var report = Report(folder: folder, genres: genres.count)
        // Compared without case: on a case-insensitive file system (a Windows or macOS share, exFAT) "Rock" and
        // "ROCK" would be one file, each genre's playlist overwriting the other's.
        var targets = Set<String>(), taken = Set<String>()
        for (genre, members) in genres.sorted(by: { $0.0.name < $1.0.name }) {
            var file = folder + "/" + fileName(genre.name) + ".m3u8"
            var n = 2
            while taken.contains(file.lowercased()) { file = folder + "/" + fileName(genre.name) + " (\(n)).m3u8"; n += 1 }
            taken.insert(file.lowercased())
            targets.insert(file)
            let list = members.compactMap { tracks[$0.path] }
            for t in list where !M3U.canList(t.path) && !report.unlisted.contains(t.path) { report.unlisted.append(t.path) }
            let text = M3U.render(list, path: { relative(from: folder, to: realRoot + "/" + $0.path) }, title: genre.name)
            let digest = PlaylistFile.digest(Data(text.utf8))
            switch PlaylistFile.state(file) {
            case .other(let what):
                report.skipped.append((file, "\(what), not a playlist Spindle wrote"))
                continue
            case .regular(let current):
                if let mine = ours[file], mine.digest == current {
                    if current == digest { report.unchanged += 1; continue }
                } else if current == digest {
                    // Byte-identical to what Spindle would write (a database rebuilt since): adopt it.
                    try database.writer.write { db in
                        try PlaylistQueries.record(db, .init(file: file, genre: genre.name, digest: digest, tracks: list.count))
                    }
                    report.unchanged += 1
                    continue
                } else {
                    report.skipped.append((file, ours[file] == nil ? "a file Spindle did not write has this name"
                                                                   : "edited since Spindle wrote it"))
                    continue
                }
            case .missing:
                break
            }
            try PlaylistFile.write(Data(text.utf8), to: file)
            try database.writer.write { db in
                try PlaylistQueries.record(db, .init(file: file, genre: genre.name, digest: digest, tracks: list.count))
            }
            report.written += 1
        }
        for old in known where !targets.contains(old.file) {
            switch PlaylistFile.state(old.file) {
            case .regular(let current) where current == old.digest:
                guard unlink(old.file) == 0 || errno == ENOENT else {
                    report.skipped.append((old.file, "cannot remove: \(String(cString: strerror(errno)))"))
                    continue
                }
                report.removed += 1
            case .regular:
                report.skipped.append((old.file, "its genre is gone, but it was edited since Spindle wrote it: left in place"))
            case .other(let what):
                report.skipped.append((old.file, "\(what) now: left in place"))
            case .missing:
                break
            }
            try database.writer.write { db in try PlaylistQueries.forget(db, file: old.file) }
        }
        return report
    }

    /// A genre name as a file name: no folder separators, no control characters or bidi overrides (U+202E
    /// shows "Rock‮u3m.exe" as "Rockexe.m3u"), no leading dot, and at most
    /// 200 bytes, cut between characters, so that " (2).m3u8" still fits the 255 bytes of a name. Cut at 120
    /// characters, a long name in CJK or emoji (a taxonomy's own) stayed 360–480 bytes and could not be written.
    static func fileName(_ name: String) -> String {
        var s = String(name.map { $0 == "/" || $0 == "\\" || $0.unicodeScalars.contains(where: TerminalText.isControl) ? "_" : $0 })
        while s.hasPrefix(".") { s.removeFirst() }
        s = s.trimmingCharacters(in: .whitespaces)
        if s.utf8.count > 200 {
            while s.utf8.count > 200 { s.removeLast() }
            s = s.trimmingCharacters(in: .whitespaces)
        }
        return s.isEmpty ? "Genre" : s
    }

    /// `file` as seen from `folder`: "../Artist/Album/01.flac".
    static func relative(from folder: String, to file: String) -> String {
        let a = folder.split(separator: "/"), b = file.split(separator: "/")
        var common = 0
        while common < a.count, common < b.count - 1, a[common] == b[common] { common += 1 }
        return (Array(repeating: "..", count: a.count - common) + b[common...].map(String.init)).joined(separator: "/")
    }
}
