import Foundation
import GRDB
import Similarity
import TestSupport
import XCTest

/// The command-line contract of DESIGN: command names, global options before the command, JSON keys,
/// exit codes.
final class CommandLineTests: XCTestCase {
    var dir = ""
    var library = ""

    override func setUpWithError() throws {
        dir = try Synth.temporaryDirectory("cli")
        library = dir + "/music"
        try FileManager.default.createDirectory(atPath: library + "/A", withIntermediateDirectories: true)
        let music = Synth.concat(Synth.silence(seconds: 0.5), Synth.clicks(bpm: 120, seconds: 8), Synth.silence(seconds: 1))
        try Synth.write(music, to: library + "/A/one.flac", format: .flac16)
        try Synth.write(music, to: library + "/A/two.mp3", format: .mp3VBR)
        try Synth.write(music, to: library + "/A/three.ogg", format: .oggVorbis)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: dir)
    }

    func json(_ line: String) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    /// A link out of the library, which the scan passes over and lists, was counted as a file that failed
    /// ("failures: 2 file(s)" beside one file that did).
    func testStatusCountsFailedFilesApartFromWhatTheScanPassedOver() throws {
        try FileManager.default.createDirectory(atPath: dir + "/elsewhere", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: library + "/Elsewhere", withDestinationPath: dir + "/elsewhere")
        try Data("not audio at all".utf8).write(to: URL(fileURLWithPath: library + "/A/four.flac"))
        let db = dir + "/s.db"
        XCTAssertEqual(try CLI.run(["--db", db, "--library", library, "analyze"]).status, 3)
        let status = try CLI.run(["--db", db, "status"]).stdout
        XCTAssertTrue(status.contains("failures:  1 file(s), 1 passed over by the scan\n"), status)
        XCTAssertTrue(status.contains("[scan] Elsewhere: "), status)
        XCTAssertTrue(status.contains("[analyze] A/four.flac: "), status)
    }

    func testHelpListsEveryCommandOfTheContract() throws {
        let help = try CLI.run(["--help"]).stdout
        for command in ["scan", "analyze", "run", "inspect", "resolve", "tags", "genres", "frames", "bench", "status",
                        "navidrome"] {
            XCTAssertTrue(help.contains("  \(command) "), "--help lacks \(command)")
        }
        let tags = try CLI.run(["tags", "--help"]).stdout
        for sub in ["show", "set", "apply", "fix", "write-analysis", "undo"] { XCTAssertTrue(tags.contains(sub)) }
    }

    /// The help of `similar` and `genres build` gives the sonic space's weighting; both kept 0.60/0.25/0.15
    /// after the shares became 0.70/0.25/0.05 (ce1bfb5).
    func testHelpGivesTheSonicSpaceWeightingInForce() throws {
        let shares = SonicSpace.Group.allCases.map { "\($0.rawValue) " + String(format: "%.2f", $0.share) }
        XCTAssertEqual(shares.count, 3)
        for command in [["similar", "--help"], ["genres", "build", "--help"]] {
            // Help is wrapped to the terminal's width: compare with the line breaks taken out.
            let help = try CLI.run(command).stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            XCTAssertTrue(help.contains(shares.joined(separator: ", ")), "\(command): \(help)")
        }
    }

    /// How often a tempo at confidence 0.5 is right is a measurement, kept in docs/analysis.md beside how and on what
    /// it was measured. `tags write-analysis --help` kept its own copy, "88-100 % of held-out tracks were
    /// right", tempo analyzer version 11's range, after version 12 made it 96–100 %: no help quotes one.
    func testNoHelpQuotesAMeasuredShareOfRightResults() throws {
        let commands = [["scan"], ["analyze"], ["run"], ["inspect"], ["resolve"], ["tags", "show"], ["tags", "set"],
                        ["tags", "apply"], ["tags", "fix"], ["tags", "write-analysis"], ["tags", "undo"],
                        ["genres", "build"], ["genres", "report"], ["frames"], ["bench"], ["status"], ["similar"],
                        ["mix"], ["playlists", "write"], ["serve"], ["navidrome", "import"], ["navidrome", "rescan"],
                        ["merge"]]
        // A percentage followed, within its clause, by what was right or accurate.
        let measured = try NSRegularExpression(pattern: #"[0-9]+ ?%[^.;:)]*\b(right|correct|accura)"#)
        for command in commands {
            let help = try CLI.run(command + ["--help"]).stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            XCTAssertTrue(help.contains("USAGE:"), "\(command)")
            let found = measured.firstMatch(in: help, range: NSRange(help.startIndex..., in: help))
            XCTAssertNil(found, "\(command): " + (found.flatMap { Range($0.range, in: help) }.map { String(help[$0]) } ?? ""))
        }
    }

    func testInspectJSONHasExactlyTheContractKeys() throws {
        let r = try CLI.run(["inspect", "--json", library + "/A/one.flac", library + "/A/two.mp3"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = r.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 2)
        let keys = ["path", "status", "error", "codec", "duration_s", "sample_rate", "channels", "bpm", "bpm_confidence",
                    "first_beat_s", "lufs_integrated", "loudness_range_lu", "true_peak_dbtp", "sample_peak_dbfs",
                    "replaygain_track_gain_db", "lead_silence_end_s", "trail_silence_start_s", "is_silent",
                    "frames_fps", "frames_bands", "frames_count", "seconds",
                    // Added since (DESIGN: present in every object, null where not computed).
                    "key", "key_strength", "bpm_alternative", "top_tags"]
        for line in lines {
            let object = try json(String(line))
            XCTAssertEqual(Set(object.keys), Set(keys))
            XCTAssertEqual(object["status"] as? String, "ok")
            XCTAssertEqual(object["bpm"] as? Double ?? 0, 120, accuracy: 4.8)
            XCTAssertEqual(object["lead_silence_end_s"] as? Double ?? -1, 0.5, accuracy: 0.01)
            XCTAssertEqual(object["duration_s"] as? Double ?? 0, 9.5, accuracy: 0.1)
        }
        XCTAssertFalse(r.stdout.contains("nan") || r.stdout.contains("inf"))
    }

    // Accented clicks are as periodic at 60 as at 120 BPM: inspect names the runner-up in JSON and in text.
    func testInspectReportsTheRunnerUpMetricalLevel() throws {
        // Scaled so the sum stays inside full scale (a 16-bit FLAC refuses what would clip).
        let accented = zip(Synth.clicks(bpm: 60, seconds: 30), Synth.clicks(bpm: 120, seconds: 30)).map { 0.6 * ($0 + 0.25 * $1) }
        try Synth.write(accented, to: dir + "/accented.flac", format: .flac16)
        let r = try CLI.run(["inspect", "--json", dir + "/accented.flac"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let object = try json(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        let bpm = try XCTUnwrap(object["bpm"] as? Double), alternative = try XCTUnwrap(object["bpm_alternative"] as? Double)
        XCTAssertEqual(max(bpm, alternative) / min(bpm, alternative), 2, accuracy: 0.08)
        let text = try CLI.run(["inspect", dir + "/accented.flac"])
        XCTAssertTrue(text.stdout.contains(String(format: "or %.2f BPM at another metrical level", alternative)), text.stdout)
        // A steady tone has no tempo, and the text says so (it had printed "— (confidence 0.00), first beat —").
        try Synth.write(Synth.sine(frequency: 440, seconds: 10), to: dir + "/tone.flac", format: .flac16)
        let tone = try CLI.run(["inspect", dir + "/tone.flac"]).stdout
        XCTAssertTrue(tone.contains("tempo:      none: no onsets stand out as beats"), tone)
    }

    // Loudness weighed the channels by their count alone, where ffmpeg's ebur128 weighs them by the layout the
    // file states: a 2.1 file's LFE counted as a front (13.5 LU too loud here), a quad file's rears 1.5 dB low.
    func testInspectWeighsChannelsByTheLayoutTheFileStates() throws {
        func tones(_ channels: Int, _ parts: [(channel: Int, hertz: Double, amplitude: Double)]) -> [Float] {
            var out = [Float](repeating: 0, count: 48000 * 3 * channels)
            for f in 0..<48000 * 3 {
                for p in parts { out[f * channels + p.channel] += Float(p.amplitude * sin(2 * .pi * p.hertz * Double(f) / 48000)) }
            }
            return out
        }
        let twoPointOne: [Int32] = [2, 3, 11]   // SF_CHANNEL_MAP_LEFT, RIGHT, LFE
        try Synth.write(tones(3, [(0, 1000, 0.1)]), to: dir + "/front.wav", format: .wavex16, sampleRate: 48000,
                        channels: 3, channelMap: twoPointOne)
        try Synth.write(tones(3, [(0, 1000, 0.1), (2, 60, 0.7)]), to: dir + "/with-lfe.wav", format: .wavex16,
                        sampleRate: 48000, channels: 3, channelMap: twoPointOne)
        try Synth.write(tones(4, [(2, 1000, 0.1)]), to: dir + "/quad-rear.flac", format: .flac16, sampleRate: 48000, channels: 4)
        let r = try CLI.run(["inspect", "--json", dir + "/front.wav", dir + "/with-lfe.wav", dir + "/quad-rear.flac"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let lufs = try r.stdout.split(separator: "\n").map { try XCTUnwrap(json(String($0))["lufs_integrated"] as? Double) }
        XCTAssertEqual(lufs.count, 3)
        XCTAssertEqual(lufs[1], lufs[0], accuracy: 0.02, "the LFE is not counted")
        XCTAssertEqual(lufs[2] - lufs[0], 10 * log10(1.41), accuracy: 0.02, "a rear counts +1.5 dB")
    }

    /// `spindle inspect ~/Music/Album`: a folder stands for the audio files under it, in path order, as a scan
    /// finds them (not the cover, not hidden files); a folder without audio is a line with that reason. A
    /// folder had been one line, "not a regular file".
    func testInspectOfAFolderAnalysesTheAudioUnderIt() throws {
        FileManager.default.createFile(atPath: library + "/A/cover.jpg", contents: Data("jpeg".utf8))
        try FileManager.default.createDirectory(atPath: dir + "/empty", withIntermediateDirectories: true)
        let r = try CLI.run(["inspect", "--json", library + "/A/", dir + "/empty"])
        XCTAssertEqual(r.status, 3, r.stderr)
        let objects = try r.stdout.split(separator: "\n").map { try json(String($0)) }
        XCTAssertEqual(objects.compactMap { $0["path"] as? String },
                       ["one.flac", "three.ogg", "two.mp3"].map { library + "/A/" + $0 } + [dir + "/empty"])
        XCTAssertEqual(objects.prefix(3).compactMap { $0["status"] as? String }, ["ok", "ok", "ok"])
        XCTAssertEqual(objects.last?["error"] as? String, "a folder with no audio files under it")
    }

    /// `spindle inspect … | head -1`: once the reader is gone, inspect ends as `cat` does there, by SIGPIPE
    /// and silently. It had died on a trap (SIGILL, exit 132) with a crash report on standard error.
    func testInspectIntoAClosedPipeEndsBySIGPIPEQuietly() throws {
        let inspect = Process()
        inspect.executableURL = URL(fileURLWithPath: CLI.executable)
        inspect.arguments = ["inspect", "--json", "--jobs", "1", library + "/A/one.flac", library + "/A/three.ogg"]
        let closed = Pipe(), errors = Pipe()
        inspect.standardOutput = closed
        inspect.standardError = errors
        try closed.fileHandleForReading.close()
        try inspect.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        inspect.waitUntilExit()
        XCTAssertEqual(inspect.terminationReason, .uncaughtSignal, message)
        XCTAssertEqual(inspect.terminationStatus, SIGPIPE, message)
        XCTAssertEqual(message, "")
    }

    func testInspectOfBadInputExitsThreeWithAnErrorLine() throws {
        FileManager.default.createFile(atPath: dir + "/bad.flac", contents: Data("not audio".utf8))
        let r = try CLI.run(["inspect", "--json", dir + "/bad.flac"])
        XCTAssertEqual(r.status, 3)
        let object = try json(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        XCTAssertEqual(object["status"] as? String, "error")
        XCTAssertTrue(object["error"] is String)
        XCTAssertTrue(object["bpm"] is NSNull)
    }

    /// After an upgrade that changes an analyzer, the whole library is due again, and `status` said only
    /// "3 pending": it and `analyze` now say which analyzer and for how many files (only that one runs).
    func testFilesDueForANewerAnalyzerAreSaidToBe() throws {
        let db = dir + "/db/spindle.db"
        XCTAssertEqual(try CLI.run(["--db", db, "--library", library, "analyze"]).status, 0)
        // As an older Spindle left them: tempo results of its version 1.
        try DatabaseQueue(path: db).write { db in
            try db.execute(sql: "UPDATE analysis SET analyzer_versions = json_set(analyzer_versions, '$.tempo', 1)")
        }
        let status = try CLI.run(["--db", db, "status"]).stdout
        XCTAssertTrue(status.contains("0 current, 3 pending (for newer analyzers: tempo 3)"), status)
        XCTAssertEqual(try json(try CLI.run(["--db", db, "status", "--json"]).stdout)["pending_for_newer_analyzers"] as? [String: Int],
                       ["tempo": 3])
        let analyze = try CLI.run(["--db", db, "--library", library, "analyze"])
        XCTAssertEqual(analyze.status, 0, analyze.stderr)
        XCTAssertTrue(analyze.stderr.contains("analyzers newer than these files' results, run on them alone: tempo 3"), analyze.stderr)
        let after = try json(try CLI.run(["--db", db, "status", "--json"]).stdout)
        XCTAssertEqual(after["pending_for_newer_analyzers"] as? [String: Int], [:])
        XCTAssertEqual(after["analysed"] as? Int, 3)
    }

    func testScanAnalyzeStatusWithGlobalOptionsBeforeTheCommand() throws {
        let db = dir + "/db/spindle.db"
        XCTAssertEqual(try CLI.run(["--db", db, "--library", library, "scan"]).status, 0)
        let analyze = try CLI.run(["--db", db, "--library", library, "analyze", "--jobs", "2"])
        XCTAssertEqual(analyze.status, 0, analyze.stderr)
        let status = try CLI.run(["--db", db, "status", "--json"])
        XCTAssertEqual(status.status, 0)
        let object = try json(status.stdout)
        XCTAssertEqual(object["files_present"] as? Int, 3)
        XCTAssertEqual(object["analysed"] as? Int, 3)
        XCTAssertEqual(object["failed"] as? Int, 0)
        XCTAssertEqual(object["pending"] as? Int, 0)
        XCTAssertNotNil(object["failures"] as? [Any])
        XCTAssertNotNil(object["runs"] as? [Any])
        // Frames of an analysed file come from the database, as an array of frames of floats 0..1.
        let frames = try CLI.run(["--db", db, "--library", library, "frames", "A/one.flac", "--json"])
        let array = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(frames.stdout.utf8)) as? [[Double]])
        XCTAssertEqual(array.count, 285)
        XCTAssertEqual(array.first?.count, 32)
        XCTAssertTrue(array.joined().allSatisfy { $0 >= 0 && $0 <= 1 })
        // A player's path, with the library the database knows: found by the resolver, as `similar` finds it.
        let played = try CLI.run(["--db", db, "frames", "/music/A/one.flac", "--json"])
        XCTAssertEqual(played.status, 0, played.stderr)
        XCTAssertEqual(try JSONSerialization.jsonObject(with: Data(played.stdout.utf8)) as? [[Double]], array)
        XCTAssertEqual(played.stderr, "", "the player's path names the file")
        // A name found by its words: the frames, and on standard error which file they are of (a mistyped name
        // had given another track's frames without a word).
        let guessed = try CLI.run(["--db", db, "frames", "A/One (remaster).flac", "--json"])
        XCTAssertEqual(guessed.status, 0, guessed.stderr)
        XCTAssertEqual(try JSONSerialization.jsonObject(with: Data(guessed.stdout.utf8)) as? [[Double]], array)
        XCTAssertTrue(guessed.stderr.contains("frames of A/one.flac (found by fuzzy word match for \"A/One (remaster).flac\")"),
                      guessed.stderr)
        // A file of that name outside the library, as typed: that file, not the library's by its name.
        try Synth.write(Synth.sine(frequency: 440, seconds: 2), to: dir + "/one.flac", format: .flac16)
        let outside = try CLI.run(["--db", db, "frames", dir + "/one.flac", "--json"])
        XCTAssertEqual(outside.status, 0, outside.stderr)
        XCTAssertEqual((try JSONSerialization.jsonObject(with: Data(outside.stdout.utf8)) as? [[Double]])?.count, 60)
    }

    /// A mistyped --db: commands that read what a scan stored say there is no database (exit 2) and create
    /// none. `genres build` and `playlists write` had created an empty one and reported "0 composite
    /// genres" / "0 written" with exit 0; `resolve`, `similar` and `tags show` left an empty file behind.
    func testCommandsThatReadTheIndexRefuseAMissingDatabase() throws {
        let missing = dir + "/typo.db"
        for command in [["genres", "build"], ["playlists", "write"], ["resolve", "x"], ["similar", "x"], ["tags", "show", "x"]] {
            let r = try CLI.run(["--db", missing, "--library", library] + command)
            XCTAssertEqual(r.status, 2, "\(command): \(r.stdout)")
            XCTAssertTrue(r.stderr.contains("no database at \(missing)"), "\(command): \(r.stderr)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: missing), "\(command)")
        }
    }

    /// `spindle run nightly`, as `run --help` names the pipelines, runs the one that comes with Spindle; it
    /// had said "cannot read pipeline file nightly" unless given the file's path.
    func testPipelinesThatComeWithSpindleRunByName() throws {
        let db = dir + "/spindle.db"
        let r = try CLI.run(["--db", db, "--library", library, "run", "nightly", "--json"], folder: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        let outcome = try json(r.stdout)
        XCTAssertEqual((outcome["analyze"] as? [String: Any])?["analysed"] as? Int, 3, r.stdout)
        XCTAssertNotNil(outcome["genres"], r.stdout)
        let unknown = try CLI.run(["--db", db, "--library", library, "run", "weekly"], folder: dir)
        XCTAssertEqual(unknown.status, 2)
        XCTAssertTrue(unknown.stderr.contains("no pipeline file weekly"), unknown.stderr)
        // Every name the help and that error offer is a pipeline that comes with Spindle.
        let offered = try XCTUnwrap(unknown.stderr.split(separator: ":").last).split(separator: ",")
            .map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " )\n")) }
        XCTAssertEqual(offered.count, 4, unknown.stderr)
        let pipelines = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Pipelines").path
        for name in offered {
            XCTAssertTrue(FileManager.default.fileExists(atPath: pipelines + "/" + name + ".toml"), name)
        }
    }

    func testEnvironmentVariablesNameTheDatabaseAndLibrary() throws {
        let db = dir + "/env.db"
        let r = try CLI.run(["scan"], environment: ["SPINDLE_DB": db, "MUSIC_DIR": library])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: db))
    }

    func testUsageErrorsExitTwo() throws {
        XCTAssertEqual(try CLI.run(["scan"], environment: ["HOME": dir]).status, 2)   // no library anywhere
        XCTAssertEqual(try CLI.run(["analyze", "--library", library, "--db", dir + "/x.db", "--only", "bogus"]).status, 2)
        XCTAssertEqual(try CLI.run(["no-such-command"]).status, 2)
        XCTAssertEqual(try CLI.run(["inspect"]).status, 2)
    }

    func testFailedFileMakesExitCodeThreeAndIsListedInStatus() throws {
        FileManager.default.createFile(atPath: library + "/A/broken.mp3", contents: Data(repeating: 0x41, count: 4096))
        let db = dir + "/f.db"
        let r = try CLI.run(["--db", db, "--library", library, "analyze"])
        XCTAssertEqual(r.status, 3, r.stderr)
        let object = try json(try CLI.run(["--db", db, "status", "--json"]).stdout)
        let failures = try XCTUnwrap(object["failures"] as? [[String: Any]])
        XCTAssertTrue(failures.contains { ($0["path"] as? String) == "A/broken.mp3" })
        XCTAssertEqual(object["analysed"] as? Int, 3)
    }

    func testSecondAnalyzeOfUnchangedLibraryDoesNoWork() throws {
        let db = dir + "/n.db"
        XCTAssertEqual(try CLI.run(["--db", db, "--library", library, "analyze"]).status, 0)
        let again = try CLI.run(["--db", db, "--library", library, "analyze"])
        XCTAssertTrue(again.stdout.contains("analyze: 0 analysed"), again.stdout)
        let forced = try CLI.run(["--db", db, "--library", library, "analyze", "--force"])
        XCTAssertTrue(forced.stdout.contains("analyze: 3 analysed"), forced.stdout)
    }

    func testResolveJSONContract() throws {
        let db = dir + "/r.db"
        XCTAssertEqual(try CLI.run(["--db", db, "--library", library, "scan"]).status, 0)
        let r = try CLI.run(["--db", db, "--library", library, "resolve", "--json", "/music/A/one.flac", "../etc/passwd"])
        XCTAssertEqual(r.status, 3, "one input did not resolve")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        let first = try json(lines[0])
        XCTAssertEqual(first["input"] as? String, "/music/A/one.flac")
        XCTAssertEqual(first["resolved"] as? String, "A/one.flac")
        XCTAssertEqual(first["strategy"] as? Int, 2)
        XCTAssertEqual((first["tried"] as? [String])?.first, "music/A/one.flac")
        let second = try json(lines[1])
        XCTAssertTrue(second["resolved"] is NSNull)
        XCTAssertTrue(second["strategy"] is NSNull)
        XCTAssertNotNil(second["refused"] as? String)
    }

    func testGenresBuildAndReportThroughTheCommandLine() throws {
        let db = dir + "/g.db"
        XCTAssertEqual(try CLI.run(["--db", db, "--library", library, "analyze"]).status, 0)
        let build = try CLI.run(["--db", db, "genres", "build", "--json"])
        XCTAssertEqual(build.status, 0, build.stderr)
        XCTAssertTrue(build.stdout.contains("\"genres\""))
        let report = try CLI.run(["--db", db, "genres", "report", "--format", "json"])
        XCTAssertEqual(report.status, 0, report.stderr)
        let object = try json(report.stdout)
        XCTAssertNotNil(object["genres"] as? [Any])
        let html = dir + "/r.html"
        XCTAssertEqual(try CLI.run(["--db", db, "genres", "report", "-o", html]).status, 0)
        XCTAssertTrue((try String(contentsOfFile: html, encoding: .utf8)).contains("<svg"))
        XCTAssertEqual(try CLI.run(["--db", db, "genres", "report", "--format", "pdf"]).status, 2)
        // A folder that is not there is named as such (Foundation's atomic write had said "The file doesn’t
        // exist", and the same of a path through a file).
        let nowhere = try CLI.run(["--db", db, "genres", "report", "-o", dir + "/no-such-folder/r.html"])
        XCTAssertEqual(nowhere.status, 1)
        XCTAssertTrue(nowhere.stderr.hasSuffix(": No such file or directory\n"), nowhere.stderr)
        let throughAFile = try CLI.run(["--db", db, "genres", "report", "-o", html + "/r.html"])
        XCTAssertTrue(throughAFile.stderr.hasSuffix("r.html/r.html: Not a directory\n"), throughAFile.stderr)
    }

    /// Installed as the cron and systemd examples expect (PREFIX/bin/spindle, PREFIX/share/spindle/data) and
    /// run from another folder, `genres build` found no taxonomy: the nightly pipeline failed at its genres
    /// stage unless SPINDLE_DATA_DIR was set.
    func testAnInstalledBinaryFindsItsDataBesideIt() throws {
        let prefix = dir + "/prefix"
        let data = prefix + "/share/spindle/data"
        try FileManager.default.createDirectory(atPath: prefix + "/bin", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: CLI.executable, toPath: prefix + "/bin/spindle")
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("data").path
        for name in ["genre-taxonomy.toml", "genre-rules.toml"] {
            try FileManager.default.copyItem(atPath: source + "/" + name, toPath: data + "/" + name)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: prefix + "/bin/spindle")
        process.arguments = ["--db", dir + "/i.db", "--library", library, "run", "--quiet", dir + "/nightly.toml"]
        try "[pipeline]\nname = \"nightly\"\nstages = [\"scan\", \"genres\"]\n".write(toFile: dir + "/nightly.toml", atomically: true, encoding: .utf8)
        process.currentDirectoryURL = URL(fileURLWithPath: dir)
        process.environment = ProcessInfo.processInfo.environment.filter { !["SPINDLE_DATA_DIR", "SPINDLE_DB", "MUSIC_DIR"].contains($0.key) }
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, message)
    }
}
