import Foundation
import GRDB
import Store

/// A library whose folder moved (to another disk, another mount point, a container volume mounted at another
/// path) is the library the database already knows, not a new one: taken as new, every file was decoded and
/// analysed again (hours for a large library), and the old root's files stayed "present" beside the new ones.
///
/// A root scanned for the first time is the move of an earlier root when a sample of that root's files is
/// gone from its folder and found in the new one at the same relative paths with the same sizes (nine in ten
/// at least), or when its old path now leads to the new folder (a symlink left in its place, a bind mount). A
/// root whose files are still where they were is another library or a copy, never a move; so is a match with
/// more than one earlier root.
public enum RootRelocation {
    /// Files of each earlier root looked at: one `lstat` each in the old folder and in the new.
    static let sampleSize = 64

    /// The earlier root (row id and path) that `root` is the new place of, if any.
    public static func previous(_ db: Database, for root: LibraryRoot) throws -> (id: Int64, path: String)? {
        var matches: [(id: Int64, path: String)] = []
        for earlier in try FileQueries.rootRows(db) where earlier.path != root.path {
            // The old path now reaches this very folder: a symlink left where the library was (so that the
            // server's configured path still works), or a bind mount. Its files are found at the old path too,
            // which would make it a copy.
            if sameFolder(earlier.path, root.path) { matches.append(earlier); continue }
            let files = try FileQueries.presentFiles(db, rootId: earlier.id)
            guard !files.isEmpty else { continue }
            // Spread over the whole index, not its first files only (the first album scanned).
            let step = max(1, files.count / sampleSize)
            let sample = stride(from: 0, to: files.count, by: step).prefix(sampleSize).map { files[$0] }
            if sample.contains(where: { size(earlier.path + "/" + $0.path) != nil }) { continue }
            let found = sample.filter { size(root.absolute($0.path)) == $0.size }.count
            if found * 10 >= sample.count * 9 { matches.append(earlier) }
        }
        return matches.count == 1 ? matches[0] : nil
    }

    /// Whether two paths lead to one folder (the same device and inode, links followed).
    private static func sameFolder(_ a: String, _ b: String) -> Bool {
        var x = stat(), y = stat()
        guard stat(a, &x) == 0, stat(b, &y) == 0, (x.st_mode & S_IFMT) == S_IFDIR else { return false }
        return x.st_dev == y.st_dev && x.st_ino == y.st_ino
    }

    /// The size of the regular file at `path` (not through a symlink), or nil.
    private static func size(_ path: String) -> Int64? {
        var st = stat()
        guard lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int64(st.st_size)
    }
}
