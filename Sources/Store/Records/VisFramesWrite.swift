import Foundation
import GRDB

/// A file's visualiser frames to store in `vis_frames`: the bytes themselves, or the file a worker left them in
/// (its hand-off), which is read in a piece at a time: the row is made with a zero blob of the file's size,
/// which `FramesBlob` then fills, so a long recording's frames never sit in memory whole.
public struct VisFramesWrite: Sendable {
    public enum Source: Sendable {
        case bytes(Data)
        case file(path: String)
    }

    public var fileId: Int64
    public var fps: Double
    public var bands: Int
    public var count: Int
    public var source: Source

    public init(fileId: Int64, fps: Double, bands: Int, count: Int, source: Source) {
        self.fileId = fileId; self.fps = fps; self.bands = bands; self.count = count; self.source = source
    }

    /// The hand-off file is missing, short or unreadable.
    public struct Unreadable: Error, CustomStringConvertible, Sendable {
        public var description: String
        init(_ description: String) { self.description = description }
    }

    /// 1 MiB: enough that the copy costs nothing beside the analysis.
    static let piece = 1 << 20

    /// Upserts the row; throws when a hand-off file cannot be read or does not hold `count` frames of `bands` bytes.
    func store(_ db: Database) throws {
        switch source {
        case .bytes(let data):
            try upsert(db, data: data, size: data.count)
        case .file(let path):
            try store(db, from: path)
        }
    }

    /// The row, with `data`, or with a zero blob of `size` bytes when `data` is nil.
    private func upsert(_ db: Database, data: Data?, size: Int) throws {
        try db.execute(sql: """
            INSERT INTO vis_frames (file_id, fps, bands, count, data) VALUES (?, ?, ?, ?, coalesce(?, zeroblob(?)))
            ON CONFLICT(file_id) DO UPDATE SET fps = excluded.fps, bands = excluded.bands, count = excluded.count,
                                               data = excluded.data
            """, arguments: [fileId, fps, bands, count, data, size])
    }

    private func store(_ db: Database, from path: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Unreadable("cannot read the visualiser frames of file \(fileId) at \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, Int(info.st_size) == count * bands else {
            throw Unreadable("the visualiser frames of file \(fileId) at \(path) are not \(count) frames of \(bands) bytes")
        }
        let size = count * bands
        try upsert(db, data: nil, size: size)
        guard size > 0 else { return }
        let blob = try FramesBlob(db, fileId: fileId, writable: true)
        var buffer = [UInt8](repeating: 0, count: min(size, Self.piece))
        var offset = 0
        while offset < size {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, min($0.count, size - offset)) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { throw Unreadable("the visualiser frames of file \(fileId) at \(path) ended early") }
            try buffer.withUnsafeBytes { try blob.write(UnsafeRawBufferPointer(rebasing: $0[0..<n]), at: offset) }
            offset += n
        }
    }
}
