import Foundation

/// Why a file could not be reached inside the root at write time.
public struct ConfinementError: Error, CustomStringConvertible, Sendable {
    public let path: String
    public let reason: String
    public var description: String { "\(path): \(reason)" }
}

/// A file of the library reached through its folder chain without following any symlink, with its folder
/// held open. Whatever is read, written or renamed through it stays inside the root, even when a folder on
/// the way is swapped for a symlink after the path was checked: the check happened by opening, not by
/// looking. A symlink inside the library that leads to a file inside the root is followed once, up front,
/// so an edit reaches the link's target and the link stays a link.
public final class ConfinedFile {
    /// The file's real path relative to the root (an in-root symlink resolved).
    public let relativePath: String
    /// The open folder that holds the file.
    public let directory: Int32
    /// The file's name in that folder.
    public let name: String

    /// `followingLink`: a symlink at `relative` that leads to a file inside the root is followed (edits
    /// reach the target); without it the name itself must be a regular file.
    public init(root: LibraryRoot, relative: String, followingLink: Bool = true) throws {
        let components = relative.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard !components.isEmpty, !components.contains(".."), !components.contains("."), !relative.hasPrefix("/") else {
            throw ConfinementError(path: relative, reason: "not a plain path inside the library")
        }
        var real = components
        if followingLink, let resolved = realpath(root.absolute(relative), nil) {
            let text = String(cString: resolved)
            free(resolved)
            guard let inside = root.relative(of: text), !inside.isEmpty else {
                throw ConfinementError(path: relative, reason: "leads outside the library root; refused")
            }
            real = inside.split(separator: "/").map(String.init)
        } else if followingLink, errno != ENOENT && errno != ENOTDIR {
            throw ConfinementError(path: relative, reason: String(cString: strerror(errno)))
        }
        var fd = open(root.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw ConfinementError(path: relative, reason: "cannot open the library root") }
        for folder in real.dropLast() {
            let next = openat(fd, folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            let failure = errno
            close(fd)
            guard next >= 0 else {
                let reason = failure == ELOOP || failure == ENOTDIR
                    ? "folder \(folder) is a symlink or not a folder; refused (nothing is written outside the root)"
                    : "cannot open folder \(folder): \(String(cString: strerror(failure)))"
                throw ConfinementError(path: relative, reason: reason)
            }
            fd = next
        }
        var st = stat()
        guard fstatat(fd, real.last!, &st, AT_SYMLINK_NOFOLLOW) == 0 else {
            let reason = errno == ENOENT ? "no such file" : String(cString: strerror(errno))
            close(fd)
            throw ConfinementError(path: relative, reason: reason)
        }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            let reason = switch st.st_mode & S_IFMT {
            case S_IFDIR: "a folder, not a file"
            case S_IFLNK: "a symlink swapped in since the path was checked"
            default: "not a regular file"
            }
            throw ConfinementError(path: relative, reason: reason)
        }
        directory = fd
        name = real.last!
        relativePath = real.joined(separator: "/")
    }

    deinit { close(directory) }

    /// A path naming `entry` in the held folder, for libraries that open files by path (TagLib, the
    /// decoders): `/proc/self/fd/N` is the open folder itself, not whatever its old path names now.
    public func path(_ entry: String) -> String { "/proc/self/fd/\(directory)/\(entry)" }

    /// The file itself, through the held folder.
    public var path: String { path(name) }

    /// Whether the file's permissions deny this user writing it (root may write any): a file made read-only was
    /// refused only by TagLib, on the copy, as "TagLib could not save the file". A read-only file system is
    /// not this (EROFS): a batch says that of the folder, once.
    public var deniesWriting: Bool { faccessat(directory, name, W_OK, AT_EACCESS) != 0 && errno == EACCES }

    /// Whether another program has the file open for writing (a copy into the library or a download, paused):
    /// a tag write replaces the file by an edited copy, and what that program writes afterwards goes to the
    /// replaced file, lost. The kernel refuses a read lease while any descriptor is open for writing; where
    /// it grants none (another user's file without CAP_LEASE, a network file system), this says false.
    public var openForWritingElsewhere: Bool {
        let fd = openat(directory, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let setLease: Int32 = 1024, readLease: Int32 = 0, unlock: Int32 = 2   // F_SETLEASE, F_RDLCK, F_UNLCK
        if fcntl(fd, setLease, readLease) == 0 {
            _ = fcntl(fd, setLease, unlock)
            return false
        }
        return errno == EAGAIN
    }

    /// The file's current state, without following a symlink swapped in for it.
    public func state() throws -> FileState {
        var st = stat()
        guard fstatat(directory, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else {
            throw ConfinementError(path: relativePath, reason: "the file is gone")
        }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            throw ConfinementError(path: relativePath, reason: "no longer a regular file")
        }
        return FileState(size: Int64(st.st_size), mtimeNs: FileState.nanoseconds(st.st_mtim),
                         contentKey: ContentKey.compute(path: path, size: Int64(st.st_size)))
    }
}

/// What identifies one version of a file: size, modification time and content key. A file whose state
/// differs from the one an edit was planned against has been changed by someone else.
public struct FileState: Sendable, Equatable {
    public var size: Int64
    public var mtimeNs: Int64
    public var contentKey: String?

    public init(size: Int64, mtimeNs: Int64, contentKey: String?) {
        self.size = size
        self.mtimeNs = mtimeNs
        self.contentKey = contentKey
    }

    public static func nanoseconds(_ t: timespec) -> Int64 { Int64(t.tv_sec) * 1_000_000_000 + Int64(t.tv_nsec) }

    /// What differs from `expected`, or nil when nothing does (a missing key on either side is not compared).
    public func difference(from expected: FileState) -> String? {
        if size != expected.size { return "size \(expected.size) → \(size)" }
        if mtimeNs != expected.mtimeNs { return "modification time changed" }
        if let a = contentKey, let b = expected.contentKey, a != b { return "content changed" }
        return nil
    }
}
