import Foundation

/// Whether two library files hold the same bytes: the same download in two folders, an album copied beside
/// the original. Equal content keys (size, first and last 64 KiB) only make two files candidates; this reads
/// both whole, through their confined folders, and stops at the first difference.
public enum IdenticalFiles {
    public static func same(_ a: String, _ b: String, root: LibraryRoot) -> Bool {
        guard let first = try? ConfinedFile(root: root, relative: a),
              let second = try? ConfinedFile(root: root, relative: b) else { return false }
        let x = open(first.path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard x >= 0 else { return false }
        defer { close(x) }
        let y = open(second.path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard y >= 0 else { return false }
        defer { close(y) }
        var sx = stat(), sy = stat()
        guard fstat(x, &sx) == 0, fstat(y, &sy) == 0, sx.st_size == sy.st_size else { return false }
        if sx.st_dev == sy.st_dev && sx.st_ino == sy.st_ino { return true }     // hard links: one file
        let chunk = 1 << 20
        var bx = [UInt8](repeating: 0, count: chunk), by = [UInt8](repeating: 0, count: chunk)
        var offset: off_t = 0
        while true {
            let n = FullRead.read(x, into: &bx, at: offset), m = FullRead.read(y, into: &by, at: offset)
            guard n >= 0, n == m else { return false }
            if n == 0 { return true }
            let equal = bx.withUnsafeBytes { p in by.withUnsafeBytes { q in memcmp(p.baseAddress!, q.baseAddress!, n) == 0 } }
            guard equal else { return false }
            offset += off_t(n)
        }
    }
}
