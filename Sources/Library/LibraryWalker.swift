import Foundation

/// One audio file found by the walk, with the single `lstat` that was made of it.
public struct WalkedFile: Sendable {
    public var relativePath: String
    public var size: Int64
    public var mtimeNs: Int64
    public var ctimeNs: Int64
    public var inode: Int64
}

/// An entry the walk could not index, and why.
public struct SkippedEntry: Sendable, Equatable {
    public var relativePath: String
    public var reason: String
    /// The walk could not look at it (a folder it could not open, an entry it could not stat): what the
    /// index holds there may still be on disk, unseen.
    public var unreadable = false

    public init(relativePath: String, reason: String, unreadable: Bool = false) {
        self.relativePath = relativePath
        self.reason = reason
        self.unreadable = unreadable
    }
}

/// Walks a library root without ever leaving it: directory symlinks are not followed (no loops, no
/// escapes), file symlinks are indexed only when they resolve inside the root, FIFOs, sockets and
/// devices are never opened, and hidden entries, system folders (recycle bins, snapshots) and what a media
/// server's ignore file (`.ndignore`, `.ignore`) names are passed over.
public struct LibraryWalker {
    public let root: LibraryRoot
    public init(root: LibraryRoot) {
        self.root = root
    }

    /// Walks the root. `temporary` hears of each of Spindle's temporary tag-write copies (a regular file
    /// with the full marker, with its modification time); the walk itself never deletes anything.
    /// `mountPoint` hears of each folder walked that is on another device than the folder holding it (a
    /// second disk or a network share mounted inside the library), with that device.
    public func walk(file: (WalkedFile) -> Void, skipped: (SkippedEntry) -> Void,
                     temporary: (String, Date) -> Void = { _, _ in }, mountPoint: (String, UInt64) -> Void = { _, _ in }) {
        var st = stat()
        let device = stat(root.path, &st) == 0 ? st.st_dev : 0
        walkDirectory(relative: "", device: device, ignoring: IgnoreFiles(), file: file, skipped: skipped,
                      temporary: temporary, mountPoint: mountPoint)
    }

    private func walkDirectory(relative: String, device: dev_t, ignoring outer: IgnoreFiles, file: (WalkedFile) -> Void,
                               skipped: (SkippedEntry) -> Void, temporary: (String, Date) -> Void,
                               mountPoint: (String, UInt64) -> Void) {
        let absolute = relative.isEmpty ? root.path : root.absolute(relative)
        guard let entries = Self.entries(of: absolute, relative: relative, skipped: skipped) else { return }
        let ignoring = outer.entering(folder: relative, absolute: absolute,
                                      names: entries.map(\.name).filter(IgnoreFile.names.contains))
        for (name, valid, directory) in entries {
            let childRelative = relative.isEmpty ? name : relative + "/" + name
            if SpindleTemporary.writer(of: name) != nil, !directory {
                var st = stat()
                if lstat(absolute + "/" + name, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG {
                    temporary(childRelative, Date(timeIntervalSince1970: Double(FileState.nanoseconds(st.st_mtim)) / 1e9))
                }
                continue
            }
            if AudioFileTypes.isHidden(name) { continue }
            if !valid {
                guard !ignoring.ignores(childRelative, isFolder: directory) else { continue }
                // The name cannot be stored or reopened through a String: report it for renaming.
                if AudioFileTypes.isAudio(name) || directory {
                    skipped(SkippedEntry(relativePath: childRelative, reason: "name is not valid UTF-8; rename it"))
                }
                continue
            }
            let childAbsolute = absolute + "/" + name
            var st = stat()
            guard lstat(childAbsolute, &st) == 0 else {
                // Audio that cannot be stat'ed, or a folder too deep to enter, is reported; other names are not ours.
                if AudioFileTypes.isAudio(name) || directory || errno == ENAMETOOLONG {
                    let reason = errno == ENAMETOOLONG ? "path longer than the system limit" : String(cString: strerror(errno))
                    skipped(SkippedEntry(relativePath: childRelative, reason: "cannot stat: \(reason)", unreadable: true))
                }
                continue
            }
            let type = st.st_mode & S_IFMT
            if type == S_IFDIR {
                guard !AudioFileTypes.isSystemFolder(name), !ignoring.ignores(childRelative, isFolder: true) else { continue }
                if st.st_dev != device { mountPoint(childRelative, UInt64(st.st_dev)) }
                walkDirectory(relative: childRelative, device: st.st_dev, ignoring: ignoring, file: file, skipped: skipped,
                              temporary: temporary, mountPoint: mountPoint)
                continue
            }
            if type == S_IFLNK, !AudioFileTypes.isAudio(name), !ignoring.ignores(childRelative, isFolder: true),
               let reason = folderLinkLeavingRoot(childAbsolute) {
                // A folder linked in from another disk: its albums would be missing without a word.
                skipped(SkippedEntry(relativePath: childRelative, reason: reason))
                continue
            }
            guard AudioFileTypes.isAudio(name), !ignoring.ignores(childRelative, isFolder: false) else { continue }
            if type == S_IFLNK {
                if let refusal = linkedFileRefusal(childAbsolute, stat: &st) {
                    skipped(SkippedEntry(relativePath: childRelative, reason: refusal))
                    continue
                }
            } else if type != S_IFREG {
                skipped(SkippedEntry(relativePath: childRelative, reason: "not a regular file (FIFO, socket or device)"))
                continue
            }
            file(WalkedFile(relativePath: childRelative, size: Int64(st.st_size),
                            mtimeNs: FileState.nanoseconds(st.st_mtim), ctimeNs: FileState.nanoseconds(st.st_ctim),
                            inode: Int64(st.st_ino)))
        }
    }

    /// A folder's entries sorted by name, each with whether its name is valid UTF-8 and whether it is a folder;
    /// nil, with the folder reported, when it cannot be opened.
    private static func entries(of absolute: String, relative: String,
                                skipped: (SkippedEntry) -> Void) -> [(name: String, valid: Bool, directory: Bool)]? {
        guard let dir = opendir(absolute) else {
            let reason = errno == ENAMETOOLONG ? "path longer than the system limit" : String(cString: strerror(errno))
            skipped(SkippedEntry(relativePath: relative, reason: "cannot open folder: \(reason)", unreadable: true))
            return nil
        }
        defer { closedir(dir) }
        var entries: [(name: String, valid: Bool, directory: Bool)] = []
        while let entry = readdir(dir) {
            let (name, valid) = withUnsafeBytes(of: entry.pointee.d_name) { raw -> (String, Bool) in
                let bytes = raw.prefix { $0 != 0 }
                if let s = String(validating: bytes, as: UTF8.self) { return (s, true) }
                return (String(decoding: bytes, as: UTF8.self), false)
            }
            if name == "." || name == ".." { continue }
            entries.append((name, valid, entry.pointee.d_type == UInt8(DT_DIR)))
        }
        return entries.sorted { $0.name < $1.name }
    }

    /// Why a symlinked audio file is not indexed (broken, leading outside the root, not to a file), or nil with
    /// `st` the file it leads to.
    private func linkedFileRefusal(_ path: String, stat st: inout stat) -> String? {
        guard let resolved = Self.resolved(path) else { return "broken symlink (\(String(cString: strerror(errno))))" }
        guard holds(resolved) else { return "symlink leads outside the library root" }
        guard stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return "symlink to something that is not a file" }
        return nil
    }

    /// Why a symlink to a folder outside the root is not walked, or nil when it is not one. Links to folders
    /// inside the root are passed over quietly: their files are indexed where they are.
    func folderLinkLeavingRoot(_ path: String) -> String? {
        var st = stat()
        guard stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR, let resolved = Self.resolved(path), !holds(resolved) else {
            return nil
        }
        return "symlink to a folder outside the library root (\(resolved)), not followed: Spindle reads nothing outside the "
            + "root; make that folder a library of its own, or mount it inside the root"
    }

    /// Whether a resolved (symlink-free) path is the root or lies under it.
    private func holds(_ resolved: String) -> Bool { root.relative(of: resolved) != nil }

    /// `path` with every symlink resolved; nil when it leads nowhere (errno says why).
    private static func resolved(_ path: String) -> String? {
        guard let target = realpath(path, nil) else { return nil }
        defer { free(target) }
        return String(cString: target)
    }
}
