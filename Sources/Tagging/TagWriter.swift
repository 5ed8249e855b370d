import CTagLib
import CXattr
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

/// Where one write happens: a folder held open by the caller (so nothing on the way can be swapped for a
/// symlink), the file's name in it, and the name of the temporary copy to make beside it.
public struct TagWriteTarget {
    public var directory: Int32
    public var name: String
    public var temporaryName: String
    /// How messages name the file (its path relative to the library root).
    public var display: String

    public init(directory: Int32, name: String, temporaryName: String, display: String) {
        self.directory = directory
        self.name = name
        self.temporaryName = temporaryName
        self.display = display
    }
}

/// What the caller proves about a write before the copy may replace the original.
public struct TagWriteChecks {
    /// Throws a `.conflict` TagError when the original (given by path) is not the version the edit was planned on.
    public var original: (String) throws -> Void
    /// Throws when the copy's audio differs from the original's (both given by path).
    public var audio: (_ original: String, _ copy: String) throws -> Void

    public init(original: @escaping (String) throws -> Void, audio: @escaping (String, String) throws -> Void) {
        self.original = original
        self.audio = audio
    }
}

/// Atomic tag writes that never lose audio. The original is copied beside itself (every write and the
/// `fsync` checked, extended attributes kept), TagLib edits the copy, and the copy replaces the original
/// only when it is proven whole: every new value reads back, its decoded audio equals the original's
/// (TagLib ignores write errors, so a full disk would otherwise pass as a truncated file), and the original
/// is still the file the edit was planned against. Any doubt leaves the original untouched. A crash leaves
/// the original or the new file, never a half-written one; an abandoned copy is removed by a later scan.
///
/// The rename replaces the directory entry: a file with several hard links gets the new tags under this
/// name only, and the other names keep the old file.
public enum TagWriter {
    public static func apply(_ edit: TagEdit, at target: TagWriteTarget, id3v2Version: Int = 0,
                             checks: TagWriteChecks) throws {
        let source = openat(target.directory, target.name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard source >= 0 else {
            throw TagError(path: target.display, reason: "cannot open: \(String(cString: strerror(errno)))")
        }
        defer { close(source) }
        var before = stat()
        guard fstat(source, &before) == 0, (before.st_mode & S_IFMT) == S_IFREG else {
            throw TagError(path: target.display, reason: "not a regular file")
        }
        // The original as opened, whatever its name comes to hold meanwhile.
        let original = "/proc/self/fd/\(source)"
        try checks.original(original)
        var copied: Int32 = -1
        defer { if copied >= 0 { close(copied) } }
        do {
            copied = try copy(from: source, mode: before, into: target)
            do {
                try editCopy(edit, held: copied, into: target, id3v2Version: id3v2Version, checks: checks, original: original)
            } catch let error as TagError where error.kind == .failed {
                throw diskFull(target.directory).map { TagError(path: target.display, reason: "\($0): \(error.reason)") } ?? error
            }
            // The original must still be the file that was copied: same inode, size and time.
            var now = stat()
            guard fstatat(target.directory, target.name, &now, AT_SYMLINK_NOFOLLOW) == 0,
                  now.st_ino == before.st_ino, now.st_dev == before.st_dev, now.st_size == before.st_size,
                  now.st_mtim.tv_sec == before.st_mtim.tv_sec, now.st_mtim.tv_nsec == before.st_mtim.tv_nsec else {
                throw TagError(path: target.display, reason: "the file changed while its tags were written; left as it is",
                               kind: .conflict)
            }
            try requireCopyInPlace(copied, named: target.temporaryName, in: target)
            guard renameat(target.directory, target.temporaryName, target.directory, target.name) == 0 else {
                throw TagError(path: target.display, reason: "cannot replace the file: \(String(cString: strerror(errno)))")
            }
        } catch {
            // Only the copy this write made is removed: an entry swapped in under its name is someone else's.
            if copied >= 0, isEntry(target.temporaryName, in: target.directory, of: copied) {
                unlinkat(target.directory, target.temporaryName, 0)
            }
            throw error
        }
        // Someone with write access to the folder can still rename an entry of theirs over the copy's name in the
        // instant between the last check and the rename; the file then holds their entry, not the edited copy.
        // That is told, not passed over as written.
        guard isEntry(target.name, in: target.directory, of: copied) else {
            throw TagError(path: target.display, reason: "the edited copy was replaced by another file as it was put in place; "
                + "check the file: it is not what Spindle wrote")
        }
        // The rename is done; a failed folder sync only weakens durability after a power cut, and the file
        // already holds the new tags, so it is reported rather than undone.
        if fsync(target.directory) != 0, errno != EINVAL {
            throw TagError(path: target.display, reason: "tags written, but syncing the folder failed: \(String(cString: strerror(errno)))")
        }
    }

    /// Whether `entry` in the folder names the file open as `descriptor` (not a symlink, not another file).
    static func isEntry(_ entry: String, in directory: Int32, of descriptor: Int32) -> Bool {
        var held = stat(), named = stat()
        return fstat(descriptor, &held) == 0 && fstatat(directory, entry, &named, AT_SYMLINK_NOFOLLOW) == 0
            && held.st_dev == named.st_dev && held.st_ino == named.st_ino
    }

    /// The copy's name must still be the copy Spindle made and edited: another user of the folder who renamed
    /// a symlink or a file of theirs over it would otherwise have it renamed over the original.
    private static func requireCopyInPlace(_ copied: Int32, named entry: String, in target: TagWriteTarget) throws {
        guard isEntry(entry, in: target.directory, of: copied) else {
            throw TagError(path: target.display, reason: "the edited copy was replaced by another file while it was written; "
                + "the original is untouched")
        }
    }

    /// TagLib's edit of the copy, then the copy read back: every new value there, every removed key gone, and
    /// the audio as the original's. All of it goes through the descriptor held since the copy was created,
    /// never by the copy's name, which another user of the folder could swap for a symlink to a file outside.
    private static func editCopy(_ edit: TagEdit, held copied: Int32, into target: TagWriteTarget, id3v2Version: Int,
                                 checks: TagWriteChecks, original: String) throws {
        let (set, unset) = records(edit)
        var error = [CChar](repeating: 0, count: 512)
        let ok = set.withUnsafeBufferPointer { s in
            unset.withUnsafeBufferPointer { u in
                s.withMemoryRebound(to: CChar.self) { s in
                    u.withMemoryRebound(to: CChar.self) { u in
                        spn_tags_write_fd(copied, target.temporaryName, s.baseAddress, UInt(s.count), u.baseAddress,
                                          UInt(u.count), Int32(id3v2Version), &error, Int32(error.count))
                    }
                }
            }
        }
        guard ok == 1 else {
            throw TagError(path: target.display, reason: String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        // A failed sync (a full disk found late) abandons the write.
        guard fsync(copied) == 0 else {
            throw TagError(path: target.display, reason: "sync of the edited copy failed: \(String(cString: strerror(errno))); the original is untouched")
        }
        // Found swapped now, the write stops before decoding anything.
        try requireCopyInPlace(copied, named: target.temporaryName, in: target)
        // Read the copy back: every new value must be there, every removed key gone.
        let after = try TagReader.read(descriptor: copied, name: target.temporaryName)
        // Order-insensitive: ID3v2.3 stores several genres in its own order.
        for (key, values) in edit.set where (after.properties[key] ?? []).sorted() != values.sorted() {
            throw TagError(path: target.display, reason: "\(key) did not read back as written; the original is untouched")
        }
        for key in edit.unset where after.properties[key] != nil {
            throw TagError(path: target.display, reason: "\(key) is still present after its removal; the original is untouched")
        }
        // A descriptor's /proc path reopens the file it holds, not whatever its name now is.
        try checks.audio(original, "/proc/self/fd/\(copied)")
    }

    /// TagLib reports no failed write (its streams ignore `fwrite`'s errors): a copy cut short by a full disk
    /// shows only as a tag that does not read back, or as audio that differs. Said as what it is when the disk
    /// of the folder has under 1 MB left once the write failed.
    static func diskFull(_ directory: Int32) -> String? {
        var fs = statvfs()
        guard fstatvfs(directory, &fs) == 0 else { return nil }
        let free = Int64(fs.f_bavail) * Int64(fs.f_frsize)
        guard free < 1 << 20 else { return nil }
        return "the disk is full (\(free / 1024) KB left), so the edited copy was cut short"
    }

    static func records(_ edit: TagEdit) -> (set: [UInt8], unset: [UInt8]) {
        let set = edit.set.keys.sorted().flatMap { key in edit.set[key]!.map { (key: key, value: $0) } }
        return (TagRecords.encode(set), TagRecords.encode(edit.unset.map { (key: $0, value: "") }))
    }

    /// Copies the open original into a new temporary file in the same folder, checking every write and the
    /// final `fsync`, with the original's mode, owner and extended attributes. Returns the copy, open for
    /// reading and writing: the caller edits it through this descriptor and closes it.
    private static func copy(from input: Int32, mode st: stat, into target: TagWriteTarget) throws -> Int32 {
        // Readable and writable by its owner while it is edited, whatever the original's mode: it is given
        // that mode at the end.
        let output = openat(target.directory, target.temporaryName, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                            0o600)
        guard output >= 0 else {
            throw TagError(path: target.display, reason: "cannot write beside it: \(String(cString: strerror(errno)))")
        }
        var handed = false
        defer {
            // A copy cut short is removed here, where it was made; one another user swapped in is theirs.
            if !handed {
                if isEntry(target.temporaryName, in: target.directory, of: output) {
                    unlinkat(target.directory, target.temporaryName, 0)
                }
                close(output)
            }
        }
        func failure(_ what: String) -> TagError {
            TagError(path: target.display, reason: "\(what): \(String(cString: strerror(errno))); the original is untouched")
        }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var offset: off_t = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { pread(input, $0.baseAddress, $0.count, offset) }
            if n < 0 { if errno == EINTR { continue }; throw failure("read error") }
            if n == 0 { break }
            var written = 0
            while written < n {
                let w = buffer.withUnsafeBytes { write(output, $0.baseAddress! + written, n - written) }
                if w < 0 { if errno == EINTR { continue }; throw failure("write error") }
                if w == 0 { throw TagError(path: target.display, reason: "write made no progress; the original is untouched") }
                written += w
            }
            offset += off_t(n)
        }
        guard offset == st.st_size else {
            throw TagError(path: target.display, reason: "the file changed size while it was copied; the original is untouched")
        }
        try copyExtendedAttributes(from: input, to: output, display: target.display)
        // Only root may give the copy the file's owner. A writer who is a member of the file's group (a shared
        // media group) still keeps that: otherwise the new file fell to the writer's own group, and the group's
        // other members (the media server, the downloader) lost the write access its mode gave them.
        if fchown(output, st.st_uid, st.st_gid) != 0 { _ = fchown(output, uid_t.max, st.st_gid) }
        guard fchmod(output, st.st_mode & 0o7777) == 0 else { throw failure("cannot set permissions") }
        guard fsync(output) == 0 else { throw failure("sync failed") }
        handed = true
        return output
    }

    /// Extended attributes (user.*, security labels, ACLs) travel with the copy; a file system without them
    /// has none to lose.
    private static func copyExtendedAttributes(from input: Int32, to output: Int32, display: String) throws {
        let size = flistxattr(input, nil, 0)
        guard size > 0 else { return }
        var names = [CChar](repeating: 0, count: size)
        let got = flistxattr(input, &names, size)
        guard got > 0 else { return }
        for raw in names[0..<got].split(separator: 0) {
            let name = String(decoding: raw.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let length = fgetxattr(input, name, nil, 0)
            guard length >= 0 else { continue }
            var value = [UInt8](repeating: 0, count: max(length, 1))
            let n = fgetxattr(input, name, &value, length)
            guard n >= 0 else { continue }
            if fsetxattr(output, name, value, n, 0) != 0, errno != ENOTSUP, errno != EPERM {
                throw TagError(path: display, reason: "cannot keep extended attribute \(name): \(String(cString: strerror(errno))); the original is untouched")
            }
        }
    }
}
