import Foundation

/// Bytes read from a pipe, handed out line by line. It remembers how far it has searched for a newline, so
/// a 10 MB reply arriving in 64 KB reads is searched once, not once per read.
struct LineBuffer {
    private var bytes: [UInt8] = []
    /// Start of the first line not yet handed out.
    private var start = 0
    /// Everything before this index (from `start`) is known to hold no newline.
    private var searched = 0
    /// Bytes compared against the newline so far (linear in the input; tests check it).
    private(set) var bytesExamined = 0

    mutating func append(_ chunk: UnsafeRawBufferPointer) {
        // Drop handed-out lines before growing, so the buffer stays as large as one pending line.
        if start > 0, start == bytes.count {
            bytes.removeAll(keepingCapacity: true)
            searched = 0
            start = 0
        } else if start > 1 << 20 {
            bytes.removeFirst(start)
            searched -= start
            start = 0
        }
        bytes.append(contentsOf: chunk)
    }

    /// The next complete line without its newline, or nil until one has arrived.
    mutating func nextLine() -> Data? {
        var i = max(searched, start)
        while i < bytes.count {
            bytesExamined += 1
            if bytes[i] == 0x0A {
                let line = Data(bytes[start..<i])
                start = i + 1
                searched = start
                return line
            }
            i += 1
        }
        searched = bytes.count
        return nil
    }
}
