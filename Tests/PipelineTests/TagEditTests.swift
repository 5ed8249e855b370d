import AudioDecoding
import Foundation
import GRDB
import Library
@testable import Pipeline
import Store
import Tagging
import TestSupport
import XCTest

/// Tag batches end to end, checked by an independent reader (mutagen): values in the native frames, art,
/// lyrics and audio untouched, undo exact and once, escapes refused, kills leave whole files.
final class TagEditTests: XCTestCase {
    var dir = ""
    var library = ""
    var db = ""

    override func setUpWithError() throws {
        dir = try Synth.temporaryDirectory("tagedit")
        library = dir + "/music"
        db = dir + "/spindle.db"
        try FileManager.default.createDirectory(atPath: library, withIntermediateDirectories: true)
        guard Synth.run("ffmpeg", ["-version"]) == 0, Mutagen.available else {
            throw XCTSkip("needs the ffmpeg command and python3's mutagen (scripts/test.sh installs both)")
        }
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: dir)
    }

    /// Every format, tagged by ffmpeg, with cover art (where ffmpeg can attach it) and lyrics.
    func makeFiles() throws -> [String] {
        try Synth.write(Synth.clicks(bpm: 120, seconds: 3), to: dir + "/src.wav", format: .wav16)
        try Synth.write(Synth.concat([Float](repeating: 0.5, count: 2 * 32 * 32)), to: dir + "/dummy.wav", format: .wav16)
        XCTAssertEqual(Synth.run("ffmpeg", ["-y", "-loglevel", "error", "-f", "lavfi", "-i", "color=c=red:s=32x32",
                                            "-frames:v", "1", dir + "/cover.png"]), 0)
        let art = ["-i", dir + "/cover.png", "-map", "0:a", "-map", "1:v", "-c:v", "png", "-disposition:v", "attached_pic"]
        let tags = ["-metadata", "title=Original", "-metadata", "artist=Someone", "-metadata", "genre=Rock",
                    "-metadata", "lyrics=la la la"]
        let specs: [(String, [String])] = [
            ("a.flac", art + ["-c:a", "flac"]),
            ("b23.mp3", art + ["-c:a", "libmp3lame", "-id3v2_version", "3"]),
            ("b24.mp3", art + ["-c:a", "libmp3lame", "-id3v2_version", "4"]),
            ("c.m4a", art + ["-c:a", "aac"]),
            ("d.ogg", ["-c:a", "libvorbis"]),
            ("e.opus", ["-c:a", "libopus"]),
            ("f.wv", ["-c:a", "wavpack"]),
        ]
        var names: [String] = []
        for (name, args) in specs {
            let r = Synth.run("ffmpeg", ["-y", "-loglevel", "error", "-i", dir + "/src.wav"] + args + tags + [library + "/" + name])
            XCTAssertEqual(r, 0, name)
            names.append(name)
        }
        return names
    }

    func testEditsLandInNativeFramesAndKeepEverythingElseThenUndoExactly() throws {
        let files = try makeFiles()
        let before = try Dictionary(uniqueKeysWithValues: files.map { ($0, try Mutagen.dump(library + "/" + $0)) })
        let audio = try Dictionary(uniqueKeysWithValues: files.map { ($0, try decodedSamples(library + "/" + $0)) })
        let args = ["--db", db, "--library", library, "tags", "set"] + files
            + ["--set", "BPM=128", "--set", "REPLAYGAIN_TRACK_GAIN=-6.50 dB", "--set", "GENRE=Synth-Pop", "--set", "GENRE=Electronic",
               "--set", "TITLE=Edited"]
        let dry = try CLI.run(args + ["--dry-run"])
        XCTAssertEqual(dry.status, 0, dry.stderr)
        XCTAssertTrue(dry.stdout.contains("TITLE: \"Original\" → \"Edited\""), dry.stdout)
        XCTAssertEqual(try Mutagen.dump(library + "/a.flac"), before["a.flac"], "a dry run writes nothing")
        let r = try CLI.run(args)
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)

        let flac = try Mutagen.dump(library + "/a.flac")
        XCTAssertEqual(flac.tags["bpm"], ["128"])
        XCTAssertEqual(flac.tags["replaygain_track_gain"], ["-6.50 dB"])
        XCTAssertEqual(flac.tags["genre"], ["Synth-Pop", "Electronic"], "multi-valued stays multi-valued")
        XCTAssertEqual(flac.tags["lyrics"], ["la la la"])
        for name in ["b23.mp3", "b24.mp3"] {
            let mp3 = try Mutagen.dump(library + "/" + name)
            XCTAssertEqual(mp3.tags["TBPM"], ["128"], name)
            XCTAssertEqual(mp3.tags["TXXX:REPLAYGAIN_TRACK_GAIN"], ["-6.50 dB"], name)
            XCTAssertEqual(mp3.version, before[name]!.version, "\(name) keeps its ID3v2 version")
            XCTAssertEqual(mp3.tags["TXXX:USLT"], before[name]!.tags["TXXX:USLT"], "unknown frames survive")
        }
        let m4a = try Mutagen.dump(library + "/c.m4a")
        XCTAssertEqual(m4a.tags["tmpo"], ["128"])
        XCTAssertEqual(m4a.tags["----:com.apple.iTunes:REPLAYGAIN_TRACK_GAIN"], ["-6.50 dB"])
        XCTAssertEqual(m4a.tags["©lyr"], ["la la la"])
        for name in ["d.ogg", "e.opus"] {
            XCTAssertEqual(try Mutagen.dump(library + "/" + name).tags["bpm"], ["128"], name)
        }
        XCTAssertEqual(try Mutagen.dump(library + "/f.wv").tags["BPM"], ["128"])
        for name in files {
            let after = try Mutagen.dump(library + "/" + name)
            XCTAssertEqual(after.pictures, before[name]!.pictures, "\(name): cover art unchanged")
            XCTAssertEqual(try decodedSamples(library + "/" + name), audio[name]!, "\(name): decoded audio unchanged")
        }

        let undo = try CLI.run(["--db", db, "--library", library, "tags", "undo", "--last"])
        XCTAssertEqual(undo.status, 0, undo.stdout + undo.stderr)
        for name in files {
            XCTAssertEqual(try Mutagen.dump(library + "/" + name).tags, before[name]!.tags, "\(name): undo restores the tags exactly")
        }
        let again = try CLI.run(["--db", db, "--library", library, "tags", "undo", "1"])
        XCTAssertEqual(again.status, 2)
        XCTAssertTrue(again.stderr.contains("already undone"), again.stderr)
        XCTAssertTrue(try FileManager.default.contentsOfDirectory(atPath: library).allSatisfy { !$0.hasPrefix(".spindle-tmp") })
    }

    func testEscapesAndUnknownKeysAreRefused() throws {
        _ = try makeFiles()
        try Synth.write(Synth.clicks(bpm: 100, seconds: 1), to: dir + "/outside.flac", format: .flac16)
        let outsideBefore = try Data(contentsOf: URL(fileURLWithPath: dir + "/outside.flac"))
        let r = try CLI.run(["--db", db, "--library", library, "tags", "set", "../outside.flac", dir + "/outside.flac",
                             "--set", "TITLE=x"])
        XCTAssertEqual(r.status, 3)
        XCTAssertTrue(r.stdout.contains("refused"), r.stdout)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: dir + "/outside.flac")), outsideBefore)
        let custom = try CLI.run(["--db", db, "--library", library, "tags", "set", "a.flac", "--set", "MYKEY=1"])
        XCTAssertEqual(custom.status, 3)
        XCTAssertTrue(custom.stdout.contains("--allow-custom"), custom.stdout)
        let allowed = try CLI.run(["--db", db, "--library", library, "tags", "set", "a.flac", "--set", "MYKEY=1", "--allow-custom"])
        XCTAssertEqual(allowed.status, 0, allowed.stdout)
        XCTAssertEqual(try Mutagen.dump(library + "/a.flac").tags["mykey"], ["1"])
    }

    /// MP4 keeps the BPM, track and disc numbers and the compilation flag in integer atoms. "BPM=120.5" and
    /// "TRACKNUMBER=03/12" were written, then refused by the copy's read-back check ("BPM did not read back as
    /// written"); now a value the atom holds in another form is written in that form, and one it cannot hold
    /// refuses the file when the batch is planned, saying why, while the other formats take it as typed.
    /// `--set BPM=` (an empty shell variable) failed on every file after writing it; it is a usage error. So
    /// did several artists for a WMA file, whose content description holds one.
    func testValuesAFieldCannotHoldAreRefusedWhenPlanned() throws {
        _ = try makeFiles()
        let r = try CLI.run(["--db", db, "--library", library, "tags", "set", "a.flac", "c.m4a", "--set", "BPM=120.5"])
        XCTAssertEqual(r.status, 3, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("refused c.m4a: an MP4 file can hold BPM only as one whole number"), r.stdout)
        XCTAssertFalse(r.stdout.contains("failed c.m4a"), r.stdout)
        XCTAssertEqual(try Mutagen.dump(library + "/a.flac").tags["bpm"], ["120.5"])
        let fitted = try CLI.run(["--db", db, "--library", library, "tags", "set", "c.m4a",
                                  "--set", "BPM= 0121", "--set", "TRACKNUMBER=03/12", "--set", "COMPILATION=yes"])
        XCTAssertEqual(fitted.status, 0, fitted.stdout + fitted.stderr)
        let m4a = try Mutagen.dump(library + "/c.m4a")
        XCTAssertEqual(m4a.tags["tmpo"], ["121"])
        XCTAssertEqual(m4a.tags["trkn"], ["(3, 12)"])
        XCTAssertEqual(m4a.tags["cpil"], ["True"])
        let empty = try CLI.run(["--db", db, "--library", library, "tags", "set", "a.flac", "--set", "BPM="])
        XCTAssertEqual(empty.status, 2, empty.stdout + empty.stderr)
        XCTAssertTrue(empty.stderr.contains("use --unset BPM"), empty.stderr)
        XCTAssertEqual(try Mutagen.dump(library + "/a.flac").tags["bpm"], ["120.5"])

        // WMA's title, artist, copyright and comment are one string each, in its content description.
        XCTAssertEqual(Synth.run("ffmpeg", ["-y", "-loglevel", "error", "-i", dir + "/src.wav", "-c:a", "wmav2", library + "/g.wma"]), 0)
        let two = try CLI.run(["--db", db, "--library", library, "tags", "set", "a.flac", "g.wma", "--set", "ARTIST=A", "--set", "ARTIST=B"])
        XCTAssertEqual(two.status, 3, two.stdout + two.stderr)
        XCTAssertTrue(two.stdout.contains("refused g.wma: a WMA file can hold ARTIST only as one value"), two.stdout)
        XCTAssertEqual(try Mutagen.dump(library + "/a.flac").tags["artist"], ["A", "B"])
    }

    /// A title edited in place by a tool that keeps the file's time (Picard's "preserve timestamps", Mp3tag's
    /// "preserve file modification time"), into the padding, leaves size and time as they were: no scan saw it,
    /// and the old title stayed in genres, mixes and playlists for good. The inode's change time moved, and
    /// the scan reads the file's tags again. A forced run reads every file's tags, whatever the times say.
    func testATimeKeepingToolsEditIsReadByTheScanAndAForcedRunReadsEveryFile() throws {
        _ = try makeFiles()
        let program = """
            import os, sys, mutagen
            st = os.stat(sys.argv[1])
            f = mutagen.File(sys.argv[1], easy=True)
            f["title"] = [sys.argv[2]]
            f.save()
            os.utime(sys.argv[1], ns=(st.st_atime_ns, st.st_mtime_ns))
            assert os.stat(sys.argv[1]).st_size == st.st_size
            """
        XCTAssertEqual(try CLI.run(["--db", db, "--library", library, "scan"]).status, 0)
        XCTAssertEqual(Synth.run("python3", ["-c", program, library + "/a.flac", "Kept Time"]), 0)
        func title() throws -> String? {
            try SpindleDatabase(path: db).writer.read {
                try String.fetchOne($0, sql: "SELECT t.title FROM tracks t JOIN files f ON f.id = t.file_id WHERE f.path = 'a.flac'")
            }
        }
        let rescan = try CLI.run(["--db", db, "--library", library, "scan"])
        XCTAssertEqual(rescan.status, 0, rescan.stderr)
        XCTAssertTrue(rescan.stdout.contains("tags: 1 read"), rescan.stdout)
        XCTAssertEqual(try title(), "Kept Time")
        let again = try CLI.run(["--db", db, "--library", library, "scan"])
        XCTAssertTrue(again.stdout.contains("tags: 0 read"), again.stdout)
        // Forced for one file: that file's tags are read, not the whole library's.
        let forced = try CLI.run(["--db", db, "--library", library, "analyze", "--force", "a.flac"])
        XCTAssertEqual(forced.status, 0, forced.stderr)
        XCTAssertTrue((forced.stdout + forced.stderr).contains("tags: 1 read"), forced.stdout + forced.stderr)
        XCTAssertEqual(try title(), "Kept Time")
        let whole = try CLI.run(["--db", db, "--library", library, "analyze", "--force"])
        XCTAssertTrue((whole.stdout + whole.stderr).contains("tags: 7 read"), whole.stdout + whole.stderr)
    }

    /// A folder stands for its files, and a path typed from a folder inside the library is that file's own
    /// path: `tags set "Album"` and `cd Album && spindle tags set a.flac` had been refused ("no file at this
    /// path ... found by file name lookup"), and `tags show Album` showed one file guessed by its words.
    func testAFolderOrAPathTypedInsideTheLibraryNamesItsFiles() throws {
        _ = try makeFiles()
        try FileManager.default.createDirectory(atPath: library + "/Album", withIntermediateDirectories: true)
        for name in ["a.flac", "d.ogg"] { try FileManager.default.moveItem(atPath: library + "/" + name, toPath: library + "/Album/" + name) }
        func spindle(_ arguments: [String], from folder: String? = nil) throws -> CLI.Result {
            try CLI.run(["--db", db, "--library", library] + arguments, folder: folder)
        }
        let folder = try spindle(["tags", "set", "Album", "--set", "GENRE=Jazz"])
        XCTAssertEqual(folder.status, 0, folder.stdout + folder.stderr)
        XCTAssertEqual(try Mutagen.dump(library + "/Album/a.flac").tags["genre"], ["Jazz"])
        XCTAssertEqual(try Mutagen.dump(library + "/Album/d.ogg").tags["genre"], ["Jazz"])
        XCTAssertEqual(try Mutagen.dump(library + "/e.opus").tags["genre"], ["Rock"])
        let here = try spindle(["tags", "set", "a.flac", "--set", "TITLE=Here"], from: library + "/Album")
        XCTAssertEqual(here.status, 0, here.stdout + here.stderr)
        XCTAssertEqual(try Mutagen.dump(library + "/Album/a.flac").tags["title"], ["Here"])
        let show = try spindle(["tags", "show", "--json", "Album"])
        XCTAssertEqual(show.status, 0, show.stderr)
        XCTAssertEqual(show.stdout.split(separator: "\n").count, 2, show.stdout)
        // A file copied in since the last scan, shown from its folder before any scan.
        try FileManager.default.copyItem(atPath: library + "/e.opus", toPath: library + "/Album/new.opus")
        let unscanned = try spindle(["tags", "show", "--json", "new.opus"], from: library + "/Album")
        XCTAssertEqual(unscanned.status, 0, unscanned.stderr)
        XCTAssertTrue(unscanned.stdout.contains("\"path\":\"Album/new.opus\""), unscanned.stdout)
        XCTAssertEqual(unscanned.stderr, "")
        // A "." typed outside the library is not the whole library.
        let dot = try spindle(["tags", "set", ".", "--set", "GENRE=Pop"], from: dir)
        XCTAssertEqual(dot.status, 3, dot.stdout)
        XCTAssertEqual(try Mutagen.dump(library + "/e.opus").tags["genre"], ["Rock"])
    }

    /// `tags show` of a file TagLib cannot read said where TagLib had read it, not which file it was:
    /// "A/noise.mp3: /proc/self/fd/9/noise.mp3: TagLib found no audio stream in this file".
    func testTagsShowSaysWhyAFileCannotBeReadInTheLibrarysOwnPath() throws {
        _ = try makeFiles()
        try FileManager.default.createDirectory(atPath: library + "/A", withIntermediateDirectories: true)
        try Data(repeating: 0x5A, count: 3000).write(to: URL(fileURLWithPath: library + "/A/noise.mp3"))
        XCTAssertEqual(try CLI.run(["--db", db, "--library", library, "scan"]).status, 0)
        let show = try CLI.run(["--db", db, "--library", library, "tags", "show", "A/noise.mp3"])
        XCTAssertNotEqual(show.status, 0)
        XCTAssertTrue(show.stderr.contains("A/noise.mp3: TagLib"), show.stderr)
        XCTAssertFalse(show.stderr.contains("/proc/"), show.stderr)
    }

    /// A FLAC laid out STREAMINFO, a picture of `art` bytes, the comments (TITLE), then padding, as metaflac
    /// leaves a file whose picture was added before its tags.
    func flacWithPictureFirst(_ source: Data, title: String, padding: Int, art: Int = 100_000) -> Data {
        var offset = 4
        var streamInfo = Data()
        while true {
            let header = source[offset]
            let length = Int(source[offset + 1]) << 16 | Int(source[offset + 2]) << 8 | Int(source[offset + 3])
            if header & 0x7F == 0 { streamInfo = source.subdata(in: (offset + 4)..<(offset + 4 + length)) }
            offset += 4 + length
            if header & 0x80 != 0 { break }
        }
        func block(_ type: UInt8, _ body: Data, last: Bool = false) -> Data {
            Data([type | (last ? 0x80 : 0), UInt8(body.count >> 16 & 0xFF), UInt8(body.count >> 8 & 0xFF), UInt8(body.count & 0xFF)]) + body
        }
        func be32(_ v: Int) -> Data { withUnsafeBytes(of: UInt32(v).bigEndian) { Data($0) } }
        func le32(_ v: Int) -> Data { withUnsafeBytes(of: UInt32(v).littleEndian) { Data($0) } }
        let mime = Data("image/png".utf8), vendor = Data("test".utf8), comment = Data("TITLE=\(title)".utf8)
        var picture = be32(3) + be32(mime.count) + mime
        picture += be32(0) + be32(1) + be32(1) + be32(24)
        picture += be32(0) + be32(art) + Data(repeating: 0xA5, count: art)
        var comments = le32(vendor.count) + vendor
        comments += le32(1) + le32(comment.count) + comment
        var file = Data("fLaC".utf8) + block(0, streamInfo) + block(6, picture)
        file += block(4, comments) + block(1, Data(count: padding), last: true)
        return file + source.subdata(in: offset..<source.count)
    }

    /// A tag edited in place past the first 64 KiB (comments after a large picture, rewritten into the padding)
    /// leaves the size and the bytes the content key samples as they were: the scan called the file unchanged
    /// and the index kept the old title, for genres, playlists and mixes, until some other edit.
    func testATagEditedInPlaceBehindALargePictureIsReadAgain() throws {
        // Noise: frames well over the 64 KiB the content key samples at the end.
        try Synth.write(Synth.noise(seconds: 2, rmsDBFS: -20), to: dir + "/src.flac", format: .flac16)
        let source = try Data(contentsOf: URL(fileURLWithPath: dir + "/src.flac"))
        let path = library + "/t.flac"
        let before = flacWithPictureFirst(source, title: "Before", padding: 1000)
        let after = flacWithPictureFirst(source, title: "Afterwards", padding: 996)
        XCTAssertEqual(before.count, after.count)
        XCTAssertGreaterThan(source.count, 200_000)
        func title() throws -> String? {
            let database = try Store.SpindleDatabase(path: db)
            return try database.writer.read { try String.fetchOne($0, sql: "SELECT title FROM tracks") }
        }
        try before.write(to: URL(fileURLWithPath: path))
        XCTAssertEqual(try CLI.run(["--db", db, "--library", library, "analyze"]).status, 0)
        XCTAssertEqual(try title(), "Before")
        try after.write(to: URL(fileURLWithPath: path))
        // A later time, whatever the file system's resolution.
        var times = [timespec(tv_sec: time(nil) + 10, tv_nsec: 0), timespec(tv_sec: time(nil) + 10, tv_nsec: 0)]
        XCTAssertEqual(utimensat(AT_FDCWD, path, &times, 0), 0)
        let rescan = try CLI.run(["--db", db, "--library", library, "analyze"])
        XCTAssertEqual(rescan.status, 0, rescan.stderr)
        XCTAssertEqual(try title(), "Afterwards")
        // The audio is as it was: read again for its tags, not analysed again.
        XCTAssertTrue(rescan.stdout.contains("tags: 1 read"), rescan.stdout)
        XCTAssertTrue(rescan.stdout.contains("analyze: 0 analysed"), rescan.stdout)
    }

    /// Rows from before the change time was kept: a file whose inode changed after its row last did may have
    /// been edited that way already, and is read again once; the rest are not read at all.
    func testAnEditWithTimestampsKeptBeforeChangeTimesWereKeptIsReadAgainOnce() throws {
        try Synth.write(Synth.noise(seconds: 2, rmsDBFS: -20), to: dir + "/src.flac", format: .flac16)
        let source = try Data(contentsOf: URL(fileURLWithPath: dir + "/src.flac"))
        for name in ["t", "u"] {
            try flacWithPictureFirst(source, title: "Before", padding: 1000).write(to: URL(fileURLWithPath: library + "/\(name).flac"))
        }
        XCTAssertEqual(try CLI.run(["--db", db, "--library", library, "scan"]).status, 0)
        try Store.SpindleDatabase(path: db).writer.write { try $0.execute(sql: "UPDATE files SET ctime_ns = NULL") }
        try keepingTimestamps(library + "/t.flac") {
            try flacWithPictureFirst(source, title: "Afterwards", padding: 996).write(to: URL(fileURLWithPath: library + "/t.flac"))
        }
        let rescan = try CLI.run(["--db", db, "--library", library, "scan"])
        XCTAssertEqual(rescan.status, 0, rescan.stderr)
        XCTAssertEqual(try titles(), ["t.flac": "Afterwards", "u.flac": "Before"])
        XCTAssertTrue(rescan.stdout.contains("tags: 1 read"), rescan.stdout)
        let again = try CLI.run(["--db", db, "--library", library, "scan"])
        XCTAssertTrue(again.stdout.contains("tags: 0 read"), again.stdout)
    }

    func titles() throws -> [String: String] {
        try Store.SpindleDatabase(path: db).writer.read { db in
            Dictionary(uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT f.path, t.title FROM files f JOIN tracks t ON t.file_id = f.id")
                .map { ($0[0] as String, $0[1] as String) })
        }
    }

    /// Runs `edit` on the file and sets its access and modification times back, as a tagger keeping timestamps does.
    func keepingTimestamps(_ path: String, _ edit: () throws -> Void) throws {
        var st = stat()
        XCTAssertEqual(stat(path, &st), 0)
        try edit()
        var times = [st.st_atim, st.st_mtim]
        XCTAssertEqual(utimensat(AT_FDCWD, path, &times, 0), 0)
    }

    func testUndoDoesNotClobberAFileChangedSince() throws {
        _ = try makeFiles()
        XCTAssertEqual(try CLI.run(["--db", db, "--library", library, "tags", "set", "a.flac", "d.ogg", "--set", "TITLE=One"]).status, 0)
        // Someone else edits a.flac afterwards.
        Thread.sleep(forTimeInterval: 0.02)
        Mutagen.retag(library + "/a.flac", album: "Later")
        let undo = try CLI.run(["--db", db, "--library", library, "tags", "undo", "1"])
        XCTAssertEqual(undo.status, 3)
        XCTAssertTrue(undo.stdout.contains("not restored a.flac"), undo.stdout)
        XCTAssertEqual(try Mutagen.dump(library + "/a.flac").tags["title"], ["One"])
        XCTAssertEqual(try Mutagen.dump(library + "/d.ogg").tags["title"], ["Original"])
    }

    /// Two libraries in one database: `undo --last` took the latest batch of either, and undoing the other
    /// library's batch read its paths against this root ("cannot open folder …", exit 3, the batch left open).
    func testUndoTakesTheBatchesOfItsOwnLibrary() throws {
        _ = try makeFiles()
        let other = dir + "/other disk"
        try FileManager.default.createDirectory(atPath: other + "/B", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: library + "/a.flac", toPath: other + "/B/b.flac")
        XCTAssertEqual(try CLI.run(["--db", db, "--library", library, "tags", "set", "a.flac", "--set", "TITLE=Ours"]).status, 0)
        XCTAssertEqual(try CLI.run(["--db", db, "--library", other, "tags", "set", "B/b.flac", "--set", "TITLE=Theirs"]).status, 0)
        let named = try CLI.run(["--db", db, "--library", library, "tags", "undo", "2"])
        XCTAssertEqual(named.status, 2, named.stdout + named.stderr)
        XCTAssertTrue(named.stderr.contains("tag batch #2 changed files of the library at \(other): undo it with --library \(other)"),
                      named.stderr)
        let last = try CLI.run(["--db", db, "--library", library, "tags", "undo", "--last"])
        XCTAssertEqual(last.status, 0, last.stdout + last.stderr)
        XCTAssertEqual(try Mutagen.dump(library + "/a.flac").tags["title"], ["Original"])
        XCTAssertEqual(try Mutagen.dump(other + "/B/b.flac").tags["title"], ["Theirs"])
        let none = try CLI.run(["--db", db, "--library", library, "tags", "undo", "--last"])
        XCTAssertEqual(none.status, 2)
        XCTAssertTrue(none.stderr.contains("no tag batch of this library to undo"), none.stderr)
        XCTAssertEqual(try CLI.run(["--db", db, "--library", other, "tags", "undo", "--last"]).status, 0)
        XCTAssertEqual(try Mutagen.dump(other + "/B/b.flac").tags["title"], ["Original"])
    }

    /// Undoing an older batch while a later one still holds the same file is refused before any file is
    /// touched, naming the later batch. Before, the file was reported as changed since, and the older batch was
    /// closed as undone all the same: once the later batch was undone, the older one could never be, and the
    /// tags it wrote stayed for good.
    func testUndoingABatchALaterBatchWroteOverAsksForTheLaterOneFirst() throws {
        _ = try makeFiles()
        let base = ["--db", db, "--library", library, "tags"]
        XCTAssertEqual(try CLI.run(base + ["set", "a.flac", "d.ogg", "--set", "TITLE=First"]).status, 0)
        XCTAssertEqual(try CLI.run(base + ["set", "a.flac", "--set", "TITLE=Second"]).status, 0)
        let early = try CLI.run(base + ["undo", "1"])
        XCTAssertEqual(early.status, 2, early.stdout + early.stderr)
        XCTAssertTrue(early.stderr.contains("tag batch #2 changed a.flac after #1: undo #2 first"), early.stderr)
        XCTAssertEqual(try Mutagen.dump(library + "/d.ogg").tags["title"], ["First"], "nothing is undone")
        XCTAssertEqual(try CLI.run(base + ["undo", "2"]).status, 0)
        let then = try CLI.run(base + ["undo", "1"])
        XCTAssertEqual(then.status, 0, then.stdout + then.stderr)
        XCTAssertEqual(try Mutagen.dump(library + "/a.flac").tags["title"], ["Original"])
        XCTAssertEqual(try Mutagen.dump(library + "/d.ogg").tags["title"], ["Original"])
    }

    func testApplyFromCSVAndFixers() throws {
        _ = try makeFiles()
        let csv = dir + "/edits.csv"
        try "path,key,value\na.flac,TITLE,\"Comma, Title\"\na.flac,GENRE,Hip Hop\nd.ogg,TRACKNUMBER,03\nd.ogg,ARTIST,\"  Spaced  \"\n"
            .write(toFile: csv, atomically: true, encoding: .utf8)
        XCTAssertEqual(try CLI.run(["--db", db, "--library", library, "tags", "apply", csv]).status, 0)
        XCTAssertEqual(try Mutagen.dump(library + "/a.flac").tags["title"], ["Comma, Title"])
        let fix = try CLI.run(["--db", db, "--library", library, "tags", "fix", "whitespace", "genre-aliases", "numbers", "--dry-run"])
        XCTAssertTrue(fix.stdout.contains("GENRE: \"Hip Hop\" → \"Hip-Hop\""), fix.stdout)
        XCTAssertTrue(fix.stdout.contains("TRACKNUMBER: \"03\" → \"3\""), fix.stdout)
        XCTAssertTrue(fix.stdout.contains("ARTIST: \"  Spaced  \" → \"Spaced\""), fix.stdout)
        XCTAssertEqual(try CLI.run(["--db", db, "--library", library, "tags", "fix", "whitespace", "genre-aliases", "numbers"]).status, 0)
        XCTAssertEqual(try Mutagen.dump(library + "/a.flac").tags["genre"], ["Hip-Hop"])
        XCTAssertEqual(try Mutagen.dump(library + "/d.ogg").tags["tracknumber"], ["3"])
    }

    func testWriteAnalysisUsesTheConventionsAndAlbumBlocks() throws {
        // Two tracks of one album at different levels: the album gain comes from both tracks' blocks together.
        // The quiet one has a guest and no album artist is tagged: it is still the same album (it had been
        // an album of its own, with its own album gain).
        let loud = Synth.sine(frequency: 1000, seconds: 6, amplitude: pow(10, -10 / 20))
        let quiet = Synth.sine(frequency: 1000, seconds: 6, amplitude: pow(10, -30 / 20))
        try Synth.write(loud, to: dir + "/loud.wav", format: .wav16)
        try Synth.write(quiet, to: dir + "/quiet.wav", format: .wav16)
        for (src, name, codec, artist) in [("loud.wav", "1.flac", "flac", "A"), ("quiet.wav", "2.flac", "flac", "A feat. B"),
                                           ("loud.wav", "3.opus", "libopus", "A")] {
            XCTAssertEqual(Synth.run("ffmpeg", ["-y", "-loglevel", "error", "-i", dir + "/" + src, "-c:a", codec,
                                                "-metadata", "album=Album", "-metadata", "artist=" + artist, library + "/" + name]), 0)
        }
        XCTAssertEqual(try CLI.run(["--db", db, "--library", library, "analyze"]).status, 0)
        XCTAssertEqual(try CLI.run(["--db", db, "--library", library, "tags", "write-analysis"]).status, 0)
        let one = try Mutagen.dump(library + "/1.flac").tags
        let gain = try XCTUnwrap(one["replaygain_track_gain"]?.first)
        XCTAssertTrue(gain.hasSuffix(" dB") && gain.contains("."), gain)
        // A -10 dBFS 1 kHz sine in stereo measures about -10.0 LUFS: gain -18 - (-10) = -8.
        XCTAssertEqual(Double(gain.dropLast(3))!, -8, accuracy: 0.2)
        let album = try XCTUnwrap(Double(try XCTUnwrap(one["replaygain_album_gain"]?.first).dropLast(3)))
        // Gating all blocks together: the quiet track's blocks fall under the relative gate, so the album
        // measures like the loud tracks, not like an average of -8 and +12.
        XCTAssertEqual(album, -8, accuracy: 0.3)
        XCTAssertEqual(try Mutagen.dump(library + "/2.flac").tags["replaygain_album_gain"], one["replaygain_album_gain"])
        XCTAssertEqual(one["replaygain_track_peak"]?.first?.count, 8)
        let opus = try Mutagen.dump(library + "/3.opus").tags
        XCTAssertNil(opus["replaygain_track_gain"])
        XCTAssertEqual(Double(try XCTUnwrap(opus["r128_track_gain"]?.first))!, 256 * -13, accuracy: 60, "Q7.8 relative to -23 LUFS")
    }

    /// A double album is one album for its album gain: discs in folders of their own ("CD1", "Disc 2") count
    /// as the album's folder, and one MusicBrainz release is one album wherever its tracks lie (with untagged
    /// tracks of the same folder and title). Before, each disc had its own album gain (here 20 dB apart), so
    /// the level jumped between discs. A track tagged without the album artist its folder's album has joins it.
    func testADoubleAlbumHasOneAlbumGain() throws {
        let loud = Synth.sine(frequency: 1000, seconds: 6, amplitude: pow(10, -10 / 20))
        let quiet = Synth.sine(frequency: 1000, seconds: 6, amplitude: pow(10, -30 / 20))
        try Synth.write(loud, to: dir + "/loud.wav", format: .wav16)
        try Synth.write(quiet, to: dir + "/quiet.wav", format: .wav16)
        let files: [(String, String, [String])] = [
            ("loud.wav", "Double/CD1/1.flac", ["album=Double"]), ("quiet.wav", "Double/Disc 2 - Live/1.flac", ["album=Double"]),
            ("loud.wav", "Box/1.flac", ["album=Box", "MUSICBRAINZ_ALBUMID=6f2b5f5c-1c3e-4a4e-9d1b-0b5b0a1d2c3e"]),
            ("quiet.wav", "Box (Bonus)/1.flac", ["album=Box", "MUSICBRAINZ_ALBUMID=6f2b5f5c-1c3e-4a4e-9d1b-0b5b0a1d2c3e"]),
            ("quiet.wav", "Box (Bonus)/2.flac", ["album=Box"]),
            ("quiet.wav", "Other/CD1/1.flac", ["album=Other"]), ("loud.wav", "Another/CD1/1.flac", ["album=Another"]),
            ("loud.wav", "Bonus/1.flac", ["album=Bonus", "album_artist=A"]), ("quiet.wav", "Bonus/2.flac", ["album=Bonus"]),
            ("loud.wav", "Split/1.flac", ["album=Split", "album_artist=X"]), ("loud.wav", "Split/2.flac", ["album=Split", "album_artist=Y"]),
            ("quiet.wav", "Split/3.flac", ["album=Split"]),
        ]
        for (source, path, tags) in files {
            try FileManager.default.createDirectory(atPath: library + "/" + (path as NSString).deletingLastPathComponent,
                                                    withIntermediateDirectories: true)
            XCTAssertEqual(Synth.run("ffmpeg", ["-y", "-loglevel", "error", "-i", dir + "/" + source]
                                     + tags.flatMap { ["-metadata", $0] } + [library + "/" + path]), 0)
        }
        XCTAssertEqual(try CLI.run(["--db", db, "--library", library, "analyze"]).status, 0)
        XCTAssertEqual(try CLI.run(["--db", db, "--library", library, "tags", "write-analysis", "--replaygain"]).status, 0)
        func albumGain(_ path: String) throws -> String? { try Mutagen.dump(library + "/" + path).tags["replaygain_album_gain"]?.first }
        XCTAssertEqual(try albumGain("Double/CD1/1.flac"), try albumGain("Double/Disc 2 - Live/1.flac"))
        XCTAssertEqual(try albumGain("Box/1.flac"), try albumGain("Box (Bonus)/1.flac"))
        // A bonus track without the release id, beside one that has it, is still of that album.
        XCTAssertEqual(try albumGain("Box (Bonus)/2.flac"), try albumGain("Box/1.flac"))
        // A track without an album artist is of its folder's album of that title (it had an album gain of its
        // own, 20 dB away), unless the folder holds that title under two album artists.
        XCTAssertEqual(try albumGain("Bonus/2.flac"), try albumGain("Bonus/1.flac"))
        XCTAssertNotEqual(try albumGain("Split/3.flac"), try albumGain("Split/1.flac"))
        XCTAssertNotEqual(try albumGain("Split/3.flac"), try albumGain("Split/2.flac"))
        // Different albums under disc folders stay apart.
        XCTAssertNotEqual(try albumGain("Other/CD1/1.flac"), try albumGain("Another/CD1/1.flac"))
        XCTAssertTrue(AnalysisTags.AlbumKey.isDiscFolder("CD 2") && AnalysisTags.AlbumKey.isDiscFolder("disk_4"))
        XCTAssertFalse(AnalysisTags.AlbumKey.isDiscFolder("Discovery") || AnalysisTags.AlbumKey.isDiscFolder("CDs"))
    }

    /// A file another recording was copied over (a re-rip, a better download under the same name) had the old
    /// recording's tempo, key and ReplayGain written into it, and its album's gain counted the old recording,
    /// when `write-analysis` ran before `analyze`: the results were of the row, not of the file. Here the new
    /// recording is 20 dB quieter: it would have been played 20 dB too quiet, for good.
    func testWriteAnalysisLeavesAFileChangedSinceItsAnalysisAlone() throws {
        let loud = Synth.sine(frequency: 1000, seconds: 6, amplitude: pow(10, -10 / 20))
        let quiet = Synth.sine(frequency: 1000, seconds: 6, amplitude: pow(10, -30 / 20))
        for (samples, name) in [(loud, "1.wav"), (loud, "2.wav"), (quiet, "new.wav")] {
            try Synth.write(samples, to: dir + "/" + name, format: .wav16)
        }
        func encode(_ source: String, to name: String) {
            XCTAssertEqual(Synth.run("ffmpeg", ["-y", "-loglevel", "error", "-i", dir + "/" + source, "-c:a", "flac",
                                                "-metadata", "album=Album", "-metadata", "artist=A", library + "/" + name]), 0)
        }
        encode("1.wav", to: "1.flac")
        encode("2.wav", to: "2.flac")
        func spindle(_ arguments: [String]) throws -> CLI.Result { try CLI.run(["--db", db, "--library", library] + arguments) }
        XCTAssertEqual(try spindle(["analyze"]).status, 0)
        encode("new.wav", to: "2.flac")

        for paths in [[], [library + "/2.flac"]] {
            let write = try spindle(["tags", "write-analysis"] + paths)
            XCTAssertEqual(write.status, 0, write.stderr)
            XCTAssertTrue(write.stderr.contains("1 file(s) changed since they were analysed (2.flac)"), write.stderr)
            XCTAssertNil(try Mutagen.dump(library + "/2.flac").tags["replaygain_track_gain"], "the old recording's gain")
        }
        // The other track gets its own results, but no album gain that counts the old recording.
        var one = try Mutagen.dump(library + "/1.flac").tags
        XCTAssertEqual(Double(try XCTUnwrap(one["replaygain_track_gain"]?.first).dropLast(3))!, -8, accuracy: 0.2)
        XCTAssertNil(one["replaygain_album_gain"])

        // Analysed again, the new recording gets its own gain, and the album both tracks' as they are.
        XCTAssertEqual(try spindle(["analyze"]).status, 0)
        XCTAssertEqual(try spindle(["tags", "write-analysis"]).status, 0)
        let two = try Mutagen.dump(library + "/2.flac").tags
        XCTAssertEqual(Double(try XCTUnwrap(two["replaygain_track_gain"]?.first).dropLast(3))!, 12, accuracy: 0.2)
        one = try Mutagen.dump(library + "/1.flac").tags
        XCTAssertEqual(Double(try XCTUnwrap(one["replaygain_album_gain"]?.first).dropLast(3))!, -8, accuracy: 0.3)
        XCTAssertEqual(two["replaygain_album_gain"], one["replaygain_album_gain"])
    }

    /// A file analysed in part (cut short, or still being copied when the nightly run met it) had the part's
    /// gain and tempo written as the file's; and a copier still writing to it would have written on into the
    /// file the tag write replaced, losing the rest of the copy.
    func testWriteAnalysisLeavesAFileAnalysedInPartAlone() throws {
        let music = Synth.concat(Synth.sine(frequency: 1000, seconds: 4, amplitude: 0.3), Synth.sine(frequency: 1000, seconds: 4, amplitude: 0.03))
        try Synth.write(music, to: dir + "/whole.flac", format: .flac16)
        let whole = try Data(contentsOf: URL(fileURLWithPath: dir + "/whole.flac"))
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: library + "/copying.flac"))
        try Synth.write(music, to: library + "/other.flac", format: .flac16)
        XCTAssertEqual(try CLI.run(["--db", db, "--library", library, "analyze"]).status, 0)
        let write = try CLI.run(["--db", db, "--library", library, "tags", "write-analysis"])
        XCTAssertEqual(write.status, 0, write.stderr)
        XCTAssertTrue(write.stderr.contains("1 file(s) analysed in part only (copying.flac)"), write.stderr)
        XCTAssertNil(try Mutagen.dump(library + "/copying.flac").tags["replaygain_track_gain"])
        XCTAssertNotNil(try Mutagen.dump(library + "/other.flac").tags["replaygain_track_gain"])
    }

    /// A file replaced after the command's own scan, while a large batch is planned, is refused: its plan is of
    /// other content than its analysis.
    func testAnAnalysisTagPlanOfOtherContentIsRefused() {
        func plan(_ path: String, _ key: String?) -> FilePlan {
            FilePlan(path: path, fileId: nil, changes: [KeyChange(key: "BPM", old: nil, new: ["120"])],
                     expected: FileState(size: 1, mtimeNs: 1, contentKey: key))
        }
        let kept = AnalysisTags.ofAnalysedContent([plan("same.flac", "k1"), plan("replaced.flac", "k3"), plan("unkeyed.flac", nil)],
                                                  ["same.flac": "k1", "replaced.flac": "k2", "unkeyed.flac": "k4"])
        XCTAssertEqual(kept.plans.map(\.path), ["same.flac"])
        XCTAssertEqual(kept.refusals.map(\.input), ["replaced.flac", "unkeyed.flac"])
        XCTAssertTrue(kept.refusals[0].reason.contains("changed since it was analysed"), kept.refusals[0].reason)
    }

    /// `--min-bpm-confidence` writes a tempo only where the analysis is at least that sure of it, and says how
    /// many it left alone; the other results are written either way.
    func testWriteAnalysisCanLeaveUnsureTempiOut() throws {
        try Synth.write(Synth.clicks(bpm: 120, seconds: 10), to: library + "/clicks.flac", format: .flac16)
        XCTAssertEqual(try CLI.run(["--db", db, "--library", library, "analyze"]).status, 0)
        let inspected = try CLI.run(["inspect", "--json", library + "/clicks.flac"]).stdout
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(inspected.utf8)) as? [String: Any])
        let confidence = try XCTUnwrap(object["bpm_confidence"] as? Double)
        XCTAssertLessThan(confidence, 1)
        let above = String(format: "%.4f", (confidence + 1) / 2), below = String(format: "%.4f", confidence - 0.001)
        let unsure = try CLI.run(["--db", db, "--library", library, "tags", "write-analysis", "--bpm", "--replaygain",
                                  "--min-bpm-confidence", above])
        XCTAssertEqual(unsure.status, 0, unsure.stderr)
        XCTAssertTrue((unsure.stdout + unsure.stderr).contains("1 file(s) keep their BPM tag: tempo confidence under"),
                      unsure.stdout + unsure.stderr)
        var tags = try Mutagen.dump(library + "/clicks.flac").tags
        XCTAssertNil(tags["bpm"], "\(tags)")
        XCTAssertNotNil(tags["replaygain_track_gain"], "\(tags)")
        XCTAssertEqual(try CLI.run(["--db", db, "--library", library, "tags", "write-analysis", "--bpm",
                                    "--min-bpm-confidence", below]).status, 0)
        tags = try Mutagen.dump(library + "/clicks.flac").tags
        XCTAssertEqual(tags["bpm"], ["120"])
        XCTAssertEqual(try CLI.run(["--db", db, "--library", library, "tags", "write-analysis", "--min-bpm-confidence", "1.5"]).status, 2)
    }

    /// Tempo version 13 finds no tempo in steady sounds that earlier versions read as one (a chord in Opus as 95
    /// BPM), and features version 3 no key in a lone note (an A drone had read as D minor), but the BPM and key an
    /// earlier write-analysis wrote stayed in the files, where Navidrome's smart playlists read them. They go now;
    /// values the user set stay, even the same ones, and undo puts the removed ones back.
    func testTagsWriteAnalysisWroteGoWhenTheAnalysisNoLongerSupportsThem() throws {
        let steady = Synth.sine(frequency: 220, seconds: 10, amplitude: 0.3)
        try Synth.write(steady, to: library + "/ours.flac", format: .flac16)
        try Synth.write(steady, to: library + "/theirs.flac", format: .flac16)
        let spindle = { (arguments: [String]) in try CLI.run(["--db", self.db, "--library", self.library] + arguments) }
        XCTAssertEqual(try spindle(["analyze"]).status, 0)
        // What earlier versions had stored for both, written into the first by write-analysis.
        let database = try SpindleDatabase(path: db)
        try database.writer.write { db in try db.execute(sql: "UPDATE analysis SET bpm = 112, bpm_confidence = 0.6, key = 'D minor'") }
        XCTAssertEqual(try spindle(["tags", "write-analysis", "--bpm", "--key", "ours.flac"]).status, 0)
        var ours = try Mutagen.dump(library + "/ours.flac").tags
        XCTAssertEqual([ours["bpm"], ours["initialkey"], ours["key"]], [["112"], ["Dm"], ["Dm"]])
        XCTAssertEqual(try spindle(["tags", "set", "theirs.flac", "--set", "BPM=112", "--set", "INITIALKEY=Dm"]).status, 0)
        // Measured again: no tempo, no key.
        XCTAssertEqual(try spindle(["analyze", "--force", "--only", "tempo,features"]).status, 0)
        XCTAssertEqual(try database.writer.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM analysis WHERE bpm IS NULL AND key IS NULL")
        }, 2)
        let written = try spindle(["tags", "write-analysis", "--bpm", "--key"])
        XCTAssertEqual(written.status, 0, written.stderr)
        XCTAssertTrue((written.stdout + written.stderr).contains("1 file(s) lose a BPM or key tag an earlier write-analysis gave them"),
                      written.stdout + written.stderr)
        ours = try Mutagen.dump(library + "/ours.flac").tags
        XCTAssertEqual([ours["bpm"], ours["initialkey"], ours["key"]], [nil, nil, nil], "\(ours)")
        let theirs = try Mutagen.dump(library + "/theirs.flac").tags
        XCTAssertEqual([theirs["bpm"], theirs["initialkey"]], [["112"], ["Dm"]])
        XCTAssertEqual(try spindle(["tags", "undo", "--last"]).status, 0)
        ours = try Mutagen.dump(library + "/ours.flac").tags
        XCTAssertEqual([ours["bpm"], ours["initialkey"], ours["key"]], [["112"], ["Dm"], ["Dm"]])
    }

    /// TagLib 1.13 maps no ASF attribute to INITIALKEY or ReplayGain, so a WMA file's whole write failed ("this
    /// format cannot store"), its BPM with it. They go where Picard, foobar2000 and Navidrome put them:
    /// `WM/InitialKey` and attributes named as the property; an existing spelling is replaced, not doubled;
    /// `tags show` reads them back, undo removes them; a stray copy of a property TagLib writes goes.
    func testWMAGetsKeyAndReplayGainAsAttributesOtherToolsRead() throws {
        try Synth.write(Synth.chords(Synth.cadence(tonic: 9, minor: true), timbre: .organ, rate: 44100),
                        to: dir + "/src.wav", format: .wav16)
        XCTAssertEqual(Synth.run("ffmpeg", ["-y", "-loglevel", "error", "-i", dir + "/src.wav", "-c:a", "wmav2",
                                            "-metadata", "album=Album", "-metadata", "replaygain_track_gain=+9.00 dB",
                                            "-metadata", "title=Old", library + "/a.wma"]), 0)
        XCTAssertEqual(try CLI.run(["--db", db, "--library", library, "analyze"]).status, 0)
        let written = try CLI.run(["--db", db, "--library", library, "tags", "write-analysis"])
        XCTAssertEqual(written.status, 0, written.stdout + written.stderr)
        let tags = try Mutagen.dump(library + "/a.wma").tags
        XCTAssertEqual(tags["WM/InitialKey"], ["Am"], "\(tags)")
        XCTAssertNotNil(tags["WM/BeatsPerMinute"], "\(tags)")
        let gain = try XCTUnwrap(tags["replaygain_track_gain"]?.first, "the existing spelling is kept: \(tags)")
        XCTAssertNotEqual(gain, "+9.00 dB")
        XCTAssertNil(tags["REPLAYGAIN_TRACK_GAIN"], "one attribute, not two: \(tags)")
        for key in ["REPLAYGAIN_TRACK_PEAK", "REPLAYGAIN_ALBUM_GAIN", "REPLAYGAIN_ALBUM_PEAK"] {
            XCTAssertEqual(tags[key]?.count, 1, "\(key): \(tags)")
        }
        let shown = try CLI.run(["--db", db, "--library", library, "tags", "show", "a.wma"]).stdout
        XCTAssertTrue(shown.contains("INITIALKEY = Am") && shown.contains("REPLAYGAIN_TRACK_GAIN = \(gain)"), shown)
        XCTAssertEqual(try CLI.run(["--db", db, "--library", library, "tags", "undo", "--last"]).status, 0)
        let undone = try Mutagen.dump(library + "/a.wma").tags
        XCTAssertNil(undone["WM/InitialKey"], "\(undone)")
        XCTAssertNil(undone["REPLAYGAIN_ALBUM_GAIN"], "\(undone)")
        XCTAssertEqual(undone["replaygain_track_gain"], ["+9.00 dB"], "\(undone)")
        // ffmpeg also writes the title as an attribute; a new title must not leave the old one there for others.
        XCTAssertEqual(undone["title"], ["Old"], "\(undone)")
        XCTAssertEqual(try CLI.run(["--db", db, "--library", library, "tags", "set", "--set", "TITLE=New", "a.wma"]).status, 0)
        let retitled = try Mutagen.dump(library + "/a.wma").tags
        XCTAssertEqual(retitled["Title"], ["New"], "\(retitled)")
        XCTAssertNil(retitled["title"], "\(retitled)")
    }

    /// A tag write proves the audio unchanged, so the next run analyses nothing again (the batch has re-read
    /// the tags itself); undo likewise. New audio at the same path is still analysed. Before, every file
    /// written was analysed again (7 of 7 after write-analysis).
    func testTagWritesKeepTheAnalysisButNewAudioIsAnalysed() throws {
        let names = try makeFiles()
        let analyze = ["--db", db, "--library", library, "analyze", "--json"]
        XCTAssertTrue(try CLI.run(analyze).stdout.contains("\"analysed\": \(names.count)"))
        XCTAssertEqual(try CLI.run(["--db", db, "--library", library, "tags", "write-analysis"]).status, 0)
        let afterWrite = try CLI.run(analyze).stdout
        XCTAssertTrue(afterWrite.contains("\"analysed\": 0"), afterWrite)
        XCTAssertEqual(try CLI.run(["--db", db, "--library", library, "tags", "undo", "--last"]).status, 0)
        let afterUndo = try CLI.run(analyze).stdout
        XCTAssertTrue(afterUndo.contains("\"analysed\": 0"), afterUndo)
        // Other audio under the same name: analysed again.
        Thread.sleep(forTimeInterval: 0.02)
        try Synth.write(Synth.clicks(bpm: 100, seconds: 4), to: library + "/a.flac", format: .flac16)
        let afterNewAudio = try CLI.run(analyze).stdout
        XCTAssertTrue(afterNewAudio.contains("\"analysed\": 1"), afterNewAudio)
    }

    /// Another tagger (Picard and beets write with mutagen) rewriting the tags leaves the audio as it was: the
    /// next run reads the tags again and keeps the analysis of the FLAC, MP3, M4A, Ogg, Opus, WAV, WavPack,
    /// TTA and DSF files, whose audio key proves it (an M4A whose `moov` comes first too: its chunk offsets all
    /// move), also when the file moved as well (beets renames by the new tags). Other audio under a known name
    /// is analysed again. Before audio keys every retagged file was analysed again; before WavPack, TTA and DSF
    /// had keys, those three were.
    func testFilesRetaggedByAnotherToolKeepTheirAnalysis() throws {
        var names = try makeFiles()
        try Synth.write(Synth.clicks(bpm: 120, seconds: 3), to: library + "/g.wav", format: .wav16)
        XCTAssertEqual(Synth.run("ffmpeg", ["-y", "-loglevel", "error", "-i", dir + "/src.wav", "-c:a", "aac",
                                            "-movflags", "+faststart", library + "/h.m4a"]), 0)
        XCTAssertEqual(Synth.run("ffmpeg", ["-y", "-loglevel", "error", "-i", dir + "/src.wav", "-c:a", "tta",
                                            library + "/i.tta"]), 0)
        let tone = Synth.dsdSine(frequency: 440, seconds: 1, amplitude: 0.25)
        try Synth.writeDSF([tone, tone], to: library + "/j.dsf", tags: ["TIT2": "Original"])
        names += ["g.wav", "h.m4a", "i.tta", "j.dsf"]
        let analyze = ["--db", db, "--library", library, "analyze", "--json"]
        XCTAssertTrue(try CLI.run(analyze).stdout.contains("\"analysed\": \(names.count)"))
        for name in names { Mutagen.retag(library + "/" + name, album: "Retagged") }
        let retagged = try CLI.run(analyze).stdout
        XCTAssertTrue(retagged.contains("\"changed\": \(names.count)"), retagged)
        XCTAssertTrue(retagged.contains("\"retagged\": \(names.count)"), retagged)
        XCTAssertTrue(retagged.contains("\"analysed\": 0"), retagged)
        let database = try Store.SpindleDatabase(path: db)
        let albums = try database.writer.read {
            try String.fetchAll($0, sql: "SELECT t.album FROM tracks t JOIN files f ON f.id = t.file_id ORDER BY f.path")
        }
        XCTAssertEqual(albums, [String](repeating: "Retagged", count: names.count))
        // Moved and retagged: the row moves with its analysis.
        try FileManager.default.createDirectory(atPath: library + "/Artist", withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: library + "/a.flac", toPath: library + "/Artist/01 A.flac")
        Mutagen.retag(library + "/Artist/01 A.flac", album: "Renamed")
        let moved = try CLI.run(analyze).stdout
        XCTAssertTrue(moved.contains("\"moved\": 1") && moved.contains("\"retagged\": 1"), moved)
        XCTAssertTrue(moved.contains("\"new\": 0") && moved.contains("\"analysed\": 0"), moved)
        // Other audio under a known name is analysed.
        Thread.sleep(forTimeInterval: 0.02)
        try Synth.write(Synth.clicks(bpm: 100, seconds: 4), to: library + "/g.wav", format: .wav16)
        let replaced = try CLI.run(analyze).stdout
        XCTAssertTrue(replaced.contains("\"retagged\": 0") && replaced.contains("\"analysed\": 1"), replaced)
    }

    /// DSF tags are read (through FFmpeg) but TagLib cannot write them: write-analysis over the library leaves
    /// the file alone with a note and succeeds; naming it in `tags set` is refused (exit 3), the file untouched.
    func testFilesWhoseTagsCannotBeWrittenAreLeftAloneOrRefused() throws {
        let tone = Synth.dsdSine(frequency: 440, seconds: 0.5, amplitude: 0.25)
        try Synth.writeDSF([tone, tone], to: library + "/a.dsf", tags: ["TIT2": "Original"])
        try Synth.write(Synth.clicks(bpm: 120, seconds: 8), to: library + "/b.flac", format: .flac16)
        XCTAssertEqual(try CLI.run(["--db", db, "--library", library, "analyze"]).status, 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: library + "/a.dsf"))
        let write = try CLI.run(["--db", db, "--library", library, "tags", "write-analysis"])
        XCTAssertEqual(write.status, 0, write.stdout + write.stderr)
        XCTAssertTrue(write.stderr.contains("1 file(s) left alone"), write.stderr)
        XCTAssertEqual(try Mutagen.dump(library + "/b.flac").tags["bpm"], ["120"])
        let set = try CLI.run(["--db", db, "--library", library, "tags", "set", "a.dsf", "--set", "TITLE=New"])
        XCTAssertEqual(set.status, 3)
        XCTAssertTrue(set.stdout.contains("refused a.dsf"), set.stdout)
        // The refusal names the container, not only the codec (TagLib writes AAC in .m4a, not in .aac).
        XCTAssertTrue(set.stdout.contains("cannot write tags into this .dsf file holding dsd"), set.stdout)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: library + "/a.dsf")), before)
        let shown = try CLI.run(["--db", db, "--library", library, "tags", "show", "a.dsf"])
        XCTAssertTrue(shown.stdout.contains("TITLE = Original"), shown.stdout)
    }

    func testWriteAnalysisKeyRoundTripsOnEveryFormat() throws {
        // A minor cadence: every encoding is analysed, its key written as INITIALKEY in the format's own frame,
        // and in Vorbis comments and APEv2 as KEY too (what Navidrome reads there; before, its smart playlists
        // saw no key in FLAC, Ogg, Opus or WavPack files), read back by mutagen, then undone. Formats with a
        // frame of their own for the key get no second, free-form one.
        try Synth.write(Synth.chords(Synth.cadence(tonic: 9, minor: true), timbre: .organ, rate: 44100),
                        to: dir + "/src.wav", format: .wav16)
        let specs: [(String, [String], [String], [String])] = [
            ("a.flac", ["-c:a", "flac"], ["initialkey", "key"], []),
            ("b23.mp3", ["-c:a", "libmp3lame", "-id3v2_version", "3"], ["TKEY"], ["TXXX:KEY"]),
            ("b24.mp3", ["-c:a", "libmp3lame", "-id3v2_version", "4"], ["TKEY"], ["TXXX:KEY"]),
            ("c.m4a", ["-c:a", "aac"], ["----:com.apple.iTunes:initialkey"], ["----:com.apple.iTunes:KEY"]),
            ("d.ogg", ["-c:a", "libvorbis"], ["initialkey", "key"], []),
            ("e.opus", ["-c:a", "libopus"], ["initialkey", "key"], []),
            ("f.wv", ["-c:a", "wavpack"], ["INITIALKEY", "KEY"], []),
        ]
        for (name, args, _, _) in specs {
            XCTAssertEqual(Synth.run("ffmpeg", ["-y", "-loglevel", "error", "-i", dir + "/src.wav"] + args + [library + "/" + name]), 0, name)
        }
        XCTAssertEqual(try CLI.run(["--db", db, "--library", library, "analyze"]).status, 0)
        let status = try JSONSerialization.jsonObject(with: Data(try CLI.run(["--db", db, "--library", library, "status", "--json"]).stdout.utf8)) as? [String: Any]
        XCTAssertEqual(status?["feature_vectors"] as? Int, specs.count)
        let written = try CLI.run(["--db", db, "--library", library, "tags", "write-analysis", "--key"])
        XCTAssertEqual(written.status, 0, written.stderr)
        for (name, _, frames, absent) in specs {
            let dump = try Mutagen.dump(library + "/" + name)
            for frame in frames { XCTAssertEqual(dump.tags[frame], ["Am"], "\(name) \(frame): \(dump.tags)") }
            for frame in absent { XCTAssertNil(dump.tags[frame], "\(name) \(frame): \(dump.tags)") }
            XCTAssertNil(dump.tags["TBPM"] ?? dump.tags["bpm"], "--key alone writes only the key (\(name))")
            if name.hasPrefix("b23") { XCTAssertEqual(dump.version, "2.3") }
            if name.hasPrefix("b24") { XCTAssertEqual(dump.version, "2.4") }
        }
        let shown = try CLI.run(["--db", db, "--library", library, "tags", "show", "c.m4a"])
        XCTAssertTrue(shown.stdout.contains("INITIALKEY = Am"), shown.stdout)
        XCTAssertEqual(try CLI.run(["--db", db, "--library", library, "tags", "undo", "--last"]).status, 0)
        for (name, _, frames, _) in specs {
            for frame in frames { XCTAssertNil(try Mutagen.dump(library + "/" + name).tags[frame], "undone: \(name) \(frame)") }
        }
        // A key typed by hand is still checked against TagLib's names.
        let typed = try CLI.run(["--db", db, "--library", library, "tags", "set", "--set", "KEY=Am", "a.flac"])
        XCTAssertNotEqual(typed.status, 0)
        XCTAssertTrue((typed.stdout + typed.stderr).contains("KEY (TagLib's name: INITIALKEY)"), typed.stdout + typed.stderr)
    }

    // An MP4 freeform item TagLib maps to a property (Picard's "MusicBrainz Track Id") was read twice: as
    // MUSICBRAINZ_TRACKID and again as "MUSICBRAINZ TRACK ID". Items it does not map (ReplayGain) still come
    // through under their own names.
    /// The tags `tags show --json` gives for one library file.
    private func shownTags(_ path: String) throws -> [String: [String]] {
        let shown = try CLI.run(["--db", db, "--library", library, "tags", "show", "--json", path])
        let object = try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any]
        return try XCTUnwrap(object?["tags"] as? [String: [String]], shown.stdout + shown.stderr)
    }

    func testMP4FreeformItemsAreReadOnce() throws {
        try Synth.write(Synth.sine(frequency: 440, seconds: 2, amplitude: 0.4), to: dir + "/src.wav", format: .wav16)
        XCTAssertEqual(Synth.run("ffmpeg", ["-y", "-loglevel", "error", "-i", dir + "/src.wav", "-c:a", "aac", library + "/c.m4a"]), 0)
        let set = try CLI.run(["--db", db, "--library", library, "tags", "set", "c.m4a", "--set", "MUSICBRAINZ_TRACKID=tid-99",
                               "--set", "REPLAYGAIN_TRACK_GAIN=-6.50 dB"])
        XCTAssertEqual(set.status, 0, set.stderr)
        XCTAssertEqual(try Mutagen.dump(library + "/c.m4a").tags["----:com.apple.iTunes:MusicBrainz Track Id"], ["tid-99"])
        let tags = try shownTags("c.m4a")
        XCTAssertEqual(tags.keys.filter { $0.contains("MUSICBRAINZ") }, ["MUSICBRAINZ_TRACKID"])
        XCTAssertEqual(tags["MUSICBRAINZ_TRACKID"], ["tid-99"])
        XCTAssertEqual(tags["REPLAYGAIN_TRACK_GAIN"], ["-6.50 dB"])
    }

    // FFmpeg (and foobar2000) tag TTA files with APEv2 at the end, which TagLib 1.13 does not read there: such a
    // file had no title, artist or album at all. Its fields are read where the ID3 tags have none, and stay
    // visible after a write (which goes to ID3v2, as TagLib writes TTA).
    func testTTAFilesAPETagsAreRead() throws {
        try Synth.write(Synth.sine(frequency: 440, seconds: 2, amplitude: 0.4), to: dir + "/src.wav", format: .wav16)
        XCTAssertEqual(Synth.run("ffmpeg", ["-y", "-loglevel", "error", "-i", dir + "/src.wav", "-c:a", "tta",
                                            "-metadata", "title=Kaze", "-metadata", "album_artist=Circle", "-metadata", "album=Reitaisai",
                                            library + "/a.tta"]), 0)
        XCTAssertEqual(try CLI.run(["--db", db, "--library", library, "scan"]).status, 0)
        let tags = try shownTags("a.tta")
        XCTAssertEqual(tags["TITLE"], ["Kaze"], "\(tags)")
        XCTAssertEqual(tags["ALBUM"], ["Reitaisai"], "\(tags)")
        XCTAssertEqual(tags["ALBUM_ARTIST"], ["Circle"], "\(tags)")
        let set = try CLI.run(["--db", db, "--library", library, "tags", "set", "--set", "BPM=120", "a.tta"])
        XCTAssertEqual(set.status, 0, set.stdout + set.stderr)
        let after = try CLI.run(["--db", db, "--library", library, "tags", "show", "a.tta"]).stdout
        XCTAssertTrue(after.contains("BPM = 120") && after.contains("TITLE = Kaze"), after)
    }

    // beets and foobar2000 write MP4 ReplayGain in lower case ("----:com.apple.iTunes:replaygain_track_gain"). A
    // write added an upper-case item beside it, read back two values and failed the file ("did not read back as
    // written"): every M4A a beets user had tagged. The existing item is now replaced, keeping its spelling, and
    // undo puts back the old value.
    func testMP4FreeformItemsOfAnotherCaseAreReplaced() throws {
        try Synth.write(Synth.sine(frequency: 440, seconds: 2, amplitude: 0.4), to: dir + "/src.wav", format: .wav16)
        XCTAssertEqual(Synth.run("ffmpeg", ["-y", "-loglevel", "error", "-i", dir + "/src.wav", "-c:a", "aac", library + "/c.m4a"]), 0)
        XCTAssertEqual(Synth.run("python3", ["-c", """
            import sys
            from mutagen.mp4 import MP4, MP4FreeForm
            f = MP4(sys.argv[1])
            f["----:com.apple.iTunes:replaygain_track_gain"] = [MP4FreeForm(b"+9.00 dB")]
            f.save()
            """, library + "/c.m4a"]), 0)
        let set = try CLI.run(["--db", db, "--library", library, "tags", "set", "c.m4a", "--set", "REPLAYGAIN_TRACK_GAIN=-6.50 dB"])
        XCTAssertEqual(set.status, 0, set.stdout + set.stderr)
        let tags = try Mutagen.dump(library + "/c.m4a").tags
        XCTAssertEqual(tags["----:com.apple.iTunes:replaygain_track_gain"], ["-6.50 dB"], "\(tags)")
        XCTAssertNil(tags["----:com.apple.iTunes:REPLAYGAIN_TRACK_GAIN"], "\(tags)")
        XCTAssertEqual(try CLI.run(["--db", db, "--library", library, "tags", "undo", "--last"]).status, 0)
        XCTAssertEqual(try Mutagen.dump(library + "/c.m4a").tags["----:com.apple.iTunes:replaygain_track_gain"], ["+9.00 dB"])
    }

    /// 30 FLAC files titled "Old" by "Old", scanned, and an edits file renaming both to "New"; the batch is
    /// started, and returned once its first file is written, so what happens next lands mid-batch.
    private func startBatchOfThirty() throws -> Process {
        try Synth.write(Synth.clicks(bpm: 120, seconds: 20), to: dir + "/src.wav", format: .wav16)
        var csv = "path,key,value\n"
        for i in 0..<30 {
            let name = String(format: "k%02d.flac", i)
            XCTAssertEqual(Synth.run("ffmpeg", ["-y", "-loglevel", "error", "-i", dir + "/src.wav", "-c:a", "flac",
                                                "-metadata", "title=Old", "-metadata", "artist=Old", library + "/" + name]), 0)
            csv += "\(name),TITLE,New\n\(name),ARTIST,New\n"
        }
        try csv.write(toFile: dir + "/edits.csv", atomically: true, encoding: .utf8)
        XCTAssertEqual(try CLI.run(["--db", db, "--library", library, "scan"]).status, 0)
        let run = try CLI.start(["--db", db, "--library", library, "tags", "apply", dir + "/edits.csv"])
        let first = library + "/k00.flac"
        let deadline = Date().addingTimeInterval(120)
        while (try? TagReader.read(path: first).first("TITLE")) != "New", run.isRunning, Date() < deadline {
            usleep(2000)
        }
        return run
    }

    /// Each of the thirty files, "[\"Old\"]/[\"Old\"]" or "[\"New\"]/[\"New\"]", checked whole.
    private func batchStates() throws -> [String] {
        var states: [String] = []
        for i in 0..<30 {
            let path = library + String(format: "/k%02d.flac", i)
            let tags = try Mutagen.dump(path).tags
            let state = "\(tags["title"] ?? [])/\(tags["artist"] ?? [])"
            XCTAssertTrue(state == "[\"Old\"]/[\"Old\"]" || state == "[\"New\"]/[\"New\"]", "\(path): \(state)")
            XCTAssertFalse(try decodedSamples(path).isEmpty)
            states.append(state)
        }
        return states
    }

    func testABatchKilledMidwayLeavesWholeFiles() throws {
        let run = try startBatchOfThirty()
        kill(run.processIdentifier, SIGKILL)
        run.waitUntilExit()
        let states = try batchStates()
        XCTAssertTrue(states.contains("[\"New\"]/[\"New\"]") && states.contains("[\"Old\"]/[\"Old\"]"),
                      "the kill landed mid-batch: \(states)")
        // The next run removes any temporary copy the kill left behind.
        XCTAssertEqual(try CLI.run(["--db", db, "--library", library, "scan"]).status, 0)
        XCTAssertTrue(try FileManager.default.contentsOfDirectory(atPath: library).allSatisfy { !$0.hasPrefix(".spindle-tmp") })
    }

    /// SIGTERM (systemd's stop) mid-batch: the batch ends between files, each written file is journaled, so
    /// undo restores every one, and the run is recorded as interrupted rather than left "running".
    func testABatchStoppedBySIGTERMEndsBetweenFilesAndUndoes() throws {
        let run = try startBatchOfThirty()
        kill(run.processIdentifier, SIGTERM)
        run.waitUntilExit()
        XCTAssertEqual(run.terminationReason, .uncaughtSignal)
        let states = try batchStates()
        let written = states.filter { $0 == "[\"New\"]/[\"New\"]" }.count
        XCTAssertTrue(written > 0 && written < 30, "stopped mid-batch: \(states)")
        XCTAssertEqual(Array(states.prefix(written)), Array(repeating: "[\"New\"]/[\"New\"]", count: written), "in order, then none")
        let status = try CLI.run(["--db", db, "status", "--json"])
        let runs = (try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])?["runs"] as? [[String: Any]]
        XCTAssertEqual(runs?.first?["status"] as? String, "interrupted", status.stdout)
        XCTAssertEqual(runs?.first?["files_done"] as? Int, written, status.stdout)
        XCTAssertEqual(try CLI.run(["--db", db, "--library", library, "tags", "undo", "--last"]).status, 0)
        XCTAssertEqual(try batchStates(), Array(repeating: "[\"Old\"]/[\"Old\"]", count: 30), "undo restores every written file")
    }

    func testID3VersionChangesOnlyWhenAsked() throws {
        _ = try makeFiles()
        XCTAssertEqual(try CLI.run(["--db", db, "--library", library, "tags", "set", "b23.mp3", "--set", "BPM=90", "--id3v2", "4"]).status, 0)
        XCTAssertEqual(try Mutagen.dump(library + "/b23.mp3").version, "2.4")
    }

    // A WAV's or AIFF's ID3v2 tag was always saved as 2.4, over the 2.3 that Windows taggers write and some
    // players read alone; `--id3v2` changed only MP3s.
    func testWAVAndAIFFKeepTheirID3Version() throws {
        _ = try makeFiles()
        for (name, format) in [("w.wav", Synth.FileFormat.wav16), ("x.aiff", .aiff16)] {
            try Synth.write(Synth.sine(frequency: 440, seconds: 1), to: library + "/" + name, format: format)
            XCTAssertEqual(try CLI.run(["--db", db, "--library", library, "tags", "set", name, "--set", "TITLE=One", "--id3v2", "3"]).status, 0)
            XCTAssertEqual(try Mutagen.dump(library + "/" + name).version, "2.3", name)
            XCTAssertEqual(try CLI.run(["--db", db, "--library", library, "tags", "set", name, "--set", "TITLE=Two"]).status, 0)
            let after = try Mutagen.dump(library + "/" + name)
            XCTAssertEqual(after.version, "2.3", name)
            XCTAssertEqual(after.tags["TIT2"], ["Two"], name)
        }
    }

    func testTagfixPipelineAppliesEditsRescansAndTellsNavidrome() throws {
        _ = try makeFiles()
        let server = try StubHTTPServer(responses: [(200, #"{"subsonic-response":{"status":"ok","version":"1.16.1"}}"#)])
        try "path,key,value\nd.ogg,TITLE,Fixed\n".write(toFile: dir + "/edits.csv", atomically: true, encoding: .utf8)
        let pipeline = dir + "/tagfix.toml"
        try """
            [pipeline]
            stages = ["tagfix", "scan", "tags"]
            [tagfix]
            edits = "\(dir)/edits.csv"
            [navidrome]
            url = "http://127.0.0.1:\(server.port)"
            user = "admin"
            password = "pw"
            """.write(toFile: pipeline, atomically: true, encoding: .utf8)
        let r = try CLI.run(["--db", db, "--library", library, "run", pipeline, "--json"])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertEqual(try Mutagen.dump(library + "/d.ogg").tags["title"], ["Fixed"])
        XCTAssertTrue(server.requests.contains { $0.contains("/rest/startScan.view") }, "\(server.requests)")
        // The index follows the files: the tags stage re-read the edited file.
        let database = try Store.SpindleDatabase(path: db)
        let title = try database.writer.read { try String.fetchOne($0, sql: "SELECT t.title FROM tracks t JOIN files f ON f.id = t.file_id WHERE f.path = 'd.ogg'") }
        XCTAssertEqual(title, "Fixed")
    }
}


/// mutagen, as an independent reader of what landed in the files.
enum Mutagen {
    struct Dump: Equatable {
        var version: String?
        var tags: [String: [String]]
        var pictures: [String]
    }

    static let script = """
        import hashlib, json, sys, mutagen
        f = mutagen.File(sys.argv[1])
        out = {"version": None, "tags": {}, "pictures": []}
        t = f.tags
        if t is not None and hasattr(t, "version"):
            out["version"] = ".".join(str(v) for v in t.version[:2])
        for p in getattr(f, "pictures", []):
            out["pictures"].append(hashlib.sha1(p.data).hexdigest())
        if t is not None:
            for key in t.keys():
                values = t[key] if not hasattr(t, "getall") else t.getall(key)
                if key.startswith("APIC"):
                    out["pictures"] += [hashlib.sha1(v.data).hexdigest() for v in values]
                    continue
                if key == "covr":
                    out["pictures"] += [hashlib.sha1(bytes(v)).hexdigest() for v in values]
                    continue
                flat = []
                for v in (values if isinstance(values, list) else [values]):
                    if hasattr(v, "text"):
                        flat += [str(x) for x in v.text]
                    elif isinstance(v, bytes):
                        flat.append(v.decode("utf-8", "replace"))
                    elif hasattr(v, "decode") and type(v).__name__ == "MP4FreeForm":
                        flat.append(bytes(v).decode("utf-8", "replace"))
                    else:
                        flat.append(str(v))
                out["tags"][key] = flat
        print(json.dumps(out))
        """

    static var available: Bool {
        Synth.run("python3", ["-c", "import mutagen"]) == 0
    }

    /// Sets the album the way Picard and beets do (mutagen rewrites the tag blocks and their padding), then
    /// adds a 5,000-character comment so the tags outgrow whatever padding the encoder left.
    static func retag(_ path: String, album: String) {
        let program = """
            import sys, mutagen
            from mutagen.id3 import TALB, COMM
            from mutagen.mp4 import MP4
            f = mutagen.File(sys.argv[1], easy=True)
            if f.tags is None:
                f.add_tags()
            try:
                f["album"] = [sys.argv[2]]
            except Exception:
                f.tags.add(TALB(encoding=3, text=[sys.argv[2]]))
            f.save()
            g = mutagen.File(sys.argv[1])
            if hasattr(g.tags, "getall"):
                g.tags.add(COMM(encoding=3, lang="eng", desc="note", text=["x" * 5000]))
            elif isinstance(g, MP4):
                g.tags["\\xa9cmt"] = ["x" * 5000]
            else:
                g.tags["note"] = ["x" * 5000]
            g.save()
            """
        XCTAssertEqual(Synth.run("python3", ["-c", program, path, album]), 0, "mutagen could not retag \(path)")
    }

    static func dump(_ path: String) throws -> Dump {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "-c", script, path]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let object = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        return Dump(version: object["version"] as? String, tags: object["tags"] as? [String: [String]] ?? [:],
                    pictures: (object["pictures"] as? [String] ?? []).sorted())
    }
}
