import Foundation
import XCTest

/// A small btrfs file system in an image file, loop-mounted, whose files can be given a block the disk cannot
/// read. btrfs checks every data block against its checksum and answers one that no longer matches with EIO,
/// as a failing disk or ZFS does: a real read error from the kernel, in the middle of a real file. Needs root,
/// a loop device and `mkfs.btrfs` (btrfs-progs); where any is missing, `init` skips the test and says why.
public final class BadSectorDisk {
    public let mountPoint: String
    private let image: String
    /// The bytes a `spoil` overwrote, by their place in the image, for `mend`.
    private var spoiled: [(offset: UInt64, bytes: Data)] = []
    static let patternLength = 64

    public init(image: String, mountPoint: String) throws {
        self.image = image
        self.mountPoint = mountPoint
        guard getuid() == 0 else { throw XCTSkip("a loop-mounted file system needs root") }
        guard FileManager.default.createFile(atPath: image, contents: nil),
              truncate(image, 128 << 20) == 0 else { throw XCTSkip("cannot make a disk image at \(image)") }
        guard Synth.run("mkfs.btrfs", ["-q", "-f", image]) == 0 else {
            throw XCTSkip("mkfs.btrfs (btrfs-progs) is not installed or failed")
        }
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        try mount()
    }

    private func mount() throws {
        guard Synth.run("mount", ["-o", "loop", image, mountPoint]) == 0 else {
            throw XCTSkip("cannot loop-mount a btrfs image here (no loop device, or no CAP_SYS_ADMIN)")
        }
    }

    private func unmount() { _ = Synth.run("umount", [mountPoint]) }

    /// Unmounts the file system and removes the image.
    public func remove() {
        unmount()
        try? FileManager.default.removeItem(atPath: image)
    }

    /// Makes the block holding `offset` of the file at `path` (on this disk) unreadable: the file system is
    /// unmounted, the file's bytes there are found in the image and zeroed, and it is mounted again.
    public func spoil(_ path: String, at offset: Int) throws {
        let content = try Data(contentsOf: URL(fileURLWithPath: path))
        let pattern = content.subdata(in: offset..<min(content.count, offset + Self.patternLength))
        unmount()
        defer { try? mount() }
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: image))
        defer { try? handle.close() }
        let disk = try handle.readToEnd() ?? Data()
        guard let found = disk.range(of: pattern),
              disk.range(of: pattern, in: found.upperBound..<disk.count) == nil else {
            throw XCTSkip("the file's bytes at \(offset) are not found once in the image (compressed, or not unique)")
        }
        try handle.seek(toOffset: UInt64(found.lowerBound))
        try handle.write(contentsOf: Data(count: pattern.count))
        spoiled.append((UInt64(found.lowerBound), pattern))
    }

    /// Puts back every block `spoil` spoiled: the disk reads them again.
    public func mend() throws {
        unmount()
        defer { try? mount() }
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: image))
        defer { try? handle.close() }
        for (offset, bytes) in spoiled {
            try handle.seek(toOffset: offset)
            try handle.write(contentsOf: bytes)
        }
        spoiled.removeAll()
    }
}
