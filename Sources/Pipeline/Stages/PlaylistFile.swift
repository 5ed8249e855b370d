import Foundation
import Library

/// The file operations behind the playlists stage: what is at a path, and an atomic replace.
enum PlaylistFile {
    enum State: Equatable {
        case missing
        /// A regular file, with the digest of its bytes.
        case regular(String)
        /// A symlink, folder or device: never written through or removed.
        case other(String)
    }

    static func state(_ path: String) -> State {
        var st = stat()
        guard lstat(path, &st) == 0 else { return .missing }
        switch st.st_mode & S_IFMT {
        case S_IFREG:
            guard let data = FileManager.default.contents(atPath: path) else { return .other("an unreadable file") }
            return .regular(digest(data))
        case S_IFLNK: return .other("a symbolic link")
        case S_IFDIR: return .other("a folder")
        default: return .other("a special file")
        }
    }

    static func digest(_ data: Data) -> String {
        var hash = FNV1a()
        hash.add(data)
        return String(hash.value, radix: 16)
    }

    /// Writes a temporary beside `path`, flushes it, renames it over `path` and flushes the folder: a reader
    /// (or a crash) sees the old playlist or the new one, never half of one.
    static func write(_ data: Data, to path: String) throws {
        let folder = (path as NSString).deletingLastPathComponent
        let temporary = folder + "/" + SpindleTemporary.name(extension: "m3u8")
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw PipelineError("cannot create a playlist in \(folder): \(String(cString: strerror(errno)))") }
        var ok = writeAll(fd, data) && fsync(fd) == 0
        let failure = String(cString: strerror(errno))
        ok = close(fd) == 0 && ok
        guard ok, rename(temporary, path) == 0 else {
            let reason = ok ? String(cString: strerror(errno)) : failure
            unlink(temporary)
            throw PipelineError("cannot write playlist \(path): \(reason)")
        }
        let dir = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dir >= 0 { fsync(dir); close(dir) }
    }
}
