import Foundation
import GRDB
import Store
import TestSupport
import XCTest

/// Attack review, mediums 2 and 3: a shard is another machine's file, and `merge` copied its rows as they were.
/// Each test poisons a real shard of the test library in one way and checks that the merge refuses it (naming
/// the shard and what is wrong) and that the target keeps what it held.
final class HostileShardTests: LibraryTestCase {
    var shard = ""

    override func setUpWithError() throws {
        try super.setUpWithError()
        for i in 0..<6 {
            try FileManager.default.createDirectory(atPath: library + "/Artist \(i % 2)", withIntermediateDirectories: true)
            try Synth.write(Synth.clicks(bpm: 90 + Double(i * 9), seconds: 6), to: library + "/Artist \(i % 2)/track \(i).flac",
                            format: .flac16)
        }
        XCTAssertEqual(try spindle(["analyze"]).status, 0)
        shard = dir + "/shard.db"
        XCTAssertEqual(try CLI.run(["--db", shard, "--library", library, "analyze"]).status, 0)
    }

    /// Runs `sql` on the shard through Spindle's own connection setup (its triggers call Spindle's functions).
    func poison(_ sql: String, _ arguments: StatementArguments = []) throws {
        try SpindleDatabase(path: shard).writer.write { db in try db.execute(sql: sql, arguments: arguments) }
    }

    func merge(timeout seconds: Int = 300) throws -> CLI.Result {
        try CLI.run(["-c", "exec timeout \(seconds) \"$0\" \"$@\"", CLI.executable, "--db", db, "--library", library, "merge", shard],
                    shell: true)
    }

    /// Every row of the target's files, tags and analyses, to show that a refused merge changed nothing.
    func targetRows() throws -> [String] {
        try SpindleDatabase(path: db).writer.read { db in
            try ["files", "tracks", "analysis"].flatMap { table in
                try Row.fetchAll(db, sql: "SELECT * FROM \(table) ORDER BY rowid").map { "\(table) \($0)" }
            }
        }
    }

    func assertRefused(_ result: CLI.Result, saying words: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(result.status, 2, result.stdout + result.stderr, file: file, line: line)
        XCTAssertTrue(result.stderr.contains(shard), "the message names the shard: " + result.stderr, file: file, line: line)
        XCTAssertTrue(result.stderr.contains(words), result.stderr, file: file, line: line)
    }

    // 2. Text in a number column, newer than the target's row: merged, it took down `serve` (SIGILL in a GRDB
    // row decode) and made `similar`, `genres build` and `run nightly` exit 132 every time.
    func testAShardWithTextInANumberColumnIsRefused() throws {
        let before = try targetRows()
        try poison("UPDATE analysis SET bpm = 'x', analyzed_at = strftime('%Y-%m-%d %H:%M:%f', 'now') WHERE file_id = 1")
        assertRefused(try merge(), saying: "analysis.bpm holds text")
        XCTAssertEqual(try targetRows(), before)
        XCTAssertEqual(try spindle(["similar", "Artist 0/track 0.flac"]).status, 0)
    }

    // 2. Readers never trap on a row: a value of the wrong kind that reached the database another way (a hand
    // edit, an older tool) is an error naming its file, and the command exits with it, not with SIGILL.
    func testAValueOfTheWrongKindInTheDatabaseIsAnErrorNamingItsFile() throws {
        try SpindleDatabase(path: db).writer.write { db in
            try db.execute(sql: """
                UPDATE analysis SET bpm = 'x', lufs_integrated = 'loud'
                WHERE file_id = (SELECT id FROM files WHERE path = 'Artist 1/track 3.flac')
                """)
        }
        for command in [["similar", "Artist 0/track 0.flac"], ["genres", "build"], ["tags", "write-analysis", "--dry-run"],
                        ["mix", "Artist 0/track 0.flac"]] {
            // Through bash, which reports a process killed by a signal as 128 + the signal (Process gives the bare
            // signal number, which reads like one of Spindle's exit codes).
            let r = try CLI.run(["-c", "\"$0\" \"$@\"; exit $?", CLI.executable, "--db", db, "--library", library] + command, shell: true)
            XCTAssertLessThan(r.status, 128, "\(command) was killed by a signal: " + r.stderr)
            XCTAssertFalse(r.stderr.contains("Fatal error"), r.stderr)
            XCTAssertTrue(r.status == 0 || (r.stdout + r.stderr).contains("Artist 1/track 3.flac"),
                          "\(command): exit \(r.status): " + r.stderr)
        }
    }

    // 3. Paths that are not plain relative paths: merged as present files, `playlists write` wrote
    // '../../lib/a/../../../outside/victim.flac' into a playlist.
    func testAShardPathThatIsNotAPlainRelativePathIsRefused() throws {
        let before = try targetRows()
        let pristine = try Data(contentsOf: URL(fileURLWithPath: shard))
        // SQL expressions: a Swift string is bound only up to its first NUL.
        for (path, words) in [("'Artist 0/../../../outside/victim.flac'", "has a '..' component"),
                              ("'/etc/outside/victim.flac'", "is absolute"),
                              ("'Artist 0/a' || char(0) || '/victim.flac'", "holds a NUL"),
                              ("'Artist 0//victim.flac'", "has an empty component")] {
            try pristine.write(to: URL(fileURLWithPath: shard))
            try poison("""
                UPDATE files SET path = \(path), name = 'victim.flac', changed_at = strftime('%Y-%m-%d %H:%M:%f', 'now') WHERE id = 1
                """)
            assertRefused(try merge(), saying: words)
            XCTAssertEqual(try targetRows(), before, path)
        }
    }

    // 3. A shard of another library that records no top-level folders skipped the same-library check, and its
    // merge marked every file of the target missing.
    func testAShardOfAnotherLibraryIsRefusedWhateverItsTopLevelSays() throws {
        let other = dir + "/other"
        try FileManager.default.createDirectory(atPath: other + "/Someone Else", withIntermediateDirectories: true)
        try Synth.write(Synth.clicks(bpm: 100, seconds: 6), to: other + "/Someone Else/x.flac", format: .flac16)
        try FileManager.default.removeItem(atPath: shard)
        XCTAssertEqual(try CLI.run(["--db", shard, "--library", other, "analyze", "--shard", "1/1"]).status, 0)
        try poison("UPDATE library_roots SET top_level = '[]'")
        let before = try targetRows()
        assertRefused(try merge(), saying: "different library")
        XCTAssertEqual(try targetRows(), before)
    }

    // 3. Times: a shard whose files changed in 2100 and went missing in 1970 had the target forget 11 of its 20
    // files with their analyses and frames.
    func testShardTimesCannotMakeTheTargetForgetItsFiles() throws {
        let pristine = try Data(contentsOf: URL(fileURLWithPath: shard))
        try poison("UPDATE files SET changed_at = '2100-01-01 00:00:00.000', status = 'missing', missing_since = '1970-01-01 00:00:00.000'")
        assertRefused(try merge(), saying: "files.changed_at is \"2100-01-01 00:00:00.000\"")
        // The same with a believable change time: the shard may say the files are gone, as a newer scan would,
        // but not that they were gone before the target last saw them, so none is forgotten tonight.
        try pristine.write(to: URL(fileURLWithPath: shard))
        try poison("""
            UPDATE files SET changed_at = strftime('%Y-%m-%d %H:%M:%f', 'now'), status = 'missing',
                             missing_since = '1970-01-01 00:00:00.000'
            """)
        let merged = try merge()
        XCTAssertEqual(merged.status, 0, merged.stdout + merged.stderr)
        let kept = try SpindleDatabase(path: db).writer.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM files JOIN analysis ON analysis.file_id = files.id")!
        }
        XCTAssertEqual(kept, 6, "every file keeps its row and its analysis")
    }

    // 3. A view in the shard's place of a table: an endless recursive one kept merge spinning with the run lock
    // held. Views of the shard could also call Spindle's SQL function.
    func testAPlantedViewIsRefusedBeforeItRuns() throws {
        let pristine = try Data(contentsOf: URL(fileURLWithPath: shard))
        try poison("""
            DROP TABLE scan_issues;
            CREATE VIEW scan_issues AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c)
            SELECT 'p' || x AS path, 'r' AS reason, '2020-01-01' AS seen_at, 1 AS root_id FROM c;
            """)
        assertRefused(try merge(timeout: 120), saying: "view scan_issues, which is not Spindle's")
        try pristine.write(to: URL(fileURLWithPath: shard))
        try poison("CREATE VIEW words AS SELECT spindle_path_words(path) FROM files")
        assertRefused(try merge(), saying: "view words, which is not Spindle's")
    }

    // 3. Frames out of proportion to the track: a 400 MB blob given to a 90-second track was merged, with merge
    // at 886 MB of memory.
    func testFramesOutOfProportionToTheirTrackAreRefused() throws {
        let pristine = try Data(contentsOf: URL(fileURLWithPath: shard))
        try poison("UPDATE vis_frames SET data = zeroblob(20000000) WHERE file_id = 1")
        assertRefused(try merge(), saying: "a length that is not its count of frames")
        try pristine.write(to: URL(fileURLWithPath: shard))
        try poison("UPDATE vis_frames SET data = zeroblob(20000000 / bands * bands), count = 20000000 / bands WHERE file_id = 1")
        assertRefused(try merge(), saying: "more frames than its length holds")
    }

    // 11. A garbage shard was "the database file is damaged… move it aside", naming no file; a hard link to the
    // target read "disk I/O error… disk may be full".
    func testAGarbageShardOrALinkToTheTargetIsNamedForWhatItIs() throws {
        try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: shard))
        assertRefused(try merge(), saying: "is not a Spindle database")
        XCTAssertFalse(try merge().stderr.contains("move it aside"))
        try FileManager.default.removeItem(atPath: shard)
        XCTAssertEqual(link(db, shard), 0)
        assertRefused(try merge(), saying: "is the target database itself")
    }
}
