import CTagLib
import Foundation

/// A change to one file's tags: keys whose values are replaced, keys removed.
public struct TagEdit: Sendable, Equatable {
    public var set: [String: [String]]
    public var unset: [String]

    public init(set: [String: [String]] = [:], unset: [String] = []) {
        self.set = set
        self.unset = unset
    }

    public var isEmpty: Bool { self.set.isEmpty && unset.isEmpty }
    public var keys: [String] { (Array(self.set.keys) + unset).sorted() }
}

/// Atomic tag writes: the file is copied beside itself under a hidden temporary name, the copy is edited
/// and read back, and only a copy that holds exactly the new values replaces the original (rename is
/// atomic). A crash or kill leaves the original or the new file, never a half-written one; a leftover
/// temporary (hidden, so never indexed) is removed by the next scan.
public enum TagWriter {
    public static let temporaryPrefix = ".spindle-tmp-"

    public static func apply(_ edit: TagEdit, to path: String, id3v2Version: Int = 0) throws {
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        let temporary = folder + "/" + temporaryPrefix + "\(getpid())-\(UInt32.random(in: 0...UInt32.max))-" + url.lastPathComponent
        var st = stat()
        guard stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            throw TagError(path: path, reason: "not a regular file")
        }
        let before = try TagReader.read(path: path)
        do {
            try copy(path, to: temporary, mode: st.st_mode & 0o7777, owner: st.st_uid, group: st.st_gid)
            var error = [CChar](repeating: 0, count: 512)
            let set = edit.set.keys.sorted().flatMap { key in edit.set[key]!.map { key + "\u{1f}" + $0 + "\u{1e}" } }.joined()
            let unset = edit.unset.map { $0 + "\u{1e}" }.joined()
            guard spn_tags_write(temporary, set, unset, Int32(id3v2Version), &error, Int32(error.count)) == 1 else {
                throw TagError(path: path, reason: String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            }
            // Read the copy back: every new value must be there, every removed key gone, the audio intact.
            let after = try TagReader.read(path: temporary)
            // Order-insensitive: ID3v2.3 stores several genres in its own order.
            for (key, values) in edit.set where (after.properties[key] ?? []).sorted() != values.sorted() {
                throw TagError(path: path, reason: "\(key) did not read back as written (\(after.properties[key] ?? []))")
            }
            for key in edit.unset where after.properties[key] != nil {
                throw TagError(path: path, reason: "\(key) is still present after its removal")
            }
            if let d0 = before.durationSeconds, let d1 = after.durationSeconds, abs(d0 - d1) > 0.05 {
                throw TagError(path: path, reason: "the audio changed length while writing tags; left untouched")
            }
            try sync(temporary)
            guard rename(temporary, path) == 0 else {
                throw TagError(path: path, reason: "cannot replace the file: \(String(cString: strerror(errno)))")
            }
            try sync(folder)
        } catch {
            unlink(temporary)
            throw error
        }
    }

    private static func copy(_ source: String, to target: String, mode: mode_t, owner: uid_t, group: gid_t) throws {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw TagError(path: source, reason: "cannot read: \(String(cString: strerror(errno)))") }
        defer { close(input) }
        let output = open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard output >= 0 else { throw TagError(path: source, reason: "cannot write beside it: \(String(cString: strerror(errno)))") }
        defer { close(output) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = read(input, &buffer, buffer.count)
            if n < 0 { if errno == EINTR { continue }; throw TagError(path: source, reason: "read error") }
            if n == 0 { break }
            var written = 0
            while written < n {
                let w = buffer.withUnsafeBytes { write(output, $0.baseAddress! + written, n - written) }
                if w < 0 { if errno == EINTR { continue }; throw TagError(path: source, reason: "write error (disk full?)") }
                written += w
            }
        }
        _ = fchown(output, owner, group)
        _ = fchmod(output, mode)
    }

    private static func sync(_ path: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }
}
