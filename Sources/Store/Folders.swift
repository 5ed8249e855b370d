import Foundation

/// The folders Spindle makes: the database's (and so its lock's), a merge target's, the playlists'. Made
/// with mkdir one component at a time, so that a failure says why in the system's words ("Read-only file
/// system", "Not a directory"): Foundation on Linux reports some failures only as "error 512".
public enum Folders {
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public let path, reason: String
        public var description: String { "cannot create the folder \(path): \(reason)" }
    }

    /// Makes `path` and any missing parent; nothing when it is a folder already.
    public static func make(_ path: String) throws(Failure) {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: absolute, isDirectory: &isFolder), isFolder.boolValue { return }
        var made = ""
        for component in absolute.split(separator: "/") {
            made += "/" + component
            if mkdir(made, 0o777) != 0 && errno != EEXIST {
                throw Failure(path: path, reason: String(cString: strerror(errno)))
            }
        }
        guard FileManager.default.fileExists(atPath: absolute, isDirectory: &isFolder), isFolder.boolValue else {
            throw Failure(path: path, reason: "a file is in the way")
        }
    }
}
