import Foundation

/// A positioned read that fills its buffer: `pread` may return fewer bytes than asked before the end of a file
/// (btrfs and ZFS deliver the bytes before a block that fails its checksum, then the error on the next call),
/// so it is called again until the buffer is full, the file ends, or it fails.
enum FullRead {
    /// Bytes read into `buffer` from `offset`, fewer only at the end of the file; -1 on a read error.
    static func read(_ fd: Int32, into buffer: inout [UInt8], at offset: off_t) -> Int {
        var total = 0
        while total < buffer.count {
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + total, $0.count - total, offset + off_t(total)) }
            if n < 0 { if errno == EINTR { continue }; return -1 }
            if n == 0 { break }
            total += n
        }
        return total
    }
}
