import Foundation

/// A media server's ignore file: Navidrome's `.ndignore` or Jellyfin's `.ignore`. What a library's owner told
/// the server to pass over, Spindle passes over too, so it does not analyse (or put in playlists) files the
/// server will never show.
///
/// Both servers read it as gitignore lines applied beneath its folder (Navidrome 0.55, Jellyfin 10.11); an
/// empty file hides the whole folder, which is also what older versions did. Spindle reads this part of
/// gitignore: blank lines and `#` comments are skipped; a pattern with no `/` but a trailing one matches a
/// name at any depth (`*.wav`, `Demos`); one with a `/` matches the path from the file's folder (`/live`,
/// `Bootlegs/*`); `**/` at the start means at any depth, `/**/` between names any number of folders (none
/// too) and `/**` at the end everything inside; a trailing
/// `/` matches folders only; `!` takes a path back, and the last matching line decides. `*`, `?` and `[…]`
/// are glob wildcards that never match a `/`.
struct IgnoreFile: Sendable {
    static let names: Set<String> = [".ndignore", ".ignore"]

    struct Rule: Sendable {
        var pattern: String
        var negated: Bool
        var foldersOnly: Bool
        /// Matched against the whole path from the ignore file's folder, not only the last name.
        var anchored: Bool
        /// An anchored pattern that began with `**/`: matched against the path's tail at any depth.
        var anyDepth: Bool
    }

    let rules: [Rule]

    /// Reads the file `name` in `folder` (an absolute path); nil when there is none or it cannot be read. Only
    /// a regular file is read (a FIFO would block the walk, a symlink could lead outside the root), and only
    /// its first 64 KiB.
    init?(folder: String, name: String) {
        // One open that neither follows a link nor waits on a FIFO, then the type of what it opened: no window
        // between a check and the read for the file to be swapped.
        let fd = open(folder + "/" + name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG,
              let data = try? handle.read(upToCount: 65536) ?? Data() else { return nil }
        self.init(text: String(decoding: data, as: UTF8.self))
    }

    init(text: String) {
        var rules: [Rule] = []
        // A Windows editor's byte-order mark is not part of the first pattern.
        let text = text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text
        for raw in text.split(whereSeparator: \.isNewline) {
            var line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let negated = line.hasPrefix("!")
            if negated { line.removeFirst() }
            if line.hasPrefix("\\") { line.removeFirst() }            // "\#name", "\!name": a literal first character
            var foldersOnly = false
            while line.hasSuffix("/") { line.removeLast(); foldersOnly = true }
            if line.hasSuffix("/**") { line.removeLast(3); foldersOnly = true }
            let anyDepth = line.hasPrefix("**/")
            if anyDepth { line.removeFirst(3) }
            if line.hasPrefix("/") { line.removeFirst() }
            guard !line.isEmpty else { continue }
            rules.append(Rule(pattern: line, negated: negated, foldersOnly: foldersOnly, anchored: line.contains("/"),
                              anyDepth: anyDepth))
        }
        // A file with no pattern (empty, or only comments) hides everything beneath its folder.
        self.rules = rules.isEmpty ? [Rule(pattern: "*", negated: false, foldersOnly: false, anchored: false, anyDepth: false)] : rules
    }

    /// Whether the entry at `path` (relative to the ignore file's folder, `/`-separated) is ignored (true),
    /// taken back (false), or matched by no line (nil).
    func verdict(path: String, isFolder: Bool) -> Bool? {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        var verdict: Bool?
        for rule in rules where (!rule.foldersOnly || isFolder) && rule.matches(path: path, name: name) {
            verdict = !rule.negated
        }
        return verdict
    }
}

extension IgnoreFile.Rule {
    func matches(path: String, name: String) -> Bool {
        guard anchored else { return fnmatch(pattern, name, FNM_PATHNAME) == 0 }
        if matchesWhole(path) { return true }
        guard anyDepth else { return false }
        // `**/a/b`: the path's tail from any folder down.
        var rest = Substring(path)
        while let slash = rest.firstIndex(of: "/") {
            rest = rest[rest.index(after: slash)...]
            if matchesWhole(String(rest)) { return true }
        }
        return false
    }

    /// The anchored pattern against a whole path. A `**` segment between others ("Live/**/*.flac") stands for
    /// any number of folders, none included, as gitignore has it and so Navidrome and Jellyfin read it;
    /// fnmatch alone takes it for exactly one folder.
    private func matchesWhole(_ path: String) -> Bool {
        let segments = pattern.split(separator: "/")
        guard segments.contains("**") else { return fnmatch(pattern, path, FNM_PATHNAME) == 0 }
        return Self.matches(segments, path.split(separator: "/"))
    }

    /// The pattern's segments against the path's, one segment at a time, keeping which path positions can be
    /// reached so far: trying every split after each `**` in turn took time exponential in their number (a
    /// line such as `**/a*/**/b*/**/...` could hold up a whole scan).
    private static func matches(_ pattern: [Substring], _ path: [Substring]) -> Bool {
        var reachable = [Bool](repeating: false, count: path.count + 1)
        reachable[0] = true
        for segment in pattern {
            var next = [Bool](repeating: false, count: path.count + 1)
            if segment == "**" {
                // Any number of folders, none included: every position from the first reachable one on.
                guard let first = reachable.firstIndex(of: true) else { return false }
                for j in first...path.count { next[j] = true }
            } else {
                let glob = String(segment)
                for j in path.indices where reachable[j] && fnmatch(glob, String(path[j]), FNM_PATHNAME) == 0 { next[j + 1] = true }
            }
            reachable = next
            guard reachable.contains(true) else { return false }
        }
        return reachable[path.count]
    }
}

/// The ignore files met on the way down from the root, shallowest first, with the folder each sits in.
struct IgnoreFiles: Sendable {
    private var stack: [(folder: String, file: IgnoreFile)] = []

    /// The stack with `folder`'s own files added (`names`: the ignore files among its entries).
    func entering(folder relative: String, absolute: String, names: [String]) -> IgnoreFiles {
        var next = self
        for name in names.sorted() {
            if let file = IgnoreFile(folder: absolute, name: name) { next.stack.append((relative, file)) }
        }
        return next
    }

    /// Whether the entry at `relative` (from the root) is ignored: each file judges the path from its own
    /// folder, and a deeper file's verdict overrides a shallower one's, as in git.
    func ignores(_ relative: String, isFolder: Bool) -> Bool {
        var ignored = false
        for (folder, file) in stack {
            let path = folder.isEmpty ? relative : String(relative.dropFirst(folder.count + 1))
            if let verdict = file.verdict(path: path, isFolder: isFolder) { ignored = verdict }
        }
        return ignored
    }
}
