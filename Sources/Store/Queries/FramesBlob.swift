import Foundation
import GRDB
import GRDBSQLite

/// A `vis_frames` row's frames through SQLite's incremental blob I/O, a piece at a time: a long recording's
/// frames (100 MB for a 30-hour audiobook) pass through a fixed buffer on their way in (`VisFramesWrite`)
/// and out (`ServeQueries.framesPiece`), instead of sitting in memory whole, several times over.
struct FramesBlob: ~Copyable {
    private let handle: OpaquePointer
    let size: Int

    init(_ db: Database, fileId: Int64, writable: Bool) throws {
        var handle: OpaquePointer?
        let code = sqlite3_blob_open(db.sqliteConnection, "main", "vis_frames", "data", fileId, writable ? 1 : 0, &handle)
        guard code == SQLITE_OK, let handle else {
            sqlite3_blob_close(handle)
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "the frames of file \(fileId): "
                                + String(cString: sqlite3_errmsg(db.sqliteConnection)))
        }
        self.handle = handle
        size = Int(sqlite3_blob_bytes(handle))
    }

    deinit { sqlite3_blob_close(handle) }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws {
        try check(sqlite3_blob_read(handle, buffer.baseAddress, Int32(buffer.count), Int32(offset)), "reading")
    }

    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws {
        try check(sqlite3_blob_write(handle, bytes.baseAddress, Int32(bytes.count), Int32(offset)), "writing")
    }

    private func check(_ code: Int32, _ doing: String) throws {
        guard code == SQLITE_OK else { throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "\(doing) a frames blob") }
    }
}
