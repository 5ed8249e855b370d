import Foundation
import GRDB
@testable import Pipeline
import Store
import TestSupport
import XCTest

/// Files with the same bytes (the same download in two folders, an album copied beside the original) are
/// decoded once: each had been decoded and analysed again, as long as the first.
final class AnalysisCopiesTests: LibraryTestCase {
    private func analyse(_ extra: [String] = []) throws -> [String: Any] {
        let r = try spindle(["analyze", "--json"] + extra)
        XCTAssertEqual(r.status, 0, r.stderr)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], r.stdout)
        return try XCTUnwrap(object["analyze"] as? [String: Any], r.stdout)
    }

    /// Each file's stored results, from every analysis column that is not about the run, and its frames.
    private func results() throws -> [String: String] {
        let database = try SpindleDatabase(path: db)
        return try database.writer.read { db in
            let skip: Set<String> = ["file_id", "analyzed_at", "seconds"]
            let columns = try db.columns(in: "analysis").map(\.name).filter { !skip.contains($0) }
            return try Dictionary(uniqueKeysWithValues: Row.fetchAll(db, sql: """
                SELECT f.path, \(columns.map { "quote(a.\($0))" }.joined(separator: " || '|' || ")) || '|' || quote(v.data)
                FROM files f JOIN analysis a ON a.file_id = f.id LEFT JOIN vis_frames v ON v.file_id = f.id
                """).map { ($0[0] as String, $0[1] as String) })
        }
    }

    func testIdenticalFilesAreDecodedOnce() throws {
        try Synth.write(Synth.clicks(bpm: 120, seconds: 6), to: library + "/a.flac", format: .flac16)
        try Synth.write(Synth.clicks(bpm: 97, seconds: 6), to: library + "/b.flac", format: .flac16)
        try Synth.write(Synth.noise(seconds: 6, rmsDBFS: -30, seed: 3), to: library + "/w.wav", format: .wav16)
        try FileManager.default.createDirectory(atPath: library + "/Copy", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: library + "/a.flac", toPath: library + "/Copy/a.flac")
        // The same size, first and last 64 KiB (so the same content key) with a loud stretch in the middle:
        // other audio, decoded on its own.
        var bytes = try Data(contentsOf: URL(fileURLWithPath: library + "/w.wav"))
        let middle = bytes.count / 2
        for i in 0..<8192 { bytes[middle + i] = i % 2 == 0 ? 0x00 : 0x70 }
        try bytes.write(to: URL(fileURLWithPath: library + "/Copy/w.wav"))

        let first = try analyse()
        XCTAssertEqual(first["analysed"] as? Int, 4, "\(first)")
        XCTAssertEqual(first["copied"] as? Int, 1, "\(first)")
        var stored = try results()
        XCTAssertEqual(stored.count, 5)
        XCTAssertEqual(stored["Copy/a.flac"], stored["a.flac"])
        XCTAssertNotEqual(stored["Copy/w.wav"], stored["w.wav"], "the same content key, other bytes: analysed apart")

        // A copy made later takes the results of the file analysed before.
        try FileManager.default.createDirectory(atPath: library + "/Again", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: library + "/b.flac", toPath: library + "/Again/b.flac")
        let later = try analyse()
        XCTAssertEqual(later["analysed"] as? Int, 0, "\(later)")
        XCTAssertEqual(later["copied"] as? Int, 1, "\(later)")
        stored = try results()
        XCTAssertEqual(stored["Again/b.flac"], stored["b.flac"])

        // --force decodes one of each set again.
        let forced = try analyse(["--force"])
        XCTAssertEqual(forced["analysed"] as? Int, 4, "\(forced)")
        XCTAssertEqual(forced["copied"] as? Int, 2, "\(forced)")
        XCTAssertEqual(try results(), stored)
        let text = try spindle(["analyze", "--force"]).stdout
        XCTAssertTrue(text.contains("analyze: 4 analysed (0 partial), 2 copies of identical files given their results, 0 failed"), text)
    }

    /// The summary's speed is the decoded audio over the time spent decoding: finding and filling copies
    /// (reading them whole, copying rows) had counted as decoding time, and a library of copies read slow.
    func testTheSpeedLeavesOutTheTimeSpentOnCopies() {
        var report = AnalyzeStage.Report()
        report.analysed = 5
        report.copied = 1995
        report.audioSeconds = 100
        report.seconds = 10
        report.copySeconds = 8
        var outcome = LibraryJobs.Outcome(runId: 1)
        outcome.analysis = report
        XCTAssertTrue(outcome.summary().contains("1995 copies of identical files given their results, 0 failed, 50× real time"),
                      outcome.summary())
    }

    /// A copy of a file that cannot be decoded fails as it does, with its reason, and is not counted as analysed.
    func testACopyOfAFileThatFailsFailsWithItsReason() throws {
        let garbage = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 2654435761 >> 7) })
        try FileManager.default.createDirectory(atPath: library + "/Copy", withIntermediateDirectories: true)
        for path in ["/x.mp3", "/Copy/x.mp3"] { try garbage.write(to: URL(fileURLWithPath: library + path)) }
        try Synth.write(Synth.clicks(bpm: 120, seconds: 3), to: library + "/a.flac", format: .flac16)
        let r = try spindle(["analyze", "--json"])
        XCTAssertEqual(r.status, 3, r.stderr)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let analyze = try XCTUnwrap(object["analyze"] as? [String: Any])
        XCTAssertEqual(analyze["analysed"] as? Int, 1, "\(analyze)")
        XCTAssertEqual(analyze["failed"] as? Int, 2, "\(analyze)")
        XCTAssertEqual(analyze["copied"] as? Int, 0, "\(analyze)")
        let status = try spindle(["status", "--json"]).stdout
        let failures = try XCTUnwrap((JSONSerialization.jsonObject(with: Data(status.utf8)) as? [String: Any])?["failures"] as? [[String: Any]])
        XCTAssertEqual(Set(failures.compactMap { $0["path"] as? String }), ["x.mp3", "Copy/x.mp3"])
        XCTAssertEqual(Set(failures.compactMap { $0["error"] as? String }).count, 1, "one reason: \(failures)")
    }
}
