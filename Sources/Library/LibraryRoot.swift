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

    /// `absolute` relative to the root ("" for the root itself), or nil when it lies outside. For a confinement
    /// check `absolute` must be symlink-free, as the root is.
    public func relative(of absolute: String) -> String? {
        if absolute == path { return "" }
        return absolute.hasPrefix(path + "/") ? String(absolute.dropFirst(path.count + 1)) : nil
    }

    /// What a path typed on the command line may name inside the root, most likely first, relative to the
    /// root ("" is the root itself): the path taken relative to the root, "." and empty components dropped
    /// (`./Aya`, `Aya//Album`); then the path taken relative to the current folder (or absolute), when that
    /// lies inside the root as written or with symlinks resolved (`cd ~/Music && spindle analyze .` where
    /// `~/Music` links to the root). Never a path with "..", never one outside the root. The root itself is
    /// named only that second way: a `.` typed outside the library is not the whole library.
    public func candidates(forTyped input: String) -> [String] {
        var found: [String] = []
        func add(_ candidate: String) { if !found.contains(candidate) { found.append(candidate) } }
        let components = input.split(separator: "/").filter { $0 != "." }.map(String.init)
        if !input.hasPrefix("/"), !components.isEmpty, !components.contains("..") { add(components.joined(separator: "/")) }
        let absolute = input.hasPrefix("/") ? input : FileManager.default.currentDirectoryPath + "/" + input
        var forms = [URL(fileURLWithPath: absolute).standardizedFileURL.path]
        if let resolved = realpath(absolute, nil) {
            forms.append(String(cString: resolved))
            free(resolved)
        }
        for form in forms { if let inside = relative(of: form) { add(inside) } }
        return found
    }
}

public enum LibraryError: Error, CustomStringConvertible, Sendable {
    case rootUnavailable(path: String, reason: String)

    public var description: String {
        switch self {
        case .rootUnavailable(let path, let reason): return "library root \(path) is not usable: \(reason)"
        }
    }
}
