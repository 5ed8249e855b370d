import Foundation

/// Writes all of `bytes` to `fd`, through short writes and EINTR: worker pipes, standard error, playlist
/// files. False once the reader is gone (EPIPE: SIGPIPE is ignored in the supervisor and so in its workers)
/// or the descriptor fails (errno says why); Foundation's FileHandle.write traps there instead.
func writeAll(_ fd: Int32, _ bytes: Data) -> Bool {
    bytes.withUnsafeBytes { writeAll(fd, $0) }
}

func writeAll(_ fd: Int32, _ raw: UnsafeRawBufferPointer) -> Bool {
    var offset = 0
    while offset < raw.count {
        let n = write(fd, raw.baseAddress! + offset, raw.count - offset)
        if n < 0 { if errno == EINTR { continue }; return false }
        offset += n
    }
    return true
}
