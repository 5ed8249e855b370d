import Foundation
import GRDB
import Library
import Store
import TestSupport
import XCTest

/// Libraries beyond one machine: `analyze --shard K/N` run by GNU parallel, folded back with `spindle merge`.
final class ShardTests: LibraryTestCase {
    func makeLibrary(_ count: Int) throws {
        for i in 0..<count {
            let bpm = 90 + Double(i * 7 % 60)
            try FileManager.default.createDirectory(atPath: library + "/Artist \(i % 3)", withIntermediateDirectories: true)
            try Synth.write(Synth.clicks(bpm: bpm, seconds: 8), to: library + "/Artist \(i % 3)/track \(i).flac", format: .flac16)
        }
    }

    /// Every analysis column but timings, and the frames, by path.
    func snapshot(_ path: String) throws -> [String: [String: DatabaseValue]] {
        let database = try SpindleDatabase(path: path)
        return try database.writer.read { db in
            var out: [String: [String: DatabaseValue]] = [:]
            for row in try Row.fetchAll(db, sql: """
                SELECT f.path, a.*, v.data AS frames FROM files f JOIN analysis a ON a.file_id = f.id
                LEFT JOIN vis_frames v ON v.file_id = f.id
                """) {
                var columns: [String: DatabaseValue] = [:]
                for (name, value) in row where !["file_id", "analyzed_at", "seconds", "path"].contains(name) { columns[name] = value }
                out[row["path"]] = columns
            }
            return out
        }
    }

    func testThreeShardsThroughGNUParallelMergeToTheSingleProcessResult() throws {
        guard Synth.run("parallel", ["--version"]) == 0 else { throw XCTSkip("needs GNU parallel (scripts/test.sh installs it)") }
        try makeLibrary(9)
        let single = dir + "/single.db"
        XCTAssertEqual(try CLI.run(["--db", single, "--library", library, "analyze"]).status, 0)
        let script = "parallel --halt now,fail=1 '\(CLI.executable)' --db '\(dir)/shard{}.db' --library '\(library)' analyze --shard {}/3 ::: 1 2 3"
        let parallel = try CLI.run(["-c", script], shell: true)
        XCTAssertEqual(parallel.status, 0, parallel.stdout + parallel.stderr)
        let shardFiles = try (1...3).map { try snapshot(dir + "/shard\($0).db").count }
        XCTAssertEqual(shardFiles.reduce(0, +), 9, "each file in exactly one shard: \(shardFiles)")
        let merged = dir + "/merged.db"
        let merge = try CLI.run(["merge", "--into", merged] + (1...3).map { dir + "/shard\($0).db" })
        XCTAssertEqual(merge.status, 0, merge.stderr)
        let expected = try snapshot(single)
        let got = try snapshot(merged)
        XCTAssertEqual(Set(got.keys), Set(expected.keys))
        for (path, columns) in expected { XCTAssertEqual(got[path], columns, path) }
        // Twice changes nothing.
        let again = try CLI.run(["merge", "--into", merged] + (1...3).map { dir + "/shard\($0).db" })
        XCTAssertEqual(again.status, 0)
        XCTAssertEqual(try snapshot(merged), got)
        let database = try SpindleDatabase(path: merged)
        XCTAssertEqual(try database.writer.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM runs WHERE origin IS NOT NULL") }, 3)
        // The merged database is a library like any other: genres build there.
        XCTAssertEqual(try CLI.run(["--db", merged, "--library", library, "genres", "build"]).status, 0)
    }

    func testShardKeysDependOnThePathOnly() throws {
        let a = try Shard(parsing: "2/8")
        XCTAssertEqual(Shard.key("Artist/Album/01 Song.flac"), 0x556e_84ac_fa3e_055f, "FNV-1a 64 of the UTF-8 path (computed independently in Python)")
        let paths = (0..<8000).map { "Artist \($0 % 97)/Album \($0 % 13)/\($0).flac" }
        let counts = (1...8).map { k in paths.filter { try! Shard(index: k, count: 8).contains($0) }.count }
        XCTAssertEqual(counts.reduce(0, +), 8000)
        XCTAssertLessThan(Double(counts.max()!) / 1000, 1.1, "balanced by count: \(counts)")
        XCTAssertEqual(a.contains(paths[5]), Shard.key(paths[5]) % 8 == 1)
        XCTAssertThrowsError(try Shard(parsing: "0/3"))
        XCTAssertThrowsError(try Shard(parsing: "4/3"))
        XCTAssertThrowsError(try Shard(parsing: "two"))
        XCTAssertEqual(try spindle(["analyze", "--shard", "5/4"]).status, 2)
    }

    /// A shard of 100,000 synthetic rows with frames, merged after a small real one; killed while the WAL
    /// grows (mid-transaction), the target keeps the first shard only; rerun, it equals an uninterrupted merge.
    func testAKillDuringMergeLeavesTheTargetAsBeforeThatShard() throws {
        try makeLibrary(3)
        let small = dir + "/small.db"
        XCTAssertEqual(try CLI.run(["--db", small, "--library", library, "analyze"]).status, 0)
        let big = dir + "/big.db"
        let source = try SpindleDatabase(path: small)
        let top: String = try source.writer.read { try String.fetchOne($0, sql: "SELECT top_level FROM library_roots")! }
        let bigDB = try SpindleDatabase(path: big)
        try bigDB.writer.write { db in
            try db.execute(sql: "INSERT INTO library_roots (path, added_at, top_level) VALUES (?, ?, ?)", arguments: [library, Date(), top])
            try db.execute(sql: """
                WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100000)
                INSERT INTO files (root_id, path, name, size, mtime_ns, content_key, status, first_seen_at, changed_at)
                SELECT 1, 'generated/' || x || '.flac', x || '.flac', 1000, 0, 'k' || x, 'present', '2026-01-01', '2026-01-01' FROM c
                """)
            try db.execute(sql: """
                INSERT INTO analysis (file_id, content_key, analyzer_version, analyzed_at, status, bpm, duration_s)
                SELECT id, content_key, 3, '2026-01-01', 'ok', 120, 1.0 FROM files
                """)
            try db.execute(sql: "INSERT INTO vis_frames (file_id, fps, bands, count, data) SELECT id, 30, 32, 32, randomblob(1024) FROM files")
        }
        let target = dir + "/target.db"
        let run = try CLI.start(["merge", "--into", target, small, big])
        let deadline = Date().addingTimeInterval(120)
        func walSize() -> Int {
            ((try? FileManager.default.attributesOfItem(atPath: target + "-wal"))?[.size] as? NSNumber)?.intValue ?? 0
        }
        // The small shard commits a few pages; past 20 MB the big shard's transaction is under way.
        while walSize() < 20 << 20, run.isRunning, Date() < deadline { usleep(5000) }
        XCTAssertTrue(run.isRunning, "the kill must land during the big shard's merge")
        kill(run.processIdentifier, SIGKILL)
        run.waitUntilExit()
        let killed = try SpindleDatabase(path: target)
        XCTAssertEqual(try killed.writer.read { try String.fetchOne($0, sql: "PRAGMA integrity_check") }, "ok")
        XCTAssertEqual(try killed.writer.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM files") }, 3, "as before the big shard")
        XCTAssertEqual(try CLI.run(["merge", "--into", target, small, big]).status, 0)
        let clean = dir + "/clean.db"
        XCTAssertEqual(try CLI.run(["merge", "--into", clean, small, big]).status, 0)
        let count = "SELECT COUNT(*), SUM(length(v.data)) FROM files f JOIN analysis a ON a.file_id = f.id JOIN vis_frames v ON v.file_id = f.id"
        let a = try SpindleDatabase(path: target).writer.read { try Row.fetchOne($0, sql: count)! }
        let b = try SpindleDatabase(path: clean).writer.read { try Row.fetchOne($0, sql: count)! }
        XCTAssertEqual(a, b)
        XCTAssertEqual(a[0] as Int, 100_003)
    }

    /// A library that grows between nights (an import spread over several nights, new artists each month)
    /// still merges. The target kept the top-level folders of its first merge: once the library had grown
    /// from 3 to 7 artist folders, its shards shared 43 % of them and every merge was refused as another
    /// library's, for good.
    func testALibraryThatGrowsBetweenMergesStillMerges() throws {
        try makeLibrary(3)
        let merged = dir + "/merged.db"
        func night() throws -> CLI.Result {
            for k in 1...2 {
                let shard = try CLI.run(["--db", dir + "/shard\(k).db", "--library", library, "analyze", "--shard", "\(k)/2"])
                XCTAssertEqual(shard.status, 0, shard.stderr)
            }
            return try CLI.run(["merge", "--into", merged, dir + "/shard1.db", dir + "/shard2.db"])
        }
        XCTAssertEqual(try night().status, 0)
        for i in 3..<7 {
            try FileManager.default.createDirectory(atPath: library + "/New Artist \(i)", withIntermediateDirectories: true)
            try Synth.write(Synth.clicks(bpm: 100 + Double(i), seconds: 3), to: library + "/New Artist \(i)/a.flac", format: .flac16)
        }
        let grown = try night()
        XCTAssertEqual(grown.status, 0, grown.stderr)
        XCTAssertEqual(try snapshot(merged).count, 7)
    }

    /// What the shards saw go, the merged database sees go: a deleted file, and a renamed one (its old path
    /// missing, whether the new path falls in the same shard or another), and a file put back is present
    /// again. Before, the merge copied only rows whose content had changed, so a merged library kept every
    /// file it had ever held as present, and a file that moved was there twice.
    func testFilesThatGoOrMoveBetweenMergesAreMissingInTheMergedDatabase() throws {
        try makeLibrary(9)
        let merged = dir + "/merged.db"
        func night() throws {
            for k in 1...2 {
                let shard = try CLI.run(["--db", dir + "/shard\(k).db", "--library", library, "analyze", "--shard", "\(k)/2"])
                XCTAssertEqual(shard.status, 0, shard.stderr)
            }
            let merge = try CLI.run(["merge", "--into", merged, dir + "/shard1.db", dir + "/shard2.db"])
            XCTAssertEqual(merge.status, 0, merge.stderr)
        }
        func present() throws -> Set<String> {
            Set(try SpindleDatabase(path: merged).writer.read { db in
                try String.fetchAll(db, sql: "SELECT path FROM files WHERE status = 'present'")
            })
        }
        try night()
        let fm = FileManager.default
        try fm.moveItem(atPath: library + "/Artist 0/track 0.flac", toPath: dir + "/track 0.flac")
        // Renamed within its folder under several names: some land in the same shard, some in the other.
        for i in [1, 2, 4, 5] {
            try fm.moveItem(atPath: library + "/Artist \(i % 3)/track \(i).flac", toPath: library + "/Artist \(i % 3)/renamed \(i).flac")
        }
        try night()
        var onDisk = Set(try fm.subpathsOfDirectory(atPath: library).filter { $0.hasSuffix(".flac") })
        XCTAssertEqual(try present(), onDisk)
        let analysed = try SpindleDatabase(path: merged).writer.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM files f JOIN analysis a ON a.file_id = f.id WHERE f.status = 'present'")
        }
        XCTAssertEqual(analysed, onDisk.count)
        try fm.moveItem(atPath: dir + "/track 0.flac", toPath: library + "/Artist 0/track 0.flac")
        try night()
        onDisk.insert("Artist 0/track 0.flac")
        XCTAssertEqual(try present(), onDisk)
    }

    func testIncompatibleShardsAreRefused() throws {
        try makeLibrary(1)
        let shard = dir + "/shard.db"
        XCTAssertEqual(try CLI.run(["--db", shard, "--library", library, "analyze"]).status, 0)
        // Another library: different top-level folders.
        let other = dir + "/other"
        try FileManager.default.createDirectory(atPath: other + "/Someone Else", withIntermediateDirectories: true)
        try Synth.write(Synth.clicks(bpm: 100, seconds: 8), to: other + "/Someone Else/x.flac", format: .flac16)
        let otherDB = dir + "/other.db"
        XCTAssertEqual(try CLI.run(["--db", otherDB, "--library", other, "analyze"]).status, 0)
        let mixed = try CLI.run(["merge", "--into", dir + "/t.db", shard, otherDB])
        XCTAssertEqual(mixed.status, 2)
        XCTAssertTrue(mixed.stderr.contains("different library"), mixed.stderr)
        // An older schema version.
        let old = dir + "/old.db"
        _ = try SpindleDatabase(path: old, upTo: "v6-tags")
        let older = try CLI.run(["merge", "--into", dir + "/t2.db", old])
        XCTAssertEqual(older.status, 2)
        XCTAssertTrue(older.stderr.contains("older Spindle"), older.stderr)
        // Not a database, and the target itself.
        try "text".write(toFile: dir + "/notes.db", atomically: true, encoding: .utf8)
        XCTAssertNotEqual(try CLI.run(["merge", "--into", dir + "/t3.db", dir + "/notes.db"]).status, 0)
        let same = try CLI.run(["merge", "--into", shard, shard])
        XCTAssertEqual(same.status, 2)
        XCTAssertTrue(same.stderr.contains("target database itself"), same.stderr)
    }
}
