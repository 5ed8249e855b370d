import Foundation

/// Whether every byte of a file can be read. A decoder that meets a read error (EIO from a failing disk, a
/// btrfs or ZFS checksum that no longer matches, a network share that dropped) cannot tell it from the end of
/// its stream: it reports a file cut short, or corrupt, or empty, and its results would be stored for good as
/// the file's. Its bytes are fine as far as the file is concerned; the disk could not deliver them. So where a
/// decoder reports damage or refuses a file, the file is read through once more here, and a read error
/// turns the outcome into "could not be read", which stores nothing: a file analysed before keeps its results,
/// and the next run tries again.
public enum FileReadCheck {
    /// The first read error in `path`'s bytes, worded for the user; nil when every byte reads (the damage, if
    /// any, is the file's own).
    public static func failure(path: String) -> String? {
        // Not blocking: a FIFO's open would wait for a writer.
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return "cannot open for reading (\(String(cString: strerror(errno))))" }
        defer { close(fd) }
        var st = stat()
        // A folder, a FIFO or a device is refused for what it is, not read.
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        let size = Int64(st.st_size)
        let chunk = 1 << 20, block = 4096
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: chunk, alignment: block)
        defer { buffer.deallocate() }
        var offset: Int64 = 0
        while true {
            let n = pread(fd, buffer, chunk, off_t(offset))
            if n > 0 { offset += Int64(n); continue }
            if n == 0 { return nil }
            if errno == EINTR { continue }
            var code = errno
            // Narrow it to the block that failed, so the message can say where.
            var at = offset
            while true {
                let m = pread(fd, buffer, block, off_t(at))
                if m > 0 { at += Int64(m); continue }
                if m < 0 { code = errno; offset = at }
                break
            }
            return describe(errno: code, at: offset, size: size)
        }
    }

    static func describe(errno code: Int32, at offset: Int64, size: Int64) -> String {
        "a read error at byte \(offset) of \(size) (\(String(cString: strerror(code)))): the disk could not deliver the file "
            + "(a failing disk, a file system checksum that does not match, a share that dropped); nothing read from it is kept"
    }
}
