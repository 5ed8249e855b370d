import Foundation
import GRDB
import Store
import TestSupport
import XCTest

/// Files that leave the library: kept for a while (a folder moved out and back keeps its analysis), then
/// forgotten with their results, so that the database of a library whose files come and go does not grow for good.
final class MissingFilesTests: LibraryTestCase {
    func write(_ relative: String, bpm: Double) throws {
        let path = library + "/" + relative
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try Synth.write(Synth.clicks(bpm: bpm, seconds: 4), to: path, format: .flac16)
    }

    /// Rows per table of what a file leaves in the database, by path.
    func leftovers(_ path: String) throws -> [String: Int] {
        try SpindleDatabase(path: db).writer.read { db in
            var out: [String: Int] = [:]
            for table in ["files", "tracks", "analysis", "vis_frames", "run_files"] {
                let column = table == "files" ? "id" : "file_id"
                out[table] = try Int.fetchOne(db, sql: """
                    SELECT COUNT(*) FROM \(table) WHERE \(column) IN (SELECT id FROM files WHERE path = ?)
                    """, arguments: [path])!
            }
            return out
        }
    }

    func json(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// Makes every missing file of the database look missing since `days` ago.
    func age(missingFiles days: Double, database path: String? = nil) throws {
        try SpindleDatabase(path: path ?? db).writer.write { db in
            try db.execute(sql: "UPDATE files SET missing_since = ? WHERE status = 'missing'",
                           arguments: [Date().addingTimeInterval(-days * 86_400)])
        }
    }

    /// A file the index holds that cannot be reached when its turn comes (gone since the scan, a disk not
    /// mounted, no permission) failed with an analysis row of its content: current, so when it was back it
    /// stayed failed until it changed, and a forced run wiped the results and the tags it had. Nothing is
    /// stored for it now.
    func testAFileThatCouldNotBeReachedIsAnalysedWhenItIsBackAndKeepsWhatItHad() throws {
        try write("A/away.flac", bpm: 100)
        try write("A/stays.flac", bpm: 130)
        let analyzeOnly = dir + "/analyze-only.toml", forced = dir + "/forced.toml"
        try "[pipeline]\nname = \"analyze only\"\nstages = [\"analyze\"]\n".write(toFile: analyzeOnly, atomically: true, encoding: .utf8)
        try "[pipeline]\nname = \"forced\"\nstages = [\"tags\", \"analyze\"]\nforce = true\n".write(toFile: forced, atomically: true, encoding: .utf8)
        XCTAssertEqual(try spindle(["scan"]).status, 0)
        let away = library + "/A/away.flac"
        // Gone after the scan, before its analysis: a pipeline without a scan stage.
        try FileManager.default.moveItem(atPath: away, toPath: dir + "/away.flac")
        let failed = try spindle(["run", analyzeOnly])
        XCTAssertEqual(failed.status, 3, failed.stdout + failed.stderr)
        XCTAssertTrue(try spindle(["status"]).stdout.contains("A/away.flac: cannot stat"))
        try FileManager.default.moveItem(atPath: dir + "/away.flac", toPath: away)
        let back = try spindle(["run", analyzeOnly])
        XCTAssertEqual(back.status, 0, back.stdout + back.stderr)
        XCTAssertTrue(back.stdout.contains("analyze: 1 analysed (0 partial), 0 failed"), back.stdout)
        XCTAssertFalse(try spindle(["status"]).stdout.contains("cannot stat"))

        func loudness() throws -> Double? {
            try SpindleDatabase(path: db).writer.read {
                try Double.fetchOne($0, sql: "SELECT lufs FROM smart_dj_profiles WHERE relative_path = 'A/away.flac'")
            }
        }
        let measured = try XCTUnwrap(try loudness())
        try FileManager.default.moveItem(atPath: away, toPath: dir + "/away.flac")
        func tags() throws -> Row? {
            try SpindleDatabase(path: db).writer.read {
                try Row.fetchOne($0, sql: "SELECT t.error, t.duration_s FROM tracks t JOIN files f ON f.id = t.file_id WHERE f.path = 'A/away.flac'")
            }
        }
        let read = try XCTUnwrap(try tags())
        XCTAssertNil(read["error"] as String?)
        let run = try spindle(["run", forced])
        XCTAssertEqual(run.status, 3)
        XCTAssertTrue(run.stdout.contains("tags: 1 read, 1 failed"), run.stdout)
        XCTAssertEqual(try loudness(), measured)
        XCTAssertEqual(try tags(), read)
        // Back: the next run reads its tags and decodes it again, and status no longer lists it.
        try FileManager.default.moveItem(atPath: dir + "/away.flac", toPath: away)
        let after = try spindle(["run", "nightly"])
        XCTAssertEqual(after.status, 0, after.stdout + after.stderr)
        XCTAssertTrue(after.stdout.contains("tags: 1 read, 0 failed"), after.stdout)
        XCTAssertTrue(after.stdout.contains("analyze: 1 analysed (0 partial), 0 failed"), after.stdout)
        XCTAssertFalse(try spindle(["status"]).stdout.contains("cannot stat"))
        XCTAssertEqual(try loudness(), measured)
    }

    func testAFileMissingForAMonthIsForgottenWithItsResults() throws {
        try write("A/gone.flac", bpm: 100)
        try write("A/stays.flac", bpm: 130)
        XCTAssertEqual(try spindle(["analyze"]).status, 0)
        let gone = library + "/A/gone.flac"
        try FileManager.default.moveItem(atPath: gone, toPath: dir + "/gone.flac")
        XCTAssertEqual(try spindle(["analyze"]).status, 0)
        XCTAssertEqual(try leftovers("A/gone.flac"), ["files": 1, "tracks": 1, "analysis": 1, "vis_frames": 1, "run_files": 2])

        // Missing for 29 days: kept, and a file put back is the file it was, its analysis kept.
        try age(missingFiles: 29)
        let kept = try spindle(["analyze", "--json"])
        XCTAssertEqual(kept.status, 0, kept.stderr)
        XCTAssertEqual((try json(kept.stdout)["scan"] as? [String: Any])?["forgotten"] as? Int, 0, kept.stdout)
        try FileManager.default.moveItem(atPath: dir + "/gone.flac", toPath: gone)
        let back = try spindle(["analyze"])
        XCTAssertTrue(back.stdout.contains("analyze: 0 analysed"), back.stdout)

        // Missing for 31 days: forgotten, with its tags, analysis, frames and journal; the other file is untouched.
        try FileManager.default.moveItem(atPath: gone, toPath: dir + "/gone.flac")
        XCTAssertEqual(try spindle(["analyze"]).status, 0)
        try age(missingFiles: 31)
        let forgotten = try spindle(["analyze"])
        XCTAssertEqual(forgotten.status, 0, forgotten.stderr)
        XCTAssertTrue(forgotten.stdout.contains("; 1 missing for over 30 days forgotten, with their results"), forgotten.stdout)
        XCTAssertEqual(try leftovers("A/gone.flac"), ["files": 0, "tracks": 0, "analysis": 0, "vis_frames": 0, "run_files": 0])
        XCTAssertEqual(try leftovers("A/stays.flac"), ["files": 1, "tracks": 1, "analysis": 1, "vis_frames": 1, "run_files": 2])
        let status = try spindle(["status", "--json"])
        XCTAssertEqual(try json(status.stdout)["files_missing"] as? Int, 0, status.stdout)
        // Back after that, it is a new file.
        try FileManager.default.moveItem(atPath: dir + "/gone.flac", toPath: gone)
        XCTAssertTrue(try spindle(["analyze"]).stdout.contains("analyze: 1 analysed"))
    }

    func testAConfigOfZeroDaysKeepsMissingFilesForGood() throws {
        try write("A/gone.flac", bpm: 100)
        try write("A/stays.flac", bpm: 130)
        let config = dir + "/spindle.toml"
        try "[scan]\nforget_missing_after_days = 0\n".write(toFile: config, atomically: true, encoding: .utf8)
        XCTAssertEqual(try spindle(["--config", config, "analyze"]).status, 0)
        try FileManager.default.removeItem(atPath: library + "/A/gone.flac")
        XCTAssertEqual(try spindle(["--config", config, "analyze"]).status, 0)
        try age(missingFiles: 3650)
        XCTAssertEqual(try spindle(["--config", config, "analyze"]).status, 0)
        XCTAssertEqual(try leftovers("A/gone.flac")["analysis"], 1)
        // A negative number is a mistake, named.
        try "[scan]\nforget_missing_after_days = -1\n".write(toFile: config, atomically: true, encoding: .utf8)
        let wrong = try spindle(["--config", config, "scan"])
        XCTAssertEqual(wrong.status, 2)
        XCTAssertTrue(wrong.stderr.contains("forget_missing_after_days"), wrong.stderr)
    }

    func testAMergedDatabaseForgetsWhatItsShardsSawGo() throws {
        try write("A/gone.flac", bpm: 100)
        try write("B/stays.flac", bpm: 130)
        let shard = dir + "/shard.db", merged = dir + "/merged.db"
        func analyzeShard() throws { XCTAssertEqual(try CLI.run(["--db", shard, "--library", library, "analyze", "--shard", "1/1"]).status, 0) }
        func merge() throws -> CLI.Result { try CLI.run(["--library", library, "merge", "--into", merged, shard]) }
        try analyzeShard()
        XCTAssertEqual(try merge().status, 0)
        try FileManager.default.removeItem(atPath: library + "/A/gone.flac")
        try analyzeShard()
        XCTAssertEqual(try merge().status, 0)
        try age(missingFiles: 31, database: merged)
        try age(missingFiles: 31, database: shard)
        let forgetting = try merge()
        XCTAssertEqual(forgetting.status, 0, forgetting.stderr)
        XCTAssertTrue(forgetting.stdout.contains("1 files missing longer than kept forgotten"), forgetting.stdout)
        let paths = try SpindleDatabase(path: merged).writer.read { try String.fetchAll($0, sql: "SELECT path FROM files") }
        XCTAssertEqual(paths, ["B/stays.flac"])
    }
}
