import Foundation
import GRDB
import Store
import TestSupport
import XCTest

/// A disk that cannot deliver a file's bytes (a failing disk, a btrfs or ZFS checksum that no longer matches,
/// a share that dropped) is not the file's damage. The decoders took the read error for the end of the file or
/// for bad data, and what decoded before it was stored as the file's results for good ("partial: truncated"),
/// over the good ones a forced run had; a read error in a file's first bytes read as "empty file (0 bytes)".
final class ReadErrorTests: LibraryTestCase {
    var disk: BadSectorDisk!

    override func setUpWithError() throws {
        try super.setUpWithError()
        disk = try BadSectorDisk(image: dir + "/disk.img", mountPoint: library)
        addTeardownBlock { [disk] in disk?.remove() }
    }

    /// Clicks over noise, so that every block of the file is its own and can be found in the disk's image.
    @discardableResult
    func write(_ relative: String, bpm: Double, seed: UInt64) throws -> String {
        let path = library + "/" + relative
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        let clicks = Synth.clicks(bpm: bpm, seconds: 12), noise = Synth.noise(seconds: 12, rmsDBFS: -30, seed: seed)
        try Synth.write(zip(clicks, noise).map { $0 + $1 }, to: path, format: .flac16)
        return path
    }

    func loudness(_ path: String) throws -> Double? {
        try SpindleDatabase(path: db).writer.read {
            try Double.fetchOne($0, sql: "SELECT lufs FROM smart_dj_profiles WHERE relative_path = ?", arguments: [path])
        }
    }

    func size(_ path: String) throws -> Int {
        try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
    }

    func testAReadErrorStoresNothingKeepsWhatTheFileHadAndIsTriedAgain() throws {
        let song = try write("A/song.flac", bpm: 100, seed: 1)
        try write("A/other.flac", bpm: 120, seed: 2)
        XCTAssertEqual(try spindle(["analyze"]).status, 0)
        let measured = try XCTUnwrap(try loudness("A/song.flac"))

        // A block in the middle of an analysed file and of one not analysed yet goes bad.
        let fresh = try write("A/fresh.flac", bpm: 140, seed: 3)
        XCTAssertEqual(try spindle(["scan"]).status, 0)
        try disk.spoil(song, at: try size(song) / 2)
        try disk.spoil(fresh, at: try size(fresh) / 2)
        let forced = dir + "/forced.toml"
        try "[pipeline]\nname = \"forced\"\nstages = [\"tags\", \"analyze\"]\nforce = true\n"
            .write(toFile: forced, atomically: true, encoding: .utf8)
        let run = try spindle(["run", forced])
        XCTAssertEqual(run.status, 3, run.stdout + run.stderr)
        XCTAssertTrue(run.stdout.contains("analyze: 1 analysed (0 partial), 2 failed"), run.stdout)
        let status = try spindle(["status"]).stdout
        XCTAssertTrue(status.contains("A/song.flac: a read error at byte "), status)
        XCTAssertTrue(status.contains("A/fresh.flac: a read error at byte "), status)
        XCTAssertEqual(try loudness("A/song.flac"), measured)
        XCTAssertNil(try loudness("A/fresh.flac"))
        let inspected = try CLI.run(["inspect", song])
        XCTAssertTrue(inspected.stdout.contains("error: a read error at byte"), inspected.stdout + inspected.stderr)
        XCTAssertFalse(inspected.stdout.contains("partial"), inspected.stdout)

        // Not read, so the next run reads both again: still unreadable, the one keeps what it had.
        let again = try spindle(["analyze"])
        XCTAssertTrue(again.stdout.contains("analyze: 0 analysed (0 partial), 2 failed"), again.stdout)
        XCTAssertEqual(try loudness("A/song.flac"), measured)

        // The disk reads them again (a share back, a block rewritten from a mirror): the next run analyses both,
        // and status no longer lists them.
        try disk.mend()
        let healed = try spindle(["analyze"])
        XCTAssertEqual(healed.status, 0, healed.stdout + healed.stderr)
        XCTAssertTrue(healed.stdout.contains("analyze: 2 analysed (0 partial), 0 failed"), healed.stdout)
        XCTAssertFalse(try spindle(["status"]).stdout.contains("read error"))
        XCTAssertTrue(try spindle(["analyze"]).stdout.contains("analyze: 0 analysed"))
        XCTAssertEqual(try loudness("A/song.flac"), measured)
        XCTAssertNotNil(try loudness("A/fresh.flac"))
    }

    /// A read error in the first bytes: the file is not empty, and a scan then keeps no key made of the bytes
    /// before the error, nor tags read from them, once the disk reads it again.
    func testAReadErrorInAFilesFirstBytesIsSaidAndItsKeyAndTagsAreReadWhenItHeals() throws {
        let song = try write("A/song.flac", bpm: 100, seed: 4)
        try Synth.setFLACComments(["TITLE=Heard", "ARTIST=Someone"], path: song)
        try disk.spoil(song, at: 20_000)
        let inspected = try CLI.run(["inspect", song])
        XCTAssertTrue(inspected.stdout.contains("error: a read error at byte 16384 of"), inspected.stdout + inspected.stderr)
        XCTAssertFalse(inspected.stdout.contains("empty file"), inspected.stdout)
        XCTAssertEqual(try spindle(["analyze"]).status, 3)
        func row() throws -> Row? {
            try SpindleDatabase(path: db).writer.read {
                try Row.fetchOne($0, sql: "SELECT f.content_key, t.title FROM files f LEFT JOIN tracks t ON t.file_id = f.id")
            }
        }
        XCTAssertNil(try row()?["content_key"] as String?)
        try disk.mend()
        XCTAssertEqual(try spindle(["analyze"]).status, 0)
        XCTAssertNotNil(try row()?["content_key"] as String?)
        XCTAssertEqual(try row()?["title"] as String?, "Heard")
    }
}
