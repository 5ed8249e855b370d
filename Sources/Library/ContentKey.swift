import Foundation

/// A cheap identity for a file's content: FNV-1a 64 over its size, first 64 KiB and last 64 KiB.
/// It recognises a moved file without reading it whole, and it changes when the file is rewritten, but not
/// when a tag is edited in place between the two windows: the scanner reads a file's tags again whenever its
/// time changed, whatever its key.
public enum ContentKey {
    static let window = 64 * 1024

    public static func compute(path: String, size: Int64) -> String? {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var hash = FNV1a()
        withUnsafeBytes(of: size.littleEndian) { hash.add($0) }
        var buffer = [UInt8](repeating: 0, count: window)
        // Whole windows or none: a key over the part of a window before a read error would stay the file's for as
        // long as it looks unchanged, and with it tags read from what the disk gave.
        func readAt(_ offset: Int64) -> Bool {
            let got = FullRead.read(fd, into: &buffer, at: off_t(offset))
            guard got >= 0 else { return false }
            buffer.withUnsafeBytes { hash.add(UnsafeRawBufferPointer(rebasing: $0[0..<got])) }
            return true
        }
        guard readAt(0) else { return nil }
        if size > Int64(window) {
            guard readAt(max(Int64(window), size - Int64(window))) else { return nil }
        }
        return String(format: "%016llx", hash.value)
    }
}
