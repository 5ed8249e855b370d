import Foundation
import GRDB
import Store
import TestSupport
import XCTest

/// A library full of bad input finishes, with every bad entry accounted for and no file modified.
final class BadInputTests: XCTestCase {
    var dir = ""
    var library = ""

    override func setUpWithError() throws {
        dir = try Synth.temporaryDirectory("badinput")
        library = dir + "/music"
        try FileManager.default.createDirectory(atPath: library + "/bad", withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        // FileManager cannot remove the tree deeper than PATH_MAX that one test builds; rm walks it by descriptor.
        Synth.run("rm", ["-rf", dir])
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir), "the test's folder is left behind")
    }

    private func path(_ name: String) -> String { library + "/bad/" + name }

    private func truncate(_ file: String, to fraction: Double) throws {
        let size = try FileManager.default.attributesOfItem(atPath: file)[.size] as! Int
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: file))
        try handle.truncate(atOffset: UInt64(Double(size) * fraction))
        try handle.close()
    }

    /// A canonical 44-byte WAV header with the given fields, then `frames` of 16-bit silence.
    private func wav(channels: UInt16, rate: UInt32, frames: Int = 1000) -> Data {
        var d = Data("RIFF".utf8)
        let dataBytes = UInt32(frames) * UInt32(max(channels, 1)) * 2
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { d.append(contentsOf: $0) } }
        func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { d.append(contentsOf: $0) } }
        u32(36 + dataBytes); d.append(contentsOf: Array("WAVEfmt ".utf8)); u32(16); u16(1); u16(channels); u32(rate)
        u32(rate &* UInt32(channels) &* 2); u16(channels &* 2); u16(16); d.append(contentsOf: Array("data".utf8)); u32(dataBytes)
        d.append(Data(count: Int(dataBytes)))
        return d
    }

    private func buildLibrary() throws -> [String] {
        let music = Synth.concat(Synth.silence(seconds: 0.1), Synth.clicks(bpm: 110, seconds: 5))
        try Synth.write(music, to: library + "/good.flac", format: .flac16)
        try Synth.write(music, to: library + "/good.mp3", format: .mp3VBR)
        var bad: [String] = []
        func add(_ name: String) { bad.append("bad/" + name) }

        FileManager.default.createFile(atPath: path("empty.flac"), contents: Data()); add("empty.flac")
        var rng = SplitMix(seed: 11)
        let noise = Data((0..<65536).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
        for name in ["random.flac", "random.mp3", "random.m4a", "random.ogg"] {
            FileManager.default.createFile(atPath: path(name), contents: noise); add(name)
        }
        for (name, format) in [("cut.flac", Synth.FileFormat.flac16), ("cut.mp3", .mp3CBR), ("cut.ogg", .oggVorbis)] {
            try Synth.write(music, to: path(name), format: format)
            try truncate(path(name), to: 0.4)
            add(name)
        }
        try Synth.write(music, to: dir + "/src.wav", format: .wav16)
        if Synth.run("ffmpeg", ["-y", "-loglevel", "error", "-i", dir + "/src.wav", "-c:a", "aac", path("cut.m4a")]) == 0 {
            try truncate(path("cut.m4a"), to: 0.5)
            add("cut.m4a")
        }
        // Corrupt header: the FLAC STREAMINFO block overwritten.
        try Synth.write(music, to: path("header.flac"), format: .flac16)
        var header = try Data(contentsOf: URL(fileURLWithPath: path("header.flac")))
        for i in 8..<42 { header[i] = 0xFF }
        try header.write(to: URL(fileURLWithPath: path("header.flac"))); add("header.flac")
        // Absurd header values.
        try wav(channels: 0, rate: 44100).write(to: URL(fileURLWithPath: path("zero-channels.wav"))); add("zero-channels.wav")
        try wav(channels: 2, rate: 0).write(to: URL(fileURLWithPath: path("zero-rate.wav"))); add("zero-rate.wav")
        try wav(channels: 4000, rate: 44100, frames: 10).write(to: URL(fileURLWithPath: path("many-channels.wav"))); add("many-channels.wav")
        // NaN and infinities in a float WAV.
        var floats = Synth.sine(frequency: 440, seconds: 2, amplitude: 0.5)
        for i in stride(from: 0, to: floats.count, by: 1000) { floats[i] = i % 3000 == 0 ? .nan : .infinity }
        try Synth.write(floats, to: path("nan.wav"), format: .wavFloat); add("nan.wav")
        // Tiny files.
        try Synth.write([0.5, 0.5], to: path("one-sample.flac"), format: .flac16); add("one-sample.flac")
        try Synth.write(Synth.sine(frequency: 440, seconds: 0.05, amplitude: 0.5), to: path("short.flac"), format: .flac16)
        add("short.flac")
        // Entries the walk must never open.
        XCTAssertEqual(mkfifo(path("fifo.flac"), 0o644), 0); add("fifo.flac")
        if getuid() == 0, mknod(path("device.flac"), S_IFCHR | 0o644, (1 << 8) | 3) == 0 { add("device.flac") }
        try FileManager.default.createSymbolicLink(atPath: path("loop.flac"), withDestinationPath: path("loop.flac")); add("loop.flac")
        try FileManager.default.createSymbolicLink(atPath: path("escape.flac"), withDestinationPath: dir + "/src.wav"); add("escape.flac")
        try FileManager.default.createSymbolicLink(atPath: library + "/bad/dirloop", withDestinationPath: library)
        // A name that is not UTF-8.
        let raw: [UInt8] = Array(path("bad-").utf8) + [0xC3, 0x28] + Array(".flac".utf8) + [0]
        let fd = raw.withUnsafeBufferPointer { p in p.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_CREAT | O_WRONLY, 0o644) } }
        XCTAssertGreaterThanOrEqual(fd, 0); close(fd); bad.append("bad/bad-\u{FFFD}(.flac")
        // A path longer than PATH_MAX, built with *at() calls.
        var dirfd = open(library + "/bad", O_RDONLY | O_DIRECTORY)
        let segment = String(repeating: "d", count: 250)
        for _ in 0..<18 {
            mkdirat(dirfd, segment, 0o755)
            let next = openat(dirfd, segment, O_RDONLY | O_DIRECTORY)
            close(dirfd)
            dirfd = next
        }
        let deep = openat(dirfd, "deep.flac", O_CREAT | O_WRONLY, 0o644)
        close(deep); close(dirfd)
        return bad
    }

    func testEveryBadInputIsAccountedForAndNothingIsModified() throws {
        let bad = try buildLibrary()
        func fingerprint() -> [String: Data] {
            var out: [String: Data] = [:]
            let e = FileManager.default.enumerator(atPath: library)
            while let p = e?.nextObject() as? String {
                let full = library + "/" + p
                var st = stat()
                guard lstat(full, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { continue }
                out[p] = FileManager.default.contents(atPath: full)
            }
            return out
        }
        let before = fingerprint()
        let db = dir + "/spindle.db"
        let r = try CLI.run(["--db", db, "--library", library, "analyze", "--jobs", "2"])
        XCTAssertEqual(r.status, 3, r.stderr)
        let status = try XCTUnwrap(JSONSerialization.jsonObject(
            with: Data(try CLI.run(["--db", db, "status", "--json"]).stdout.utf8)) as? [String: Any])
        let failures = try XCTUnwrap(status["failures"] as? [[String: Any]])
        let partial = try XCTUnwrap(status["partial"] as? [[String: Any]])
        var accounted = Set(failures.map { $0["path"] as! String })
        accounted.formUnion(partial.map { $0["path"] as! String })
        for f in failures { XCTAssertFalse((f["error"] as? String ?? "").isEmpty, "\(f)") }
        // Analysed from what decodes, and said so or not: tiny files and sanitised NaNs are simply analysed.
        let analysedAnyway: Set<String> = ["bad/nan.wav", "bad/one-sample.flac", "bad/short.flac"]
        for name in bad where !analysedAnyway.contains(name) {
            XCTAssertTrue(accounted.contains(name) || accounted.contains { $0.hasPrefix("bad/ddd") && name.hasPrefix("bad/ddd") },
                          "\(name) is not accounted for; failures: \(failures.map { $0["path"]! })")
        }
        XCTAssertTrue(accounted.contains { $0.hasPrefix("bad/dddd") }, "the over-long path is reported")
        XCTAssertGreaterThanOrEqual(status["analysed"] as? Int ?? 0, 2 + analysedAnyway.count)
        XCTAssertEqual(fingerprint(), before, "analysis must never modify a library file")
        let database = try SpindleDatabase(path: db)
        XCTAssertEqual(try database.writer.read { try String.fetchOne($0, sql: "PRAGMA integrity_check") }, "ok")
        // NaN samples were replaced by silence: the loudness is a number.
        let lufs = try database.writer.read { db in
            try Double.fetchOne(db, sql: "SELECT a.lufs_integrated FROM analysis a JOIN files f ON f.id = a.file_id WHERE f.path = 'bad/nan.wav'")
        }
        XCTAssertNotNil(lufs)
    }

    /// A nightly run that meets a FLAC file still being copied into the library analyses the part written so
    /// far (partial). Once the copy is complete, the file is analysed again, whole. Its audio key (STREAMINFO,
    /// written first) is the complete file's all along, so before, the partial analysis was carried over to
    /// the complete file and kept: half the duration, the trailing silence in the middle, for good. A complete
    /// file cut short later is analysed again as partial.
    func testAFileAnalysedWhileStillBeingCopiedIsAnalysedAgainOnceComplete() throws {
        let music = Synth.concat(Synth.clicks(bpm: 120, seconds: 8), Synth.silence(seconds: 1))
        try Synth.write(music, to: dir + "/whole.flac", format: .flac16)
        let whole = try Data(contentsOf: URL(fileURLWithPath: dir + "/whole.flac"))
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: library + "/song.flac"))
        let db = dir + "/copying.db"
        let analyze = ["--db", db, "--library", library, "analyze"]
        XCTAssertEqual(try CLI.run(analyze).status, 0)
        func stored() throws -> (duration: Double?, damage: String?) {
            let database = try SpindleDatabase(path: db)
            return try database.writer.read { db in
                let row = try Row.fetchOne(db, sql: """
                    SELECT a.duration_s, a.damage FROM analysis a JOIN files f ON f.id = a.file_id WHERE f.path = 'song.flac'
                    """)
                return (row?["duration_s"], row?["damage"])
            }
        }
        let partial = try stored()
        XCTAssertNotNil(partial.damage, "half a FLAC file is analysed as partial")
        XCTAssertLessThan(partial.duration ?? 0, 6)
        try whole.write(to: URL(fileURLWithPath: library + "/song.flac"))
        XCTAssertEqual(try CLI.run(analyze).status, 0)
        let complete = try stored()
        XCTAssertNil(complete.damage, "the complete file is analysed again")
        XCTAssertEqual(complete.duration ?? 0, 9, accuracy: 0.01)
        // The other way round: a copy over it that failed cuts the file short. Its STREAMINFO still describes the
        // whole, so it was taken for a retagged file and kept the analysis of the whole, and no one was told.
        try whole.prefix(whole.count * 6 / 10).write(to: URL(fileURLWithPath: library + "/song.flac"))
        let again = try CLI.run(analyze)
        XCTAssertEqual(again.status, 0)
        XCTAssertFalse(again.stdout.contains("retagged"), again.stdout)
        let cut = try stored()
        XCTAssertNotNil(cut.damage, "a FLAC cut short is analysed again, as partial")
        XCTAssertLessThan(cut.duration ?? 9, 7)
    }

    /// A WAV whose samples were changed in place at the same size (normalize-audio or wavegain raising its
    /// level, an editor saving it again) between silent ends: its size and the ends its keys sampled were as
    /// before, so it was taken for a touched file, and its analysis (6 dB quieter) stayed for good.
    func testAWAVChangedInPlaceBetweenSilentEndsIsAnalysedAgain() throws {
        func track(_ amplitude: Double) -> [Float] {
            Synth.concat(Synth.silence(seconds: 1), Synth.sine(frequency: 440, seconds: 8, amplitude: amplitude), Synth.silence(seconds: 1))
        }
        let db = dir + "/inplace.db", path = library + "/song.wav"
        let analyze = ["--db", db, "--library", library, "analyze"]
        try Synth.write(track(0.1), to: path, format: .wav16)
        XCTAssertEqual(try CLI.run(analyze).status, 0)
        func lufs() throws -> Double? {
            try SpindleDatabase(path: db).writer.read { try Double.fetchOne($0, sql: "SELECT lufs_integrated FROM analysis") }
        }
        let before = try XCTUnwrap(try lufs())
        // Written over in place, as those tools do: the same inode, the same size.
        try Synth.write(track(0.2), to: dir + "/louder.wav", format: .wav16)
        let louder = try Data(contentsOf: URL(fileURLWithPath: dir + "/louder.wav"))
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: path))
        try handle.write(contentsOf: louder)
        try handle.close()
        XCTAssertEqual(try CLI.run(analyze).status, 0)
        XCTAssertEqual(try XCTUnwrap(try lufs()) - before, 6.02, accuracy: 0.1)
        // Only touched: its analysis stays.
        XCTAssertEqual(utimes(path, nil), 0)
        XCTAssertTrue(try CLI.run(analyze).stdout.contains("analyze: 0 analysed"))
    }

    func testFileThatVanishesBeforeItsAnalysisIsAFailureNotACrash() throws {
        try Synth.write(Synth.clicks(bpm: 100, seconds: 3), to: library + "/a.flac", format: .flac16)
        try Synth.write(Synth.clicks(bpm: 100, seconds: 3), to: library + "/gone.flac", format: .flac16)
        let db = dir + "/v.db"
        XCTAssertEqual(try CLI.run(["--db", db, "--library", library, "scan"]).status, 0)
        try FileManager.default.removeItem(atPath: library + "/gone.flac")
        let pipeline = dir + "/analyze-only.toml"
        try "[pipeline]\nstages = [\"analyze\"]\n".write(toFile: pipeline, atomically: true, encoding: .utf8)
        let r = try CLI.run(["--db", db, "--library", library, "run", pipeline])
        XCTAssertEqual(r.status, 3, r.stderr)
        let status = try CLI.run(["--db", db, "status", "--json"]).stdout
        XCTAssertTrue(status.contains("gone.flac"), status)
    }
}
