import Foundation
import GRDB
import Store

/// How one input path was resolved: the file (relative to the root), the strategy that found it (1–4), and
/// every candidate path or query tried on the way — what the companion API returned on a 404.
public struct Resolution: Sendable, Equatable {
    public var input: String
    public var resolved: String?
    public var strategy: Int?
    public var tried: [String] = []
    /// Files that matched equally well when the answer would have been a guess.
    public var ambiguous: [String] = []
    /// Why the input was refused outright (`..`, a symlink out of the root).
    public var refused: String?

    /// Found by the path itself or with leading components stripped (strategies 1–2): the only answers a
    /// write may act on. A file found by name or words is a guess good enough to read, never to write.
    public var isExact: Bool { resolved != nil && (strategy == 1 || strategy == 2) }

    /// How a guess was found, for messages: strategy 3 or 4.
    public var guessedBy: String { strategy == 3 ? "file name lookup" : "fuzzy word match" }

    /// Why the input resolved to nothing, for messages (nil when it resolved): refused, ambiguous, or
    /// not found with every candidate tried.
    public var failure: String? {
        guard resolved == nil else { return nil }
        if let refused { return "refused: \(refused)" }
        if !ambiguous.isEmpty { return "ambiguous between \(ambiguous.joined(separator: ", "))" }
        // Nothing to try: the input was empty, or the library root itself (".", "/", the root's own path).
        if tried.isEmpty { return "not found: the path names no file, only the library root or nothing" }
        return "not found (tried \(tried.joined(separator: "; ")))"
    }

    /// Why a write refuses this resolution, or nil when it may write.
    public var writeRefusal: String? {
        if let refused { return "refused: \(refused)" }
        guard let resolved else {
            return ambiguous.isEmpty ? "no such file in the library" : "ambiguous: \(ambiguous.joined(separator: ", "))"
        }
        guard isExact else {
            return "no file at this path (the closest, \(resolved), was found by \(guessedBy); writes need the file's own path)"
        }
        return nil
    }
}

/// Resolves the paths players and servers hand over (Navidrome's relative paths, Subsonic's tag-built fake
/// paths, container paths like `/music/...`) to files of the library, in order:
/// 1. direct join of the root and the path;
/// 2. leading components stripped one at a time;
/// 3. the file name looked up in the index, several matches decided by their folders;
/// 4. fuzzy word overlap (≥ 50 % of the query's words) over the index's FTS5 table.
/// Nothing outside the root ever resolves: `..` is refused, and a candidate that is (or passes through) a
/// symlink leading out of the root is refused whichever strategy found it.
public final class PathResolver: Sendable {
    public let database: SpindleDatabase
    public let root: LibraryRoot
    public let rootId: Int64

    public init(database: SpindleDatabase, root: LibraryRoot) throws {
        self.database = database
        self.root = root
        guard let id = try database.writer.read({ db in try FileQueries.rootId(db, path: root.path) }) else {
            throw LibraryError.rootUnavailable(path: root.path, reason: "not scanned yet: run `spindle scan` first")
        }
        rootId = id
    }

    /// Longer inputs are refused before any work: no real path is this long, and each strategy's cost grows
    /// with the number of components.
    public static let maxInputBytes = 4096
    public static let maxComponents = 64

    public func resolve(_ input: String) throws -> Resolution { try resolve(input, guessing: true) }

    /// Strategies 1–2 only: the file at this path (or with leading components stripped), never a guess by
    /// name or words.
    public func resolveExactly(_ input: String) throws -> Resolution { try resolve(input, guessing: false) }

    private func resolve(_ input: String, guessing: Bool) throws -> Resolution {
        var r = Resolution(input: input)
        guard let components = components(of: input, into: &r) else { return r }

        // The index's files of the asked name, read once: strategies 1–2 look among them for the path in another
        // Unicode form, strategy 3 picks among them.
        let name = FileRecord.nameKey(components.last!)
        var named: [String]?
        func filesNamed() throws -> [String] {
            if let named { return named }
            let found = try database.writer.read { db in try FileQueries.presentPaths(db, rootId: rootId, named: name) }
            named = found
            return found
        }

        // 1 and 2: the path as given, then without its leading components.
        for drop in 0..<components.count {
            let relative = components[drop...].joined(separator: "/")
            r.tried.append(relative)
            switch check(relative) {
            case .file:
                r.resolved = relative
                r.strategy = drop == 0 ? 1 : 2
                return r
            case .escapes:
                r.refused = "\(relative) is a symlink that leads outside the library root"
                return r
            case .absent:
                // The same path in another Unicode form (a Mac's decomposed names, asked for composed): the
                // file's own path all the same, so found by strategy 1 or 2. String equality is canonical.
                guard relative.unicodeScalars.contains(where: { !$0.isASCII }) else { continue }
                if let onDisk = try filesNamed().first(where: { $0 == relative }), case .file = check(onDisk) {
                    r.resolved = onDisk
                    r.strategy = drop == 0 ? 1 : 2
                    return r
                }
            }
        }

        guard guessing else { return r }
        // 3: the file name in the index.
        r.tried.append("name:\(name)")
        let byName = try filesNamed()
        let folders = components.dropLast().map { $0.lowercased() }
        if let pick = try decide(byName, folders: folders, into: &r, strategy: 3) { return pick }
        try byWords(components, folders: folders, into: &r)
        return r
    }

    /// The path's components relative to the root, or nil when there is nothing to look for: empty, or refused
    /// (too long, a NUL, `..`, too many components), the refusal in `r`.
    private func components(of input: String, into r: inout Resolution) -> [String]? {
        if input.utf8.count > Self.maxInputBytes {
            r.input = String(input.prefix(200)) + "…"
            r.refused = "path longer than \(Self.maxInputBytes) bytes"
            return nil
        }
        // Checked after normalising: a file:// URI's "%00" decodes to NUL.
        let trimmed = Self.normalisedSeparators(input.trimmingCharacters(in: .whitespacesAndNewlines))
        if input.utf8.contains(0) || trimmed.utf8.contains(0) {
            r.refused = "path contains a NUL byte"
            return nil
        }
        var components = trimmed.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
            .filter { $0 != "." }
        if components.contains("..") {
            r.refused = "path contains '..' segments"
            return nil
        }
        if components.count > Self.maxComponents {
            r.refused = "path has more than \(Self.maxComponents) components"
            return nil
        }
        // An absolute path inside the root is taken relative to it.
        let rootComponents = root.path.split(separator: "/").map(String.init)
        if trimmed.hasPrefix("/"), components.count > rootComponents.count,
           Array(components.prefix(rootComponents.count)) == rootComponents {
            components.removeFirst(rootComponents.count)
        }
        return components.isEmpty ? nil : components
    }

    /// Strategy 4: fuzzy word overlap, as many of the asked words as can be had, one of them from the file name.
    private func byWords(_ components: [String], folders: [String], into r: inout Resolution) throws {
        let words = PathWords.words(components.joined(separator: "/"))
        guard !words.isEmpty else { return }
        r.tried.append("words:\(words.joined(separator: " "))")
        let candidates = try database.writer.read { db in
            try FileQueries.presentPaths(db, rootId: rootId, sharing: words, atLeast: (words.count + 1) / 2)
        }
        let wanted = Set(words)
        // A track is named by its own name: a path that shares only the asked folders' words (artist, album) is
        // a sibling of the asked track, whose tempo and silences would be given for it. So a candidate must
        // share a word of the asked file name (its track number counts), where the name has any.
        let asked = PathWords.nameWords(components.last!)
        // Ranked by the share of the asked words a path holds, then the share of its words that were asked: a
        // sibling in a folder named like the song ("Neon Skyline/02 Laser Rain") holds every asked word too.
        // Both are ratios of small counts, so equal ratios are equal Doubles and ties compare exactly.
        var best: [String] = []
        var bestRank = (score: 0.0, precision: 0.0)
        for path in candidates where asked.isEmpty || !asked.isDisjoint(with: PathWords.nameWords(path)) {
            let have = Set(PathWords.words(path))
            let shared = Double(wanted.intersection(have).count)
            let rank = (score: shared / Double(wanted.count), precision: shared / Double(max(1, have.count)))
            guard rank.score >= 0.5 else { continue }
            if best.isEmpty || rank > bestRank {
                best = [path]
                bestRank = rank
            } else if rank == bestRank {
                best.append(path)
            }
        }
        guard !best.isEmpty else { return }
        // Ties: the same extension as asked, then the most similar folders.
        let ext = (components.last! as NSString).pathExtension.lowercased()
        var tied = best
        if !ext.isEmpty {
            let sameExt = tied.filter { ($0 as NSString).pathExtension.lowercased() == ext }
            if !sameExt.isEmpty { tied = sameExt }
        }
        // Names of the same words are told apart by their order, once the folders have had their say.
        let askedOrder = PathWords.nameSequence(components.last!)
        _ = try decide(tied, folders: folders, into: &r, strategy: 4) {
            PathWords.wordsInOrder(askedOrder, PathWords.nameSequence($0))
        }
    }

    /// Paths as other systems write them, in this one's form: a `file://` URI (percent-encoded) is its path,
    /// and a path with backslashes and no slash (Navidrome on Windows, `Artist\Album\01 Song.flac`, or
    /// `C:\Music\…`) is split on them; a drive letter is a leading component that strategy 2 drops.
    static func normalisedSeparators(_ path: String) -> String {
        if path.lowercased().hasPrefix("file://") {
            var rest = String(path.dropFirst("file://".count))
            if rest.lowercased().hasPrefix("localhost/") { rest = String(rest.dropFirst("localhost".count)) }
            return rest.removingPercentEncoding ?? rest
        }
        if path.contains("\\"), !path.contains("/") { return path.replacingOccurrences(of: "\\", with: "/") }
        return path
    }

    /// Picks among files that match by name or words: one is the answer; several are decided by how many
    /// folder names they share with the input, then by `thenBy` (higher is closer); a tie is reported, never guessed.
    private func decide(_ paths: [String], folders: [String], into r: inout Resolution, strategy: Int,
                        thenBy: ((String) -> Int)? = nil) throws -> Resolution? {
        let usable = paths.filter { if case .file = check($0) { return true } else { return false } }
        guard !usable.isEmpty else { return nil }
        var chosen = Self.best(usable) { path in
            Self.folderSimilarity(folders, path.split(separator: "/").dropLast().map { $0.lowercased() })
        }
        if let thenBy { chosen = Self.best(chosen, by: thenBy) }
        if chosen.count == 1 {
            r.resolved = chosen[0]
            r.strategy = strategy
            return r
        }
        r.ambiguous = chosen.sorted()
        return r
    }

    /// The paths of the highest score (all of them when there is one path or none).
    private static func best(_ paths: [String], by score: (String) -> Int) -> [String] {
        guard paths.count > 1 else { return paths }
        let scored = paths.map { ($0, score($0)) }
        let top = scored.map(\.1).max()!
        return scored.filter { $0.1 == top }.map(\.0)
    }

    /// Folder names the two paths share, trailing ones weighing most, plus shared words.
    static func folderSimilarity(_ a: [String], _ b: [String]) -> Int {
        var score = 0
        for (x, y) in zip(a.reversed(), b.reversed()) where x == y { score += 10 }
        let wa = Set(PathWords.words(a.joined(separator: "/"))), wb = Set(PathWords.words(b.joined(separator: "/")))
        return score + wa.intersection(wb).count
    }

    enum Check { case file, absent, escapes }

    /// Whether root/relative is a regular file inside the root, following symlinks only within it.
    func check(_ relative: String) -> Check {
        let path = root.absolute(relative)
        var st = stat()
        guard lstat(path, &st) == 0 || stat(path, &st) == 0 else {
            // A component may be a symlink out of the root even when the final name does not exist.
            return escapes(path) ? .escapes : .absent
        }
        if escapes(path) { return .escapes }
        guard stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return .absent }
        return .file
    }

    private func escapes(_ path: String) -> Bool {
        // The deepest existing ancestor, resolved, must stay inside the root.
        var probe = path
        while !probe.isEmpty {
            if let resolved = realpath(probe, nil) {
                defer { free(resolved) }
                return root.relative(of: String(cString: resolved)) == nil
            }
            guard let slash = probe.lastIndex(of: "/") else { break }
            probe = String(probe[..<slash])
            if probe.count <= root.path.count { break }
        }
        return false
    }
}
