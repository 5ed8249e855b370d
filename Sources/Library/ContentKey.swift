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
        // A read that stops short of the window before the end of the file is a read error on the next call
        // (btrfs and ZFS deliver the bytes before a block that fails its checksum): a key over part of a window
        // would stay the file's for as long as it looks unchanged, and with it tags read from what the disk gave.
        func readAt(_ offset: Int64) -> Bool {
            var got = 0
            while got < window {
                let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + got, window - got, off_t(offset) + off_t(got)) }
                if n > 0 { got += n; continue }
                if n == 0 { break }
                if errno == EINTR { continue }
                return false
            }
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
