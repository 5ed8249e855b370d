import Foundation

/// A library root as an absolute, symlink-free path: every confinement check compares against this form.
public struct LibraryRoot: Sendable, Equatable {
    public let path: String

    public init(path: String) throws {
        guard let resolved = realpath(path, nil) else {
            throw LibraryError.rootUnavailable(path: path, reason: String(cString: strerror(errno)))
        }
        defer { free(resolved) }
        let canonical = String(cString: resolved)
        var st = stat()
        guard stat(canonical, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else {
            throw LibraryError.rootUnavailable(path: path, reason: "not a folder")
        }
        // The whole file system is no music library: a scan would walk /proc and /sys, and every confinement
        // check would pass. Someone who typed `/` meant a folder.
        guard canonical != "/" else {
            throw LibraryError.rootUnavailable(path: path, reason: "that is the whole file system; point the library at your music folder")
        }
        self.path = canonical
    }

    public func absolute(_ relative: String) -> String { path + "/" + relative }
}

public enum LibraryError: Error, CustomStringConvertible, Sendable {
    case rootUnavailable(path: String, reason: String)

    public var description: String {
        switch self {
        case .rootUnavailable(let path, let reason): return "library root \(path) is not usable: \(reason)"
        }
    }
}
