import Foundation
import GRDB
import Store
import TestSupport
import XCTest

/// Attack review, low 6–8: what is in the served database's place, and how it changes under the server.
final class ServedDatabaseTests: XCTestCase {
    var dir = ""

    override func setUpWithError() throws {
        dir = try Synth.temporaryDirectory("ServedDatabaseTests")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: dir)
    }

    /// A copy of the shared fixture's database at `path`, with `sql` run on it.
    func copy(to path: String, _ sql: String = "SELECT 1") throws {
        let fixture = try ServerFixture.get()
        try SpindleDatabase(path: fixture.db).writer.writeWithoutTransaction { db in
            try db.execute(sql: "VACUUM INTO ?", arguments: [path])
        }
        try SpindleDatabase(path: path).writer.write { db in try db.execute(sql: sql) }
    }

    func health(_ port: Int) throws -> [String: Any] {
        let response = try RawHTTPClient.get(port: port, "/health")
        return try XCTUnwrap(response.json() as? [String: Any], response.text)
    }

    // 6. A FIFO in the database's place: SQLite's open blocked, every route hung for good, `/health` too.
    func testAFIFOInTheDatabasesPlaceIsA503() throws {
        let fifo = dir + "/spindle.db"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        try withServer(database: fifo, library: try ServerFixture.get().library) { port in
            let response = try RawHTTPClient.get(port: port, "/health")
            XCTAssertEqual(response.status, 503, response.text)
            XCTAssertTrue(response.text.contains("not a regular file"), response.text)
        }
    }

    // 7. A database copied over the served one's inode: its old counts were served for minutes.
    func testADatabaseCopiedOverTheServedOnesInodeIsReadAgain() throws {
        let served = dir + "/spindle.db", other = dir + "/other.db"
        try copy(to: served)
        try copy(to: other, "DELETE FROM analysis WHERE file_id IN (SELECT file_id FROM analysis LIMIT 2)")
        try withServer(database: served, library: try ServerFixture.get().library) { port in
            let before = try XCTUnwrap(try health(port)["profiles"] as? Int)
            var st = stat()
            XCTAssertEqual(stat(served, &st), 0)
            let inode = st.st_ino
            // What `cp other.db spindle.db` does: the same inode, truncated and written.
            let handle = try XCTUnwrap(FileHandle(forWritingAtPath: served))
            try handle.truncate(atOffset: 0)
            try handle.write(contentsOf: try Data(contentsOf: URL(fileURLWithPath: other)))
            try handle.close()
            XCTAssertEqual(stat(served, &st), 0)
            XCTAssertEqual(st.st_ino, inode)
            XCTAssertEqual(try health(port)["profiles"] as? Int, before - 2)
        }
    }

    // 8. Frames analysed again with another shape while a response sent them: bytes of both analyses went out
    // under the first one's head. A piece is read only while the frames are still those the head described.
    func testAPieceOfFramesIsReadOnlyWhileTheyKeepTheirShape() throws {
        let path = dir + "/spindle.db"
        try copy(to: path)
        let database = try SpindleDatabase(path: path)
        let (stored, rootId) = try database.writer.read { db in
            let rootId = try XCTUnwrap(try Int64.fetchOne(db, sql: "SELECT id FROM library_roots"))
            return (try XCTUnwrap(try ServeQueries.storedFrames(db, rootId: rootId, path: "Hiss/Album/01 Hiss.flac")), rootId)
        }
        XCTAssertGreaterThan(rootId, 0)
        let piece = { try database.writer.read { db in try ServeQueries.framesPiece(db, of: stored, offset: 0, count: stored.bands) } }
        XCTAssertEqual(try piece()?.count, stored.bands)
        // The same bytes in all, at half the bands and twice the rate.
        try database.writer.write { db in
            try db.execute(sql: "UPDATE vis_frames SET bands = bands / 2, fps = fps * 2, count = count * 2 WHERE file_id = ?",
                           arguments: [stored.fileId])
        }
        XCTAssertNil(try piece())
    }
}
