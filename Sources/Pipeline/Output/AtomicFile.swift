import Foundation
import Library

/// Replaces a file whole: a temporary beside it, flushed, renamed over it, the folder flushed. A reader (or
/// a crash) sees the old file or the new one, never half of one. A failure gives the system's reason ("No
/// such file or directory", "Read-only file system"), which Foundation's atomic write on Linux does not.
enum AtomicFile {
    struct Failure: Error {
        let reason: String
    }

    static func write(_ data: Data, to path: String) throws(Failure) {
        let folder = (path as NSString).deletingLastPathComponent
        let kind = (path as NSString).pathExtension
        let temporary = (folder.isEmpty ? "." : folder) + "/" + SpindleTemporary.name(extension: kind.isEmpty ? "tmp" : kind)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Failure(reason: String(cString: strerror(errno))) }
        var ok = writeAll(fd, data) && fsync(fd) == 0
        let failure = String(cString: strerror(errno))
        ok = close(fd) == 0 && ok
        guard ok, rename(temporary, path) == 0 else {
            let reason = ok ? String(cString: strerror(errno)) : failure
            unlink(temporary)
            throw Failure(reason: reason)
        }
        let dir = open(folder.isEmpty ? "." : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dir >= 0 { fsync(dir); close(dir) }
    }
}
