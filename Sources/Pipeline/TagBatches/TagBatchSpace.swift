import Foundation
import Library

/// The disk space a batch of tag writes takes, and whether its folders can be written at all. Each write copies
/// its file beside itself and renames the copy over it: the original's blocks come free at the rename, unless
/// the file has a hard link the batch does not write (a torrent client's seeding copy, as Lidarr and the other
/// *arr tools set libraries up). That name keeps the old file, so the new one is space taken for good:
/// retagging a hard-linked library whole needs the library's size again. And every file keeps what its tags
/// grow by. The batch is refused before anything is written when a disk lacks that, or a folder is read-only,
/// rather than filling the disk for every other service on it, or failing file after file.
struct TagBatchSpace {
    /// What one disk (device) needs.
    struct Disk {
        /// Files whose other names keep the old version, and their bytes.
        var linkedFiles = 0
        var linkedBytes: Int64 = 0
        /// The largest file: its copy stands beside it until the rename.
        var largest: Int64 = 0
        /// What the files' tags may grow by, together (`growth(_:)`).
        var growth: Int64 = 0
        /// A folder on the disk, where its free space is asked.
        var folder = ""
        var needed: Int64 { linkedBytes + largest + growth }
    }

    var disks: [UInt64: Disk] = [:]
    /// The first folder of the batch on a read-only file system (a volume a container mounts read-only): every
    /// write there would fail alike, after the batch had journaled them all.
    var readOnlyFolder: String?

    var linkedFiles: Int { disks.values.reduce(0) { $0 + $1.linkedFiles } }
    var linkedBytes: Int64 { disks.values.reduce(0) { $0 + $1.linkedBytes } }

    /// The space the writes to `files` (paths relative to the root, with what each one's tags may grow by) need,
    /// from each file's disk, size and links. Files that cannot be stat'ed are left out: their write fails on its
    /// own, with its reason.
    static func of(_ files: [(path: String, growth: Int64)], root: LibraryRoot) -> TagBatchSpace {
        struct File { var device: UInt64; var size: Int64; var links: Int }
        var stats: [FileID: File] = [:]
        var names: [FileID: Int] = [:]
        // Each disk is named by the folder of its first file in the batch's order, so messages do not vary.
        var folders: [UInt64: String] = [:]
        var space = TagBatchSpace()
        var seenFolders = Set<String>()
        var growth: [UInt64: Int64] = [:]
        for (path, grows) in files {
            let absolute = root.absolute(path)
            var st = stat()
            guard stat(absolute, &st) == 0 else { continue }
            let id = FileID(device: UInt64(st.st_dev), inode: UInt64(st.st_ino))
            stats[id] = File(device: UInt64(st.st_dev), size: Int64(st.st_size), links: Int(st.st_nlink))
            names[id, default: 0] += 1
            growth[id.device, default: 0] += grows
            let folder = (absolute as NSString).deletingLastPathComponent
            if folders[id.device] == nil { folders[id.device] = folder }
            // Per folder, not per device: a bind mount shares its device with the writable original.
            if space.readOnlyFolder == nil, seenFolders.insert(folder).inserted, access(folder, W_OK) != 0, errno == EROFS {
                space.readOnlyFolder = folder
            }
        }
        for (id, file) in stats {
            var disk = space.disks[file.device] ?? Disk(growth: growth[file.device] ?? 0, folder: folders[file.device] ?? "")
            disk.largest = max(disk.largest, file.size)
            // Two names of one file in the same batch: the second write frees what the first kept.
            if file.links > names[id, default: 1] {
                disk.linkedFiles += 1
                disk.linkedBytes += file.size
            }
            space.disks[file.device] = disk
        }
        return space
    }

    /// The most one file's tags can grow by with `changes`: each new value's bytes (as UTF-16, as ID3v2.3 stores
    /// all but Latin-1, when that is longer than UTF-8) and a field header (an ID3v2 frame's is 10 bytes, an MP4
    /// freeform atom's some 50), less those of the values it replaces. An overestimate where padding takes the
    /// growth (FLAC's and ID3v2's often do), so a batch is refused only on a disk that is nearly full already.
    static func growth(_ changes: [KeyChange]) -> Int64 {
        func bytes(_ values: [String]?) -> Int64 {
            (values ?? []).reduce(0) { $0 + Int64(max($1.utf8.count, 2 * $1.utf16.count) + 64) }
        }
        return max(0, changes.reduce(0) { $0 + bytes($1.new) - bytes($1.old) })
    }

    /// What a user is told before the writes: nothing when no file has other names.
    var note: String? {
        guard linkedFiles > 0 else { return nil }
        return "\(linkedFiles) file(s) have hard links outside this batch: those names keep the old file and tags, "
            + "and the new files take \(Self.size(linkedBytes)) more on disk"
    }

    /// Throws when a folder of the batch is read-only, or a disk has less free space than the batch needs there;
    /// `available` is asked per folder.
    func check(available: (String) -> Int64? = TagBatchSpace.available) throws {
        if let folder = readOnlyFolder {
            throw PipelineError("\(folder) is on a read-only file system (a volume mounted read-only?): this tag batch "
                + "cannot write there. Nothing was written.")
        }
        for disk in disks.values.sorted(by: { $0.folder < $1.folder }) {
            guard let free = available(disk.folder), free < disk.needed else { continue }
            var parts: [String] = []
            if disk.linkedFiles > 0 {
                parts.append("\(Self.size(disk.linkedBytes)) for \(disk.linkedFiles) file(s) whose other hard links keep the old version")
            }
            parts.append("\(Self.size(disk.largest)) for the copy each write makes beside its file")
            if disk.growth > 0 { parts.append("up to \(Self.size(disk.growth)) for the tags' growth") }
            let listed = parts.count == 1 ? parts[0] : parts.dropLast().joined(separator: ", ") + " and " + parts.last!
            throw PipelineError("not enough free space for this tag batch on the disk of \(disk.folder): it needs "
                + "\(listed), \(Self.size(disk.needed)) in all; \(Self.size(free)) is free. Nothing was written.")
        }
    }

    /// Free space for an unprivileged user in the file system holding `folder`.
    static func available(_ folder: String) -> Int64? {
        var fs = statvfs()
        guard statvfs(folder, &fs) == 0 else { return nil }
        return Int64(fs.f_bavail) * Int64(fs.f_frsize)
    }

    static func size(_ bytes: Int64) -> String {
        let mb = Double(bytes) / 1_000_000
        return mb >= 1000 ? String(format: "%.1f GB", mb / 1000) : String(format: "%.1f MB", mb)
    }
}

/// A file as the file system knows it, whatever its names.
private struct FileID: Hashable {
    var device: UInt64
    var inode: UInt64
}
