@testable import Analysis
import Foundation
import GRDB
import TestSupport
import XCTest

/// The tagger as a user meets it: off, and said so, until its weights are in place; then in `inspect`, with a
/// bounded number of patches however long the track.
final class TaggerTests: XCTestCase {
    var dir = ""

    override func setUpWithError() throws {
        dir = try Synth.temporaryDirectory("TaggerTests")
        try FileManager.default.createDirectory(atPath: dir + "/music/A", withIntermediateDirectories: true)
        try Synth.write(Synth.chords(Synth.cadence(tonic: 2, minor: false), timbre: .organ), to: dir + "/music/A/one.flac", format: .flac16)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    func testTheTaggerIsOffAndSaysHowToEnableItUntilItsWeightsAreFound() throws {
        let env = ["SPINDLE_MODELS_DIR": dir + "/models", "XDG_DATA_HOME": dir + "/data", "HOME": dir]
        let off = try CLI.run(["--db", dir + "/s.db", "--library", dir + "/music", "analyze"], environment: env)
        XCTAssertEqual(off.status, 0, off.stderr)
        XCTAssertEqual(off.stderr.components(separatedBy: "the tagger is off").count, 2, "said once: \(off.stderr)")
        XCTAssertTrue(off.stderr.contains("fetch-musicnn.py"), off.stderr)
        let asked = try CLI.run(["--db", dir + "/s.db", "--library", dir + "/music", "analyze", "--only", "tagger"], environment: env)
        XCTAssertEqual(asked.status, 2, "asked for by name without weights: \(asked.stderr)")
        let inspectOff = try CLI.run(["inspect", "--json", dir + "/music/A/one.flac"], environment: env)
        XCTAssertTrue(inspectOff.stdout.contains("\"top_tags\":null"), inspectOff.stdout)

        try MusicnnFormulaWeights.write(into: dir + "/models")
        let on = try CLI.run(["inspect", "--json", dir + "/music/A/one.flac"], environment: env)
        XCTAssertEqual(on.status, 0, on.stderr)
        XCTAssertFalse(on.stderr.contains("tagger is off"), on.stderr)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(on.stdout.utf8)) as? [String: Any])
        let top = try XCTUnwrap(object["top_tags"] as? [[String: Any]], on.stdout)
        XCTAssertEqual(top.count, 5)
        XCTAssertTrue(top.allSatisfy { MusicnnTags.names.contains($0["tag"] as? String ?? "") && ($0["probability"] as? Double ?? -1) >= 0 })
    }

    /// Patches are spread over the stream and no more than `keep` are held, however long it is; a stream shorter
    /// than one patch is repeated to fill it.
    func testPatchesAreBoundedAndSpreadOverAStreamOfAnyLength() {
        let rate = 22050, second = [Float]((0..<22050).map { sin(Float($0) * 0.05) * 0.3 })
        for (seconds, expected) in [(1, 1), (10, 3), (300, 6)] {
            let patches = MelPatches(sampleRate: rate, keep: 6)
            for _ in 0..<seconds { second.withUnsafeBufferPointer { patches.consume($0) } }
            let out = patches.finish()
            XCTAssertEqual(out.count, expected, "\(seconds) s")
            XCTAssertTrue(out.allSatisfy { $0.count == MusicnnNetwork.frames * MusicnnNetwork.bands && $0.allSatisfy(\.isFinite) })
        }
    }

    /// A full-scale sine at 1 kHz lands in the mel band around 1 kHz (Slaney: the 32nd of 96 up to 8 kHz) at any sample rate, at the level a 512-point
    /// transform at 16 kHz gives it (log10(1 + 10000 · power), power ≈ 0.5 · (512/4)² · the band's weight).
    func testASineLandsInItsBandAtTheSameLevelAtEveryRate() {
        var levels: [Float] = []
        for rate in [16000, 44100, 48000] {
            let patches = MelPatches(sampleRate: rate, keep: 1)
            let samples = (0..<(rate * 4)).map { Float(sin(2 * Double.pi * 1000 * Double($0) / Double(rate))) }
            samples.withUnsafeBufferPointer { patches.consume($0) }
            let patch = patches.finish()[0]
            let frame = Array(patch[(100 * 96)..<(101 * 96)])
            let loudest = frame.indices.max { frame[$0] < frame[$1] }!
            XCTAssertTrue((30...32).contains(loudest), "band \(loudest) at \(rate) Hz")
            levels.append(frame[loudest])
        }
        XCTAssertEqual(levels[1], levels[0], accuracy: 0.15, "44.1 kHz against 16 kHz")
        XCTAssertEqual(levels[2], levels[0], accuracy: 0.15, "48 kHz against 16 kHz")
    }
}

extension TaggerTests {
    /// `tags write-analysis --mood` writes MOOD from the tagger's mood words above the threshold, at most three,
    /// and leaves GENRE as it was; without the tagger's results it says so and writes nothing.
    func testMoodTagsComeFromTheTaggersMoodWordsAndGenreIsLeftAlone() throws {
        let env = ["SPINDLE_MODELS_DIR": dir + "/models", "XDG_DATA_HOME": dir + "/data", "HOME": dir]
        let base = ["--db", dir + "/s.db", "--library", dir + "/music"]
        try Synth.write(Synth.noise(seconds: 6, rmsDBFS: -16, seed: 2), to: dir + "/music/A/two.flac", format: .flac16)
        XCTAssertEqual(try CLI.run(base + ["tags", "set", "A/one.flac", "--set", "GENRE=Ragtime"], environment: env).status, 0)
        XCTAssertEqual(try CLI.run(base + ["analyze"], environment: env).status, 0)
        let untagged = try CLI.run(base + ["tags", "write-analysis", "--mood"], environment: env)
        XCTAssertTrue(untagged.stdout.contains("get no MOOD") || untagged.stderr.contains("get no MOOD"), untagged.stdout + untagged.stderr)

        let before = try CLI.run(base + ["status"], environment: env)
        XCTAssertTrue(before.stdout.contains("2 feature vectors, 0 tagger embeddings: similarity and clusters measure on the feature vector"), before.stdout)
        try MusicnnFormulaWeights.write(into: dir + "/models")
        XCTAssertEqual(try CLI.run(base + ["analyze"], environment: env).status, 0)
        let after = try CLI.run(base + ["status"], environment: env)
        XCTAssertTrue(after.stdout.contains("2 tagger embeddings: similarity and clusters measure on the embedding"), after.stdout)
        let none = try CLI.run(base + ["tags", "write-analysis", "--mood", "--min-mood-probability", "1"], environment: env)
        XCTAssertEqual(none.status, 0, none.stderr)
        XCTAssertNil(try tags(base, env)["MOOD"], "no mood word reaches probability 1")
        let written = try CLI.run(base + ["tags", "write-analysis", "--mood", "--min-mood-probability", "0"], environment: env)
        XCTAssertEqual(written.status, 0, written.stderr)
        let tagsAfter = try tags(base, env)
        let moods = try XCTUnwrap(tagsAfter["MOOD"], "\(tagsAfter)")
        XCTAssertEqual(moods.count, 3, "\(moods)")
        let words = Set(MusicnnTags.moods.map { MusicnnTags.title(MusicnnTags.names.firstIndex(of: $0)!) })
        XCTAssertTrue(moods.allSatisfy(words.contains), "\(moods)")
        XCTAssertEqual(tagsAfter["GENRE"], ["Ragtime"])
        XCTAssertNil(tagsAfter["BPM"], "--mood alone writes only MOOD")
    }

    private func tags(_ base: [String], _ env: [String: String]) throws -> [String: [String]] {
        let show = try CLI.run(base + ["tags", "show", "--json", "A/one.flac"], environment: env)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(show.stdout.utf8)) as? [String: Any], show.stdout)
        return try XCTUnwrap(object["tags"] as? [String: [String]], show.stdout)
    }
}

extension TaggerTests {
    /// The same audio gives the same tags and embedding, bit for bit, on every run and in any job count.
    func testTagsAndEmbeddingAreTheSameOnEveryRunInAnyJobCount() throws {
        try Synth.write(Synth.noise(seconds: 8, rmsDBFS: -14, seed: 4), to: dir + "/music/A/two.flac", format: .flac16)
        try Synth.write(Synth.chords(Synth.cadence(tonic: 9, minor: true), timbre: .organ), to: dir + "/music/A/three.flac", format: .flac16)
        let env = ["SPINDLE_MODELS_DIR": dir + "/models"]
        try MusicnnFormulaWeights.write(into: dir + "/models")
        var runs: [[String: [UInt8]]] = []
        for (name, jobs) in [("a", "1"), ("b", "2"), ("c", "2")] {
            let db = dir + "/\(name).db"
            let run = try CLI.run(["--db", db, "--library", dir + "/music", "analyze", "--jobs", jobs], environment: env)
            XCTAssertEqual(run.status, 0, run.stderr)
            runs.append(try DatabaseQueue(path: db).read { db in
                try Dictionary(uniqueKeysWithValues: Row.fetchAll(db, sql: """
                    SELECT f.path, a.tag_probabilities, a.embedding FROM files f JOIN analysis a ON a.file_id = f.id
                    """).map { ($0[0] as String, [UInt8]($0[1] as Data) + [UInt8]($0[2] as Data)) })
            })
        }
        XCTAssertEqual(runs[0].count, 3)
        XCTAssertTrue(runs[0].values.allSatisfy { $0.count == (50 + 200) * 4 })
        XCTAssertEqual(runs[0], runs[1], "one job and two")
        XCTAssertEqual(runs[1], runs[2], "two runs")
    }
}
