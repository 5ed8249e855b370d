import Foundation
import GRDB
import GRDBSQLite

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

    /// How many frames make one stored frame: 1, unless the frames are longer than SQLite keeps a value
    /// (`limit`: 1,000,000,000 bytes unless SQLite was built otherwise). At 120 fps × 256 bands that is a
    /// recording over 9 hours, an audiobook in one file; its row failed the commit of its whole batch, night
    /// after night. Such frames are kept at a k-th of the rate instead, each level the loudest of k frames.
    static func step(count: Int, bands: Int, limit: Int) -> Int {
        let perValue = bands > 0 ? limit / bands : 0
        guard count * bands > limit, perValue > 0 else { return 1 }
        return (count + perValue - 1) / perValue
    }

    /// Upserts the row; throws when a hand-off file cannot be read or does not hold `count` frames of `bands` bytes.
    func store(_ db: Database) throws {
        let step = Self.step(count: count, bands: bands, limit: Int(sqlite3_limit(db.sqliteConnection, SQLITE_LIMIT_LENGTH, -1)))
        switch source {
        case .bytes(let data) where step == 1:
            try upsert(db, data: data, size: data.count, fps: fps, count: count)
        case .bytes(let data):
            var offset = 0
            try fill(db, step: step) { buffer in
                let n = min(buffer.count, data.count - offset)
                data.copyBytes(to: buffer.bindMemory(to: UInt8.self), from: (data.startIndex + offset)..<(data.startIndex + offset + n))
                offset += n
                return n
            }
        case .file(let path):
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw Unreadable("cannot read the visualiser frames of file \(fileId) at \(path): \(String(cString: strerror(errno)))") }
            defer { close(fd) }
            var info = stat()
            guard fstat(fd, &info) == 0, Int(info.st_size) == count * bands else {
                throw Unreadable("the visualiser frames of file \(fileId) at \(path) are not \(count) frames of \(bands) bytes")
            }
            try fill(db, step: step) { buffer in
                while true {
                    let n = read(fd, buffer.baseAddress!, buffer.count)
                    if n < 0, errno == EINTR { continue }
                    guard n >= 0 else { throw Unreadable("cannot read the visualiser frames of file \(fileId) at \(path): \(String(cString: strerror(errno)))") }
                    return n
                }
            }
        }
    }

    /// The row, with `data`, or with a zero blob of `size` bytes when `data` is nil.
    private func upsert(_ db: Database, data: Data?, size: Int, fps: Double, count: Int) throws {
        try db.execute(sql: """
            INSERT INTO vis_frames (file_id, fps, bands, count, data) VALUES (?, ?, ?, ?, coalesce(?, zeroblob(?)))
            ON CONFLICT(file_id) DO UPDATE SET fps = excluded.fps, bands = excluded.bands, count = excluded.count,
                                               data = excluded.data
            """, arguments: [fileId, fps, bands, count, data, size])
    }

    /// Makes the row with a zero blob and fills it a piece at a time from `read` (which fills some of the buffer
    /// it is given and says how much, 0 at the end), `step` frames to each stored one.
    private func fill(_ db: Database, step: Int, read: (UnsafeMutableRawBufferPointer) throws -> Int) throws {
        let stored = (count + step - 1) / step
        try upsert(db, data: nil, size: stored * bands, fps: fps / Double(step), count: stored)
        if step > 1 {
            // The analysis row says what the frames row holds.
            try db.execute(sql: "UPDATE analysis SET frames_fps = ?, frames_count = ? WHERE file_id = ?",
                           arguments: [fps / Double(step), stored, fileId])
        }
        let total = count * bands
        guard total > 0 else { return }
        let blob = try FramesBlob(db, fileId: fileId, writable: true)
        // Whole groups of `step` frames per piece, so that a stored frame never spans two pieces.
        let group = step * bands
        var input = [UInt8](repeating: 0, count: min(total, max(group, Self.piece / group * group)))
        var output = [UInt8](repeating: 0, count: step > 1 ? (input.count + step - 1) / step : 0)
        var consumed = 0, written = 0
        while consumed < total {
            let want = min(input.count, total - consumed)
            var have = 0
            while have < want {
                let n = try input.withUnsafeMutableBytes { try read(UnsafeMutableRawBufferPointer(rebasing: $0[have..<want])) }
                guard n > 0 else { throw Unreadable("the visualiser frames of file \(fileId) ended early") }
                have += n
            }
            consumed += have
            if step == 1 {
                try input.withUnsafeBytes { try blob.write(UnsafeRawBufferPointer(rebasing: $0[0..<have]), at: written) }
                written += have
                continue
            }
            let frames = have / bands
            var o = 0
            for first in Swift.stride(from: 0, to: frames, by: step) {
                for band in 0..<bands {
                    var loudest: UInt8 = 0
                    for frame in first..<min(first + step, frames) { loudest = max(loudest, input[frame * bands + band]) }
                    output[o] = loudest
                    o += 1
                }
            }
            try output.withUnsafeBytes { try blob.write(UnsafeRawBufferPointer(rebasing: $0[0..<o]), at: written) }
            written += o
        }
    }
}
