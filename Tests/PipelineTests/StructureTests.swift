import Analysis
import Foundation
import GRDB
@testable import Pipeline
import Store
import Tagging
import TestSupport
import XCTest

/// The structure issue's guarantees and the defects its review found: per-analyzer staleness, one worker
/// pool for inspect, every container FFmpeg decodes, genres per root, album keys, undo that can be retried,
/// pipeline fixers, and `analyze PATH` that names nothing.
final class StructureTests: LibraryTestCase {
    /// The analyzers a machine without the tagger's weights runs, as the tests' machines are.
    static let versionsRun = AnalyzerRegistry.versions.filter { AnalyzerRegistry.defaultNames.contains($0.key) }

    func clickTrack(_ path: String, seconds: Double = 10) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Synth.write(Synth.clicks(bpm: 120, seconds: seconds), to: path, format: .flac16)
    }

    /// The files an `analyze --json` run gave results: decoded, or (the click tracks here being identical)
    /// copied from one decoded.
    func resultsGiven(_ result: CLI.Result) throws -> Int? {
        XCTAssertEqual(result.status, 0, result.stderr)
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        guard let analyze = object?["analyze"] as? [String: Any], let analysed = analyze["analysed"] as? Int,
              let copied = analyze["copied"] as? Int else { return nil }
        return analysed + copied
    }

    func analysisRow(_ path: String) throws -> Row {
        let database = try SpindleDatabase(path: db)
        return try XCTUnwrap(try database.writer.read { db in
            try Row.fetchOne(db, sql: "SELECT a.* FROM analysis a JOIN files f ON f.id = a.file_id WHERE f.path = ?", arguments: [path])
        })
    }

    // A changed analyzer makes only its own results stale, and only it runs again.
    func testAChangedAnalyzerVersionReRunsThatAnalyzerAlone() throws {
        try clickTrack(library + "/a.flac")
        XCTAssertEqual(try spindle(["analyze"]).status, 0)
        let database = try SpindleDatabase(path: db)
        // As if the tempo estimator had changed: its stored version is old; loudness gets a sentinel value a
        // re-run would overwrite.
        try database.writer.write { db in
            try db.execute(sql: """
                UPDATE analysis SET analyzer_versions = json_set(analyzer_versions, '$.tempo', 0), lufs_integrated = 99, bpm = 1
                """)
        }
        XCTAssertEqual(try StatusReport.load(database: database).pending, 1)
        let r = try spindle(["analyze", "--json"])
        XCTAssertTrue(r.stdout.contains("\"analysed\": 1"), r.stdout)
        let row = try analysisRow("a.flac")
        XCTAssertEqual(row["lufs_integrated"] as Double?, 99, "loudness was current: not re-run")
        XCTAssertEqual(row["bpm"] as Double? ?? 0, 120, accuracy: 1, "tempo was stale: re-run")
        XCTAssertEqual(AnalysisVersions.decode(row["analyzer_versions"]), Self.versionsRun)
        XCTAssertTrue(try spindle(["analyze", "--json"]).stdout.contains("\"analysed\": 0"), "all current now")
    }

    // A newer Spindle's results (a newer analyzer version) are current to an older one: redoing them with older
    // code made two installs take turns analysing the whole library again.
    func testANewerAnalyzerVersionsResultsAreNotRedoneByAnOlderSpindle() throws {
        try clickTrack(library + "/a.flac")
        XCTAssertEqual(try spindle(["analyze"]).status, 0)
        let database = try SpindleDatabase(path: db)
        let newer = try XCTUnwrap(AnalyzerRegistry.versions["tempo"]) + 1
        try database.writer.write { db in
            try db.execute(sql: "UPDATE analysis SET analyzer_versions = json_set(analyzer_versions, '$.tempo', ?), bpm = 1",
                           arguments: [newer])
        }
        XCTAssertEqual(try StatusReport.load(database: database).pending, 0)
        XCTAssertTrue(try spindle(["analyze", "--json"]).stdout.contains("\"analysed\": 0"))
        XCTAssertEqual(try analysisRow("a.flac")["bpm"] as Double?, 1, "the newer result is kept")
        XCTAssertEqual(try spindle(["analyze", "--force", "--only", "tempo"]).status, 0)
        XCTAssertEqual(try analysisRow("a.flac")["bpm"] as Double? ?? 0, 120, accuracy: 1, "--force still redoes it")
    }

    func testOnlyTempoKeepsTheOtherResults() throws {
        try clickTrack(library + "/a.flac")
        XCTAssertEqual(try spindle(["analyze"]).status, 0)
        let before = try analysisRow("a.flac")
        XCTAssertEqual(try spindle(["analyze", "--force", "--only", "tempo"]).status, 0)
        let after = try analysisRow("a.flac")
        XCTAssertEqual(after["lufs_integrated"] as Double?, before["lufs_integrated"] as Double?)
        XCTAssertEqual(after["frames_count"] as Int?, before["frames_count"] as Int?)
        XCTAssertEqual(AnalysisVersions.decode(after["analyzer_versions"]), Self.versionsRun)
    }

    // inspect, analyze and bench run the same workers and give the same per-file results; a file that
    // crashes a worker costs that file only, in inspect too.
    func testInspectRunsInWorkersWithTheSameResultsAsAnalyze() throws {
        try clickTrack(library + "/a.flac")
        try clickTrack(library + "/boom.flac")
        XCTAssertEqual(try spindle(["analyze", "a.flac"]).status, 0)
        let r = try CLI.run(["inspect", "--json", library + "/a.flac", library + "/boom.flac"],
                            environment: ["SPINDLE_TEST_FAULT": "crash:boom"])
        XCTAssertEqual(r.status, 3, r.stderr)
        let lines = r.stdout.split(separator: "\n").map { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        XCTAssertEqual(lines.count, 2)
        let a = try XCTUnwrap(lines[0] ?? nil)
        let row = try analysisRow("a.flac")
        XCTAssertEqual(a["bpm"] as? Double ?? 0, row["bpm"] as Double? ?? -1, accuracy: 0.01)
        XCTAssertEqual(a["lufs_integrated"] as? Double ?? 0, row["lufs_integrated"] as Double? ?? -1, accuracy: 0.01)
        XCTAssertEqual(a["frames_count"] as? Int, row["frames_count"] as Int?)
        let boom = try XCTUnwrap(lines[1] ?? nil)
        XCTAssertEqual(boom["status"] as? String, "error")
        XCTAssertTrue((boom["error"] as? String)?.contains("SIGSEGV") ?? false, "\(boom)")
        let bench = try CLI.run(["bench", "--json", "--jobs", "1", library + "/a.flac"])
        XCTAssertEqual(bench.status, 0, bench.stderr)
        let shares = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(bench.stdout.utf8)) as? [String: Any])?["analyzer_share"] as? [String: Double])
        XCTAssertEqual(Set(shares.keys), AnalyzerRegistry.defaultNames.union(["mono mix"]))
    }

    // TTA, Musepack, AC-3, E-AC-3, FLAC and Opus in MP4, Matroska, RF64, and a WAV whose header says its
    // data chunk is empty: all decoded (through FFmpeg where libsndfile cannot) and analysed.
    func testEveryContainerFFmpegDecodesIsAnalysed() throws {
        guard Synth.run("ffmpeg", ["-version"]) == 0 else { throw XCTSkip("needs the ffmpeg command") }
        try Synth.write(Synth.clicks(bpm: 120, seconds: 10), to: dir + "/src.wav", format: .wav16)
        let specs: [(String, [String])] = [
            ("a.tta", ["-c:a", "tta"]), ("b.ac3", ["-c:a", "ac3"]), ("c.eac3", ["-c:a", "eac3"]),
            ("d-flac.mp4", ["-c:a", "flac", "-strict", "-2"]), ("e-opus.mp4", ["-c:a", "libopus", "-strict", "-2"]),
            ("f.mka", ["-c:a", "flac"]), ("g.wav", ["-c:a", "pcm_s16le", "-rf64", "always"]),
        ]
        var expected = specs.map(\.0)
        for (name, args) in specs {
            XCTAssertEqual(Synth.run("ffmpeg", ["-y", "-loglevel", "error", "-i", dir + "/src.wav"] + args + [library + "/" + name]), 0, name)
        }
        if Synth.run("mpcenc", ["--help"]) != nil {
            XCTAssertEqual(Synth.run("mpcenc", ["--silent", dir + "/src.wav", library + "/h.mpc"]), 0)
            expected.append("h.mpc")
        }
        // A WAV whose data chunk claims 0 bytes (a recorder that never went back to write the size).
        var wav = try Data(contentsOf: URL(fileURLWithPath: dir + "/src.wav"))
        if let range = wav.range(of: Data("data".utf8)) {
            wav.replaceSubrange(range.upperBound..<(range.upperBound + 4), with: [0, 0, 0, 0])
        }
        try wav.write(to: URL(fileURLWithPath: library + "/i.wav"))
        expected.append("i.wav")
        let r = try spindle(["analyze", "--json"])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("\"analysed\": \(expected.count)"), r.stdout)
        for name in expected {
            let row = try analysisRow(name)
            XCTAssertEqual(row["status"] as String?, "ok", name)
            XCTAssertEqual(row["duration_s"] as Double? ?? 0, 10, accuracy: 0.1, name)
            XCTAssertEqual(row["bpm"] as Double? ?? 0, 120, accuracy: 2, name)
        }
    }

    // Two libraries in one database may hold the same relative path: genres are built per library.
    func testGenresBuildWithTwoRootsHoldingTheSamePath() throws {
        let other = dir + "/other"
        for root in [library, other] {
            for i in 0..<3 { try clickTrack(root + "/Album/\(i).flac") }
        }
        XCTAssertEqual(try spindle(["analyze"]).status, 0)
        XCTAssertEqual(try CLI.run(["--db", db, "--library", other, "analyze"]).status, 0)
        let build = try CLI.run(["--db", db, "--library", other, "genres", "build", "--json"])
        XCTAssertEqual(build.status, 0, build.stderr)
        // It ran as a run: lock taken, `runs` row written.
        let database = try SpindleDatabase(path: db)
        XCTAssertEqual(try database.writer.read { try String.fetchOne($0, sql: "SELECT kind FROM runs ORDER BY id DESC") }, "genres build")
    }

    // A track at the library root, with an album and no artist: its album is named and its gain written.
    func testWriteAnalysisForTracksAtTheLibraryRoot() throws {
        guard Synth.run("ffmpeg", ["-version"]) == 0 else { throw XCTSkip("needs the ffmpeg command") }
        try Synth.write(Synth.sine(frequency: 1000, seconds: 5, amplitude: 0.3), to: dir + "/src.wav", format: .wav16)
        XCTAssertEqual(Synth.run("ffmpeg", ["-y", "-loglevel", "error", "-i", dir + "/src.wav", "-c:a", "flac",
                                            "-metadata", "album=Loose", library + "/single.flac"]), 0)
        XCTAssertEqual(try spindle(["analyze"]).status, 0)
        let r = try spindle(["tags", "write-analysis", "--replaygain"])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        let tags = try TagReader.read(path: library + "/single.flac")
        XCTAssertNotNil(tags.first("REPLAYGAIN_ALBUM_GAIN"), "\(tags.properties)")
        XCTAssertEqual(tags.first("REPLAYGAIN_ALBUM_GAIN"), tags.first("REPLAYGAIN_TRACK_GAIN"), "an album of one")
    }

    // An undo that fails on a file (here: a file-size limit) leaves the batch open: the next undo retries it.
    func testAnUndoThatFailsCanBeRetriedAndDoesNotSkipToAnOlderBatch() throws {
        try Synth.write(Synth.noise(seconds: 20, rmsDBFS: -20), to: library + "/a.flac", format: .flac16)
        XCTAssertEqual(try spindle(["tags", "set", "a.flac", "--set", "TITLE=First"]).status, 0)
        XCTAssertEqual(try spindle(["tags", "set", "a.flac", "--set", "COMMENT=" + String(repeating: "c", count: 60_000)]).status, 0)
        // Undoing the comment removes 60 KB: TagLib rewrites the whole file, past the limit.
        let size = try FileManager.default.attributesOfItem(atPath: library + "/a.flac")[.size] as! Int
        let limited = try CLI.run(["-c", "trap '' XFSZ; ulimit -f \(size / 1024 - 64); exec \"$0\" \"$@\"", CLI.executable,
                                   "--db", db, "--library", library, "tags", "undo", "--last"], shell: true)
        XCTAssertEqual(limited.status, 3, limited.stdout + limited.stderr)
        XCTAssertNotNil(try TagReader.read(path: library + "/a.flac").first("COMMENT"))
        let retry = try spindle(["tags", "undo", "--last"])
        XCTAssertEqual(retry.status, 0, retry.stdout + retry.stderr)
        XCTAssertTrue(retry.stdout.contains("batch #2"), retry.stdout)
        let tags = try TagReader.read(path: library + "/a.flac")
        XCTAssertNil(tags.first("COMMENT"))
        XCTAssertEqual(tags.first("TITLE"), "First", "the older batch was not undone instead")
    }

    func testPipelineFixersKeepAllowCustom() throws {
        let path = dir + "/fix.toml"
        try "[pipeline]\nstages = [\"tagfix\"]\n[tagfix]\nfixers = [\"whitespace\"]\nallow_custom = true\n"
            .write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertEqual(try PipelineFile.load(path: path).tagfix?.allowCustom, true)
    }

    // `analyze PATH` reads PATH relative to the library root first; a path that names nothing is an error.
    func testAnalyzePathsAreRelativeToTheRootAndAPathThatMatchesNothingIsAnError() throws {
        try clickTrack(library + "/Artist/Album/1.flac")
        try clickTrack(library + "/Artist/Album/2.flac")
        try clickTrack(library + "/Other/3.flac")
        XCTAssertEqual(try resultsGiven(spindle(["analyze", "--json", "Artist/Album"])), 2)
        let missing = try spindle(["analyze", "Artist/Nope.flac"])
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("matches no file of the library"), missing.stderr)
        XCTAssertTrue(missing.stderr.contains(library + "/Artist/Nope.flac"), missing.stderr)
    }

    /// Paths as a shell hands them over: `./Artist//Album/`, and `.` or `..` taken from the current folder
    /// inside the library. Each had matched no file (`frames ./x` was "not a plain path").
    func testAnalyzeAndFramesTakePathsAsAShellTypesThem() throws {
        try clickTrack(library + "/Artist/Album/1.flac")
        try clickTrack(library + "/Artist/Album/2.flac")
        try clickTrack(library + "/Other/3.flac")
        /// `spindle ARGUMENTS...` run from `folder`.
        func from(_ folder: String, _ arguments: [String]) throws -> CLI.Result {
            try CLI.run(["--db", db, "--library", library] + arguments, folder: folder)
        }
        XCTAssertEqual(try resultsGiven(spindle(["analyze", "--json", "./Artist//Album/"])), 2)
        XCTAssertEqual(try resultsGiven(from(library + "/Other", ["analyze", "--json", "."])), 1)
        XCTAssertEqual(try resultsGiven(from(library + "/Artist", ["analyze", "--json", "--force", ".."])), 3)
        let frames = try spindle(["frames", "./Other/3.flac"])
        XCTAssertEqual(frames.status, 0, frames.stderr)
        XCTAssertTrue(frames.stdout.contains("frames ×"), frames.stdout)
        // A folder is named as one, not as "a symlink swapped in".
        let folder = try spindle(["frames", "Other"])
        XCTAssertNotEqual(folder.status, 0)
        XCTAssertTrue(folder.stderr.contains("Other: a folder, not a file"), folder.stderr)
        // So is the library's own folder, which had been called "outside the library root".
        for typed in [library, "."] {
            let root = try from(library, ["frames", typed])
            XCTAssertNotEqual(root.status, 0)
            XCTAssertTrue(root.stderr.contains("\(typed): the library root, a folder, not a file"), root.stderr)
        }
    }
}
