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

    /// Replaces the playlist whole (`AtomicFile`): a player sees the old one or the new one.
    static func write(_ data: Data, to path: String) throws {
        do {
            try AtomicFile.write(data, to: path)
        } catch {
            throw PipelineError("cannot write playlist \(path): \(error.reason)")
        }
    }
}
