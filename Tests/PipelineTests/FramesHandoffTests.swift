import Analysis
import Foundation
import GRDB
import GRDBSQLite
@testable import Pipeline
@testable import Store
import TestSupport
import XCTest

/// The visualiser frames grow with the track. They came back from a worker as base64 inside its JSON reply,
/// and the run's own process held six times them at once: a 3-hour file took it from 64 to 127 MB, a day-long
/// recording would take it past a small server's memory, and the run with it. Now they go through a file
/// beside the database, which SQLite reads in pieces.
final class FramesHandoffTests: LibraryTestCase {
    /// A job in the worker's protocol, written out by hand so that it reads the same to every version.
    private func workerReply(to job: String) throws -> (line: String, reply: [String: Any]) {
        let settings = String(decoding: try JSONEncoder().encode(WorkerSettings(analysis: AnalysisOptions())), as: UTF8.self)
        let jobFile = dir + "/job.jsonl"
        try (job + "\n").write(toFile: jobFile, atomically: true, encoding: .utf8)
        let result = try CLI.run(["-c", #"exec "$0" worker --settings "$1" < "$2""#, CLI.executable, settings, jobFile], shell: true)
        XCTAssertEqual(result.status, 0, result.stderr)
        let line = try XCTUnwrap(result.stdout.split(separator: "\n").first.map(String.init), result.stderr)
        return (line, try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]))
    }

    private func json(_ s: String) -> String { String(decoding: try! JSONEncoder().encode(s), as: UTF8.self) }

    func testAWorkerAskedForAFileLeavesTheFramesThereAndAnswersInAFewLines() throws {
        let track = dir + "/minute.wav"
        try Synth.write(Synth.noise(seconds: 60, rmsDBFS: -20, channels: 1), to: track, format: .wav16, channels: 1)
        let folder = dir + "/handoff"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let (line, reply) = try workerReply(to: #"{"id":5,"kind":"analyze","path":\#(json(track)),"profile":false,"frames":{"file":{"folder":\#(json(folder))}}}"#)
        // A minute of frames is 57,600 bytes, 76,800 in base64: the reply holds the other results only.
        XCTAssertLessThan(line.utf8.count, 8000)
        let file = try XCTUnwrap(reply["framesFile"] as? String, "no frames file in \(line.prefix(300))")
        XCTAssertTrue(file.hasPrefix(folder + "/"))
        let handedOver = try XCTUnwrap(FileManager.default.contents(atPath: file))
        let direct = try XCTUnwrap(FileAnalysis.run(path: track, options: AnalysisOptions()).analysis?.frames)
        XCTAssertEqual(direct.count, 1800)
        XCTAssertEqual(handedOver, direct.data)

        // `inspect` prints the count only: the bytes are left out, the count stays.
        let (counted, _) = try workerReply(to: #"{"id":6,"kind":"analyze","path":\#(json(track)),"profile":false,"frames":{"leftOut":{}}}"#)
        XCTAssertLessThan(counted.utf8.count, 8000)
        XCTAssertTrue(counted.contains(#""frames_count""#), String(counted.prefix(300)))
    }

    func testAnalysedFramesAreStoredWholeAndNoHandOffFolderOutlivesTheRun() throws {
        let long = library + "/long.wav", short = library + "/short.flac"
        try Synth.write(Synth.noise(seconds: 40, rmsDBFS: -20), to: long, format: .wav16)
        try Synth.write(Synth.sine(frequency: 440, seconds: 3), to: short, format: .flac16)
        // A run killed mid-stage left its folder; another file of that name stays.
        let abandoned = db + ".frames-999999"
        try FileManager.default.createDirectory(atPath: abandoned, withIntermediateDirectories: false)
        FileManager.default.createFile(atPath: abandoned + "/999999-0", contents: Data(count: 64))
        let unrelated = db + ".frames-notes"
        FileManager.default.createFile(atPath: unrelated, contents: Data("mine".utf8))

        let run = try spindle(["analyze"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let stored = try SpindleDatabase(path: db).writer.read { db in
            try Row.fetchAll(db, sql: "SELECT f.path, v.fps, v.bands, v.count, v.data FROM vis_frames v JOIN files f ON f.id = v.file_id ORDER BY f.path")
        }
        XCTAssertEqual(stored.map { $0["path"] as String }, ["long.wav", "short.flac"])
        for row in stored {
            let path: String = row["path"]
            let direct = try XCTUnwrap(FileAnalysis.run(path: library + "/" + path, options: AnalysisOptions()).analysis?.frames)
            XCTAssertEqual(row["count"] as Int, direct.count, path)
            XCTAssertEqual(row["bands"] as Int, direct.bands, path)
            XCTAssertEqual(row["data"] as Data, direct.data, path)
        }
        XCTAssertEqual(stored.first.map { $0["count"] as Int }, 1200)

        let beside = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix("spindle.db.frames-") }
        XCTAssertEqual(beside, ["spindle.db.frames-notes"])
        // Stored in the database, the files are read back as before.
        let frames = try spindle(["frames", "long.wav", "--json"])
        XCTAssertEqual(frames.status, 0, frames.stderr)
        XCTAssertEqual((try JSONSerialization.jsonObject(with: Data(frames.stdout.utf8)) as? [[Double]])?.count, 1200)
    }

    /// The frames a worker handed over in a file and the same frames given as bytes (where no file could be
    /// written) make the same row, whichever replaces the other.
    func testFramesFromAFileAndFromBytesAreStoredAlike() throws {
        try Synth.write(Synth.sine(frequency: 440, seconds: 2), to: library + "/a.flac", format: .flac16)
        XCTAssertEqual(try spindle(["scan"]).status, 0)
        let database = try SpindleDatabase(path: db)
        let fileId = try XCTUnwrap(try database.writer.read { try Int64.fetchOne($0, sql: "SELECT id FROM files") })
        let frames = Data((0..<(3000 * 32)).map { UInt8(($0 * 7) % 256) })
        let handoff = dir + "/handoff"
        FileManager.default.createFile(atPath: handoff, contents: frames)
        func stored() throws -> Row? {
            try database.writer.read { try Row.fetchOne($0, sql: "SELECT fps, bands, count, data FROM vis_frames WHERE file_id = ?", arguments: [fileId]) }
        }
        for source in [VisFramesWrite.Source.file(path: handoff), .bytes(frames), .file(path: handoff)] {
            try database.writer.write { db in
                try VisFramesWrite(fileId: fileId, fps: 30, bands: 32, count: 3000, source: source).store(db)
            }
            let row = try XCTUnwrap(try stored())
            XCTAssertEqual(row["data"] as Data, frames, "\(source)")
            XCTAssertEqual(row["count"] as Int, 3000)
            XCTAssertEqual(row["bands"] as Int, 32)
        }
        // A hand-off file that does not hold the frames it should is refused, not stored short.
        FileManager.default.createFile(atPath: handoff, contents: frames.prefix(1000))
        XCTAssertThrowsError(try database.writer.write { db in
            try VisFramesWrite(fileId: fileId, fps: 30, bands: 32, count: 3000, source: .file(path: handoff)).store(db)
        })
        XCTAssertEqual(try stored()?["data"] as Data?, frames)
    }

    /// Frames longer than SQLite keeps a value (past 9 hours at 120 fps × 256 bands) failed the commit of the
    /// whole batch they were in, at every run. They are stored at a k-th of the rate, each level the loudest of
    /// k frames, and the analysis row says so. (The limit is lowered here to 1000 bytes.)
    func testFramesLongerThanSQLiteKeepsAreStoredAtALowerRate() throws {
        try Synth.write(Synth.sine(frequency: 440, seconds: 2), to: library + "/a.flac", format: .flac16)
        XCTAssertEqual(try spindle(["analyze"]).status, 0)
        let database = try SpindleDatabase(path: db)
        let fileId = try XCTUnwrap(try database.writer.read { try Int64.fetchOne($0, sql: "SELECT id FROM files") })
        // 300 frames of 8 bands: 2400 bytes, 125 frames to the limit: 3 frames to one, 100 stored.
        let frames = Data((0..<(300 * 8)).map { (i: Int) -> UInt8 in UInt8((i * 37 + i / 8) % 251) })
        var expected = Data()
        for first in Swift.stride(from: 0, to: 300, by: 3) {
            for band in 0..<8 { expected.append((first..<(first + 3)).map { (f: Int) -> UInt8 in frames[f * 8 + band] }.max()!) }
        }
        let handoff = dir + "/handoff"
        FileManager.default.createFile(atPath: handoff, contents: frames)
        // The bytes as a slice too, whose indices do not start at 0.
        for source in [VisFramesWrite.Source.file(path: handoff), .bytes(frames), .bytes((Data([9, 9, 9]) + frames).dropFirst(3))] {
            try database.writer.write { db in
                let limit = sqlite3_limit(db.sqliteConnection, SQLITE_LIMIT_LENGTH, 1000)
                defer { sqlite3_limit(db.sqliteConnection, SQLITE_LIMIT_LENGTH, limit) }
                try VisFramesWrite(fileId: fileId, fps: 30, bands: 8, count: 300, source: source).store(db)
            }
            let row = try XCTUnwrap(try database.writer.read {
                try Row.fetchOne($0, sql: """
                    SELECT v.fps, v.count, v.data, a.frames_fps, a.frames_count FROM vis_frames v JOIN analysis a USING (file_id)
                    WHERE file_id = ?
                    """, arguments: [fileId])
            })
            XCTAssertEqual(row["data"] as Data, expected, "\(source)")
            XCTAssertEqual(row["count"] as Int, 100)
            XCTAssertEqual(row["fps"] as Double, 10)
            XCTAssertEqual(row["frames_count"] as Int, 100)
            XCTAssertEqual(row["frames_fps"] as Double, 10)
        }
        XCTAssertEqual(VisFramesWrite.step(count: 300, bands: 8, limit: 2400), 1)
        XCTAssertEqual(VisFramesWrite.step(count: 300, bands: 8, limit: 2399), 2)
        XCTAssertEqual(VisFramesWrite.step(count: 120 * 3600 * 10, bands: 256, limit: 1_000_000_000), 2)
    }

    /// Frames a hand-off file cannot take (a full disk: here the file size limit) come back into memory, what
    /// the file took read back first, and go in the reply whole, as when no file could be made; the file goes.
    func testFramesAFileCannotTakeGoInTheReplyWhole() throws {
        let path = dir + "/handoff-full"
        let pieces = (0..<3).map { k in Data((0..<100_000).map { (i: Int) -> UInt8 in UInt8((i * 3 + k) % 256) }) }
        var limit = rlimit()
        XCTAssertEqual(getrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit), 0)
        let previous = signal(SIGXFSZ, SIG_IGN)
        var small = limit
        small.rlim_cur = 150_000
        XCTAssertEqual(setrlimit(Int32(RLIMIT_FSIZE.rawValue), &small), 0)
        let sink = HandoffSink(path: path)
        for piece in pieces { piece.withUnsafeBytes { sink.write($0) } }
        XCTAssertEqual(setrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit), 0)
        signal(SIGXFSZ, previous)
        var outcome = FileAnalysisOutcome(path: path)
        outcome.analysis = TrackAnalysis(values: [:], versions: [:], frameCount: 0, timings: [:])
        XCTAssertNil(sink.finish(&outcome))
        XCTAssertEqual(outcome.analysis?.values["vis_frames"]?.data, pieces.reduce(Data(), +))
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))

        // Written whole, they are in the file, and not in the reply.
        let fine = HandoffSink(path: path)
        for piece in pieces { piece.withUnsafeBytes { fine.write($0) } }
        var written = FileAnalysisOutcome(path: path)
        written.analysis = TrackAnalysis(values: [:], versions: [:], frameCount: 0, timings: [:])
        XCTAssertEqual(fine.finish(&written), path)
        XCTAssertNil(written.analysis?.values["vis_frames"])
        XCTAssertEqual(FileManager.default.contents(atPath: path), pieces.reduce(Data(), +))
    }
}
