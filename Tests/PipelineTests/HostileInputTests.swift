import Foundation
import GRDB
@testable import Genres
@testable import Pipeline
import Similarity
import Store
import Tagging
import TestSupport
@testable import TextFormats
import XCTest

/// Hostile and careless input never crashes or hangs Spindle: crafted sample rates, hostile Navidrome
/// databases, planted lock symlinks, forged tag separators, huge tag values, bad configs, escape sequences.
final class HostileInputTests: LibraryTestCase {
    // 6. A WAV header claiming 1 Hz hung inspect (a loop with a zero step); 8–1000 Hz trapped on a
    // Double→Int conversion. Both are refused with a clear error, in every command that decodes.
    func testCraftedSampleRatesAreRefusedNotHungOrTrapped() throws {
        for rate in [1, 100, 1000, 7999] {
            let path = library + "/rate\(rate).wav"
            try Synth.write(Synth.noise(seconds: 2, rmsDBFS: -20, sampleRate: 44100, channels: 1), to: path, format: .wav16,
                            sampleRate: rate, channels: 1)
            let r = try CLI.run(["inspect", "--json", path])
            XCTAssertEqual(r.status, 3, "\(rate) Hz: \(r.stderr)")
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
            XCTAssertEqual(object["status"] as? String, "error")
            XCTAssertTrue((object["error"] as? String)?.contains("sample rate \(rate) Hz") ?? false, r.stdout)
            let frames = try CLI.run(["frames", path])
            XCTAssertEqual(frames.status, 1, frames.stderr)
            XCTAssertTrue(frames.stderr.contains("sample rate"), frames.stderr)
        }
        let analyze = try spindle(["analyze"])
        XCTAssertEqual(analyze.status, 3, analyze.stderr)
        let status = try spindle(["status", "--json"])
        XCTAssertTrue(status.stdout.contains("outside the supported 8–768 kHz"), status.stdout)
    }

    /// A database that is not one, or one its user may not write (a container's UID), ended a run in SQLite's
    /// words with the SQL it ran ("attempt to write a readonly database - while executing `CREATE TABLE
    /// grdb_issue_102 ...`"): what is wrong, and what to do, is said instead.
    func testADamagedOrUnwritableDatabaseIsExplained() throws {
        try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) }).write(to: URL(fileURLWithPath: db))
        let garbage = try spindle(["status"])
        XCTAssertEqual(garbage.status, 1)
        XCTAssertTrue(garbage.stderr.contains("is not a Spindle database") && garbage.stderr.contains("move it aside"),
                      garbage.stderr)
        XCTAssertFalse(garbage.stderr.contains("while executing"), garbage.stderr)
        try FileManager.default.removeItem(atPath: db)
        XCTAssertEqual(try spindle(["scan"]).status, 0)
        for path in [dir, library] { try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: path) }
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: db)
        guard let readOnly = try CLI.runUnprivileged(["--db", db, "--library", library, "scan"]) else {
            throw XCTSkip("no unprivileged user can run the built spindle here")
        }
        XCTAssertEqual(readOnly.status, 1)
        XCTAssertTrue(readOnly.stderr.contains("needs write access to the database file"), readOnly.stderr)
        let full = DatabaseFailure.explain(DatabaseError(resultCode: .SQLITE_FULL, message: "database or disk is full"))
        XCTAssertTrue(full?.hasPrefix("the disk holding the database is full") == true, full ?? "nil")
        XCTAssertNil(DatabaseFailure.explain(DatabaseError(resultCode: .SQLITE_BUSY)), "other failures keep SQLite's words")
    }

    /// A database a newer Spindle wrote, opened by an older one (a cron job's install beside a newer build): the
    /// older one wrote it without the tables and columns the newer one's migrations added and counts on. It is
    /// not written; commands that only read it still work.
    func testADatabaseANewerSpindleWroteIsNotWrittenButStillRead() throws {
        try Synth.write(Synth.sine(frequency: 440, seconds: 1), to: library + "/a.flac", format: .flac16)
        XCTAssertEqual(try spindle(["scan"]).status, 0)
        let database = try SpindleDatabase(path: db)
        try database.writer.write { db in try db.execute(sql: "INSERT INTO grdb_migrations VALUES ('v99-from-the-future')") }
        let scan = try spindle(["scan"])
        XCTAssertEqual(scan.status, 2, scan.stderr)
        XCTAssertTrue(scan.stderr.contains("written by a newer Spindle") && scan.stderr.contains("v99-from-the-future"), scan.stderr)
        XCTAssertEqual(try database.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM runs") }, 1,
                       "the refused scan recorded no run")
        let status = try spindle(["status"])
        XCTAssertEqual(status.status, 0, status.stderr)
        XCTAssertTrue(status.stdout.contains("1 present"), status.stdout)
    }

    /// A write the disk refused (a file-size limit here; at home a failing disk, or the share holding the
    /// database gone) ended a run in SQLite's words: "disk I/O error - while executing `COMMIT TRANSACTION`".
    func testADatabaseWriteTheDiskRefusesIsExplained() throws {
        try Synth.write(Synth.sine(frequency: 440, seconds: 1), to: library + "/a.flac", format: .flac16)
        let command = "trap '' XFSZ; ulimit -f 64; exec \"$0\" \"$@\""
        let r = try CLI.run(["-c", command, CLI.executable, "--db", db, "--library", library, "scan"], shell: true)
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("a read or write of the database failed") && r.stderr.contains("run again"), r.stderr)
        XCTAssertFalse(r.stderr.contains("while executing"), r.stderr)
    }

    /// A database path through a file (or on a read-only mount) ended with Foundation's words:
    /// 'Error Domain=NSCocoaErrorDomain Code=512 "(null)" UserInfo={…}'.
    func testADatabaseFolderThatCannotBeMadeSaysWhy() throws {
        let file = dir + "/not-a-folder"
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        let r = try CLI.run(["--db", file + "/sub/spindle.db", "--library", library, "scan"])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr, "spindle: cannot create the folder \(file)/sub: Not a directory\n")
    }

    func testWorkerTimeoutsAreCapped() throws {
        var runtime = Settings.Runtime()
        XCTAssertEqual(runtime.timeout(audioSeconds: 240), 180)
        XCTAssertEqual(runtime.timeout(audioSeconds: 88200 * 3600), 3600, "a 1 Hz header's 'duration' cannot buy a day")
        XCTAssertEqual(runtime.timeout(audioSeconds: .infinity), 60)
        runtime.timeoutMax = 100
        XCTAssertEqual(runtime.timeout(audioSeconds: 240), 100)
    }

    // 7. A Navidrome database with a NULL id, an integer title and a BLOB path; a FIFO in its place.
    func testAHostileNavidromeDatabaseIsReadDefensively() throws {
        try Synth.write(Synth.sine(frequency: 440, seconds: 1), to: library + "/Song.flac", format: .flac16)
        XCTAssertEqual(try spindle(["scan"]).status, 0)
        let navidrome = dir + "/navidrome.db"
        let queue = try DatabaseQueue(path: navidrome)
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE media_file (id, path, title, album, album_artist, artist, suffix)")
            try db.execute(sql: "INSERT INTO media_file VALUES (NULL, 'Song.flac', 'x', NULL, NULL, NULL, 'flac')")
            try db.execute(sql: "INSERT INTO media_file VALUES ('a', 'Song.flac', 42, 7, X'00ff', 3.5, 1)")
            try db.execute(sql: "INSERT INTO media_file VALUES ('b', X'536f6e672e666c6163', NULL, NULL, NULL, NULL, NULL)")
            try db.execute(sql: "INSERT INTO media_file VALUES ('c', X'ff00ff', 'T', 'A', 'B', 'C', 'mp3')")
            try db.execute(sql: "INSERT INTO media_file VALUES (99, 12345, 'T', 'A', 'B', 'C', 'mp3')")
            // Attack review, low 16: a 10 MB path was stored as given.
            try db.execute(sql: "INSERT INTO media_file VALUES ('long', 'Song' || zeroblob(0) || printf('%.*c', 5000000, 'x') || '.flac', 'T', 'A', 'B', 'C', 'flac')")
        }
        let r = try spindle(["navidrome", "import", "--navidrome-db", navidrome])
        XCTAssertTrue(r.status == 0 || r.status == 3, r.stderr)
        XCTAssertTrue(r.stdout.contains("2 of 3 tracks mapped"), r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("passed over: 1 row(s)"), r.stdout)
        let longest = try SpindleDatabase(path: db).writer.read { db in
            try Int.fetchOne(db, sql: "SELECT max(length(navidrome_path)) FROM navidrome_tracks")
        }
        XCTAssertLessThan(try XCTUnwrap(longest), 4097)
        XCTAssertEqual(mkfifo(dir + "/fifo.db", 0o600), 0)
        let fifo = try spindle(["navidrome", "import", "--navidrome-db", dir + "/fifo.db"])
        XCTAssertEqual(fifo.status, 2)
        XCTAssertTrue(fifo.stderr.contains("not a regular file"), fifo.stderr)
    }

    // 9. A symlink planted at DB.lock must not have its target truncated.
    func testTheRunLockDoesNotFollowASymlink() throws {
        let victim = dir + "/victim.txt"
        try "precious".write(toFile: victim, atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: db + ".lock", withDestinationPath: victim)
        let r = try spindle(["scan"])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("symlink"), r.stderr)
        XCTAssertEqual(try String(contentsOfFile: victim, encoding: .utf8), "precious")
    }

    // 12. Tag values holding the old internal separators (\x1e, \x1f) stay one value of one key.
    func testTagValuesCannotForgeKeys() throws {
        guard Synth.run("ffmpeg", ["-version"]) == 0 else { throw XCTSkip("needs the ffmpeg command") }
        try Synth.write(Synth.sine(frequency: 440, seconds: 1), to: dir + "/src.wav", format: .wav16)
        let hostile = "Real\u{1e}EVIL\u{1f}forged\u{1e}"
        XCTAssertEqual(Synth.run("ffmpeg", ["-y", "-loglevel", "error", "-i", dir + "/src.wav", "-c:a", "flac",
                                            "-metadata", "title=" + hostile, library + "/a.flac"]), 0)
        let tags = try TagReader.read(path: library + "/a.flac")
        XCTAssertEqual(tags.properties["TITLE"], [hostile])
        XCTAssertNil(tags.properties["EVIL"])
        XCTAssertEqual(try spindle(["scan"]).status, 0)
        let database = try SpindleDatabase(path: db)
        XCTAssertEqual(try database.writer.read { try String.fetchOne($0, sql: "SELECT title FROM tracks") }, hostile)
        // Written back through Spindle's own writer, the value survives whole too.
        XCTAssertEqual(try spindle(["tags", "set", "a.flac", "--set", "ARTIST=" + hostile]).status, 0)
        XCTAssertEqual(try TagReader.read(path: library + "/a.flac").properties["ARTIST"], [hostile])
        // And a terminal shows no raw control characters.
        let show = try spindle(["tags", "show", "a.flac"])
        XCTAssertFalse(show.stdout.unicodeScalars.contains { $0.value == 0x1e || $0.value == 0x1f }, show.stdout)
        XCTAssertTrue(show.stdout.contains("Real\\x1EEVIL\\x1Fforged"), show.stdout)
    }

    // 13. 200,000 GENRE values: splitting them is linear (it was a `contains` over the growing list).
    // A playlist line starting with '#' is a comment to every M3U reader (Navidrome's too): a track under an
    // artist folder named "#1 Dads" was dropped from the playlist that listed it. Navidrome and Jellyfin trim
    // each line, so a folder named " Intro" (or with a no-break space first) was looked up as "Intro".
    func testPlaylistPathsStartingWithAHashOrASpaceStayPaths() {
        let tracks = [TrackInput(path: "#1 Dads/About Face/01 So Soldier.flac", title: "So Soldier", artist: "#1 Dads", duration: 200),
                      TrackInput(path: "Line\nBreak/02.flac", duration: 100),
                      TrackInput(path: " Intro/03.flac", duration: 100), TrackInput(path: "\u{A0}Nbsp/04.flac", duration: 100)]
        let text = M3U.render(tracks, path: { $0.path })
        // A line break in a path cannot be written in M3U: that track is left out (written with a space for the
        // break, it had named "Line Break/02.flac", a file that does not exist).
        XCTAssertEqual(text.split(separator: "\n").filter { !$0.hasPrefix("#") },
                       ["./#1 Dads/About Face/01 So Soldier.flac", "./ Intro/03.flac", "./\u{A0}Nbsp/04.flac"])
        XCTAssertEqual(text.components(separatedBy: "#EXTINF").count, 4, text)
        // A tag's escape sequences reached the terminal of whoever ran `spindle mix`; its path stays as it is.
        let hostile = TrackInput(path: "A/\u{1B}x.flac", title: "\u{1B}]0;pwned\u{07}Song\u{1B}[2J", artist: "Art\u{9B}31m\tist",
                                 duration: 100)
        let listed = M3U.render([hostile], path: { $0.path }, title: "Mix \u{1B}[5m")
        XCTAssertEqual(listed, "#EXTM3U\n#PLAYLIST:Mix  [5m\n#EXTINF:100,Art 31m ist -  ]0;pwned Song [2J\nA/\u{1B}x.flac\n")
    }

    func testManyGenreValuesAreHandledInLinearTime() {
        let values = (0..<200_000).map { "Genre \($0)" }
        let tags = TrackTags(TagSnapshot(properties: ["GENRE": values + values], codec: "flac", durationSeconds: 1,
                                         bitrateKbps: nil, sampleRate: 44100, channels: 2, bitDepth: 16))
        XCTAssertEqual(tags.genres.count, 200_000, "duplicates dropped, order kept")
        XCTAssertEqual(tags.genres.last, "Genre 199999")
    }

    // 13. A 10 MB reply line arriving in 64 KB reads is searched once, not once per read.
    func testWorkerRepliesAreSplitInLinearTime() {
        var buffer = LineBuffer()
        let chunk = [UInt8](repeating: 0x61, count: 1 << 16)
        var lines = 0
        for _ in 0..<160 {
            chunk.withUnsafeBytes { buffer.append($0) }
            while buffer.nextLine() != nil { lines += 1 }
        }
        [UInt8(0x62), 0x0A, 0x63, 0x0A, 0x64].withUnsafeBytes { buffer.append($0) }
        XCTAssertEqual(buffer.nextLine()?.count, 160 * (1 << 16) + 1)
        XCTAssertEqual(buffer.nextLine(), Data([0x63]))
        XCTAssertNil(buffer.nextLine(), "an unfinished line waits")
        XCTAssertEqual(lines, 0)
        XCTAssertLessThanOrEqual(buffer.bytesExamined, 160 * (1 << 16) + 5)
    }

    // 15. Small ones.
    func testTheFileSystemRootIsNotALibrary() throws {
        let r = try CLI.run(["--db", db, "--library", "/", "scan"])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("whole file system"), r.stderr)
    }

    /// Each config file's text ends `scan` with exit 2 and a message holding its expected part.
    private func assertEachConfigIsRefused(_ cases: [(text: String, message: String)], line: UInt = #line) throws {
        for (text, message) in cases {
            try text.write(toFile: dir + "/config.toml", atomically: true, encoding: .utf8)
            let r = try CLI.run(["--config", dir + "/config.toml", "--db", db, "--library", library, "scan"])
            XCTAssertEqual(r.status, 2, "\(text): \(r.stderr.prefix(300))", line: line)
            XCTAssertTrue(r.stderr.contains(message), "\(text): \(r.stderr.prefix(300))", line: line)
        }
    }

    /// A pipeline file's text ends `run` with exit 2 and a message holding `message`.
    private func assertPipelineIsRefused(_ text: String, _ message: String, line: UInt = #line) throws {
        try text.write(toFile: dir + "/p.toml", atomically: true, encoding: .utf8)
        let r = try spindle(["run", dir + "/p.toml"])
        XCTAssertEqual(r.status, 2, String(r.stderr.prefix(300)), line: line)
        XCTAssertTrue(r.stderr.contains(message), String(r.stderr.prefix(300)), line: line)
    }

    func testWronglyTypedOrUnknownConfigKeysAreErrorsNamingTheKey() throws {
        let cases: [(text: String, message: String)] = [
            ("jobs = \"two\"", "'jobs' must be an integer"),
            ("[analysis]\nmin_bpm = \"fast\"", "'analysis.min_bpm' must be a number"),
            ("[analysis]\nmin-bpm = 80", "unknown key 'analysis.min-bpm'"),
            ("libary = \"/srv/music\"", "unknown key 'libary'"),
            ("[runtime]\nworker_timeout_base_s = true", "'runtime.worker_timeout_base_s' must be a number"),
        ]
        try assertEachConfigIsRefused(cases)
        try assertPipelineIsRefused("[pipeline]\nstages = [\"scan\"]\nforce = \"yes\"\n", "'pipeline.force' must be true or false")
        // The shipped pipeline files pass the check.
        for file in ["nightly", "reanalyze", "tagfix", "genre-report"] {
            let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("Pipelines/\(file).toml").path
            XCTAssertNoThrow(try PipelineFile.load(path: path), file)
        }
    }

    /// A table header whose name starts with a character no key starts with ("[.analysis]", "[é]", "[ #"), or
    /// a "}" where an array expects a value, hit an assertion in TOMLKit's parser that aborted spindle (exit
    /// 134, a crash report) before any message: in the config file, a pipeline file, the genre rules or the
    /// taxonomy, every nightly run died so.
    func testTOMLTheParserWouldAbortOnIsAConfigurationErrorNotACrash() throws {
        let cases: [(text: String, message: String)] = [
            ("[.analysis]\nmin_bpm = 80", "is not valid TOML: Error while parsing table header: expected bare key starting character or string delimiter, saw '.' (at line 1, column 2)"),
            ("jobs = 2\n[[é]]", "saw 'é' (at line 2, column 3)"),
            ("[ # analysis", "saw '#' (at line 1, column 3)"),
            ("[\r\nmin_bpm = 80", "saw end of line (at line 1, column 2)"),
            ("[\u{0B}analysis]", "saw '\\u000B' (at line 1, column 2)"),
            ("[analysis]\nenabled = [\"tempo\", }", "Error while parsing array: expected value or closing ']', saw '}' (at line 2, column 21)"),
            ("[pipeline]\nstages = [\n  # the usual ones\n  [}]]", "saw '}' (at line 4, column 4)"),
            ("x = [\u{2028}1]", "saw '\\u2028' (at line 1, column 6)"),
            ("[[[analysis]]]", "saw '[' (at line 1, column 3)"),
        ]
        try assertEachConfigIsRefused(cases)
        try assertPipelineIsRefused("[pipeline]\nstages = [\"scan\"]\n[=]\n", "saw '=' (at line 3, column 2)")
        XCTAssertThrowsError(try RuleSet.parse("[[rule]]\ntemplate = \"{genre}\"\n[[ézé]]\n"))
        XCTAssertThrowsError(try TaxonomyFile.parse("[[génre]]\nname = \"Pop\"\n"))
        // What only looks like such a header is none: a nested array's line, a multi-line string's, a quoted name.
        let valid = #"""
            x = [
              [1, 2],
              [ "[", '#' ],
            ]
            s = """
            [.not a header # nor a comment \"""
            """
            t = '''
            [= neither'''
            ["quoted . name"] # [.comment
            [ 'a' . "b" ]
            """#
        XCTAssertNil(TOMLText.unparsable(valid))
        XCTAssertNoThrow(try TOMLText.table(valid))
    }

    /// `library = "~/Music"` in a config file, or `Environment=MUSIC_DIR=~/Music` in a systemd unit: no shell
    /// expands the tilde there, and the library had been "not usable: No such file or directory".
    func testATildeInConfigAndEnvironmentPathsIsTheHomeFolder() throws {
        try "library = \"~/music\"\ndatabase = \"~/from-config.db\"\n".write(toFile: dir + "/config.toml", atomically: true, encoding: .utf8)
        let home = ["HOME": dir]
        let fromFile = try Settings.resolve(.init(config: "~/config.toml"), environment: home)
        XCTAssertEqual(fromFile.libraryPath, library)
        XCTAssertEqual(fromFile.databasePath, dir + "/from-config.db")
        let fromEnvironment = try Settings.resolve(.init(), environment: home.merging(["MUSIC_DIR": "~/music", "SPINDLE_DB": "~"]) { $1 })
        XCTAssertEqual(fromEnvironment.libraryPath, library)
        XCTAssertEqual(fromEnvironment.databasePath, dir)
        // Only a leading "~" or "~/" is the home folder.
        let literal = try Settings.resolve(.init(database: "a~/b.db", library: "~music"), environment: home)
        XCTAssertEqual(literal.libraryPath, "~music")
        XCTAssertEqual(literal.databasePath, "a~/b.db")
        let r = try CLI.run(["scan"], environment: ["HOME": dir, "MUSIC_DIR": "~/music", "SPINDLE_DB": "~/spindle.db"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: db))
    }

    /// A folder the walk cannot open (its mode, a stale network share) hides its files from the scan, not from
    /// the disk: they stay present with their analysis, as a root that is not mounted does. They had been
    /// marked missing, and `inspect` of the folder said "a folder with no audio files under it".
    func testFilesInAFolderThatCannotBeReadAreNotMarkedMissing() throws {
        for path in ["A/1.flac", "B/2.flac", "B/3.flac"] {
            try FileManager.default.createDirectory(atPath: library + "/" + (path as NSString).deletingLastPathComponent,
                                                    withIntermediateDirectories: true)
            try Synth.write(Synth.clicks(bpm: 120, seconds: 2), to: library + "/" + path, format: .flac16)
        }
        // The unprivileged user writes the database beside the library and reads every file until B is closed.
        for path in [dir, library, library + "/A", library + "/B"] {
            try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: path)
        }
        let closed = library + "/B"
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: closed) }
        guard let first = try CLI.runUnprivileged(["--db", db, "--library", library, "scan"]) else {
            throw XCTSkip("no unprivileged user can run the built spindle here")
        }
        XCTAssertEqual(first.status, 0, first.stderr)
        try FileManager.default.setAttributes([.posixPermissions: 0], ofItemAtPath: closed)
        let scan = try XCTUnwrap(CLI.runUnprivileged(["--db", db, "--library", library, "scan", "--json"]))
        XCTAssertEqual(scan.status, 0, scan.stderr)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(scan.stdout.utf8)) as? [String: Any])
        let counts = try XCTUnwrap(report["scan"] as? [String: Any])
        XCTAssertEqual(counts["missing"] as? Int, 0, "\(counts)")
        XCTAssertEqual(counts["unreadable"] as? Int, 2, "\(counts)")
        XCTAssertEqual(counts["skipped"] as? Int, 1, "the folder is reported: \(counts)")
        let inspect = try XCTUnwrap(CLI.runUnprivileged(["inspect", closed]))
        XCTAssertEqual(inspect.status, 3)
        XCTAssertTrue((inspect.stdout + inspect.stderr).contains("a folder that cannot be read (Permission denied)"),
                      inspect.stdout + inspect.stderr)
        // Readable again: nothing was lost, nothing comes back as new.
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: closed)
        let again = try XCTUnwrap(CLI.runUnprivileged(["--db", db, "--library", library, "scan", "--json"]))
        let after = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as? [String: Any])?["scan"] as? [String: Any])
        XCTAssertEqual(after["unchanged"] as? Int, 3, "\(after)")
        XCTAssertEqual(after["new"] as? Int, 0, "\(after)")
    }

    func testFramesDoesNotDecodeASymlinksOutsideTarget() throws {
        try Synth.write(Synth.sine(frequency: 440, seconds: 1), to: dir + "/outside.flac", format: .flac16)
        try FileManager.default.createSymbolicLink(atPath: library + "/link.flac", withDestinationPath: dir + "/outside.flac")
        let r = try spindle(["frames", "link.flac"])
        XCTAssertEqual(r.status, 1, r.stdout)
        XCTAssertTrue(r.stderr.contains("outside the library root"), r.stderr)
        XCTAssertTrue(r.stdout.isEmpty, r.stdout)
    }

    // Attack review, low 13: a pipeline's name (a run's kind) reached `status` raw.
    func testStatusPrintsNoRawEscapeSequencesFromARunsKind() throws {
        let pipeline = dir + "/evil.toml"
        try """
            [pipeline]
            name = "evil\\u001b]0;owned\\u0007\\u001b[2J"
            stages = ["scan"]
            """.write(toFile: pipeline, atomically: true, encoding: .utf8)
        XCTAssertEqual(try spindle(["run", pipeline]).status, 0)
        let r = try spindle(["status"])
        XCTAssertFalse(r.stdout.unicodeScalars.contains { $0.value == 0x1b || $0.value == 0x07 }, r.stdout)
        XCTAssertTrue(r.stdout.contains("evil\\x1B]0;owned\\x07"), r.stdout)
    }

    func testResolvePrintsNoRawEscapeSequences() throws {
        let name = "evil\u{1b}]0;owned\u{07}\u{1b}[2J.flac"
        try Synth.write(Synth.sine(frequency: 440, seconds: 1), to: library + "/" + name, format: .flac16)
        XCTAssertEqual(try spindle(["scan"]).status, 0)
        let r = try spindle(["resolve", name, "missing\u{1b}[31m.flac"])
        XCTAssertFalse(r.stdout.unicodeScalars.contains { $0.value == 0x1b || $0.value == 0x07 }, r.stdout)
        XCTAssertTrue(r.stdout.contains("evil\\x1B]0;owned\\x07"), r.stdout)
    }

    /// A genre's playlist file name is at most 200 bytes, cut between characters: cut at 120 characters, a long
    /// name in CJK (360 bytes) or emoji (480) could not be a file name (255 bytes at most), and the playlist
    /// was not written.
    func testAPlaylistFileNameFitsWhateverTheGenresScript() {
        for name in [String(repeating: "日本語の音楽", count: 30), String(repeating: "🎵", count: 100), String(repeating: "Rock ", count: 80)] {
            let file = PlaylistsStage.fileName(name)
            XCTAssertLessThanOrEqual(file.utf8.count, 200, file)
            XCTAssertGreaterThan(file.utf8.count, 190, file)
            XCTAssertTrue(name.hasPrefix(file), file)
            XCTAssertFalse(file.hasSuffix(" "), file)
            XCTAssertLessThanOrEqual((file + " (2).m3u8").utf8.count, 255)
        }
        XCTAssertEqual(PlaylistsStage.fileName("Korean Pop"), "Korean Pop")
    }

    // Attack review, low 12: a symlink planted where the default playlists folder goes was written through (20
    // playlists outside the library), "Rock" and "ROCK" were one file on a case-insensitive file system, and
    // U+202E survived in file names.
    func testPlaylistsAreNotWrittenThroughAPlantedLinkNorOverEachOther() throws {
        try Synth.write(Synth.sine(frequency: 440, seconds: 2), to: library + "/a.flac", format: .flac16)
        try Synth.write(Synth.sine(frequency: 660, seconds: 2), to: library + "/b.flac", format: .flac16)
        XCTAssertEqual(try spindle(["analyze", "--quiet"]).status, 0)
        try SpindleDatabase(path: db).writer.write { db in
            for name in ["Rock", "ROCK", "Evil\u{202E}u3m.exe"] {
                try db.execute(sql: """
                    INSERT INTO composite_genres (name, kind, confidence, size, description, built_at, root_id)
                    VALUES (?, 'rule', 1, 1, '', '2026-01-01', 1)
                    """, arguments: [name])
                try db.execute(sql: "INSERT INTO genre_memberships SELECT ?, id, 1, '' FROM files", arguments: [db.lastInsertedRowID])
            }
        }
        let outside = dir + "/outside"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: library + "/Spindle Playlists", withDestinationPath: outside)
        let planted = try spindle(["playlists", "write"])
        XCTAssertNotEqual(planted.status, 0)
        XCTAssertTrue(planted.stderr.contains("is a symbolic link"), planted.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: outside), [])
        try FileManager.default.removeItem(atPath: library + "/Spindle Playlists")
        XCTAssertEqual(try spindle(["playlists", "write"]).status, 0)
        let names = try FileManager.default.contentsOfDirectory(atPath: library + "/Spindle Playlists").sorted()
        XCTAssertEqual(Set(names.map { $0.lowercased() }).count, 3, "\(names)")
        XCTAssertTrue(names.contains("Evil_u3m.exe.m3u8"), "\(names)")
    }
}
