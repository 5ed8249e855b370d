import AudioDecoding
import CXattr
import Foundation
import Library
@testable import Pipeline
import Store
import Tagging
import TestSupport
import XCTest

/// Attacks on tag writes (issue: tag writes never lose audio, confinement holds under races): a disk that
/// fills mid-write, folders swapped for symlinks after planning, guessed targets, files changed between plan
/// and write, links, extended attributes, long names and other processes' temporary copies.
final class TagWriteSafetyTests: LibraryTestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        try FileManager.default.createDirectory(atPath: library + "/A", withIntermediateDirectories: true)
    }

    func title(_ path: String) throws -> String? { try TagReader.read(path: path).first("TITLE") }

    func temporaries(_ folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix(".spindle-tmp-") }
    }

    // 1. A file-size limit lets the copy through but stops TagLib partway through rewriting the file: TagLib
    // ignores the error. The write must notice (the audio differs) and leave the original as it was.
    func testDiskFullDuringATagWriteLeavesTheOriginalWhole() throws {
        let path = library + "/A/long.flac"
        try Synth.write(Synth.noise(seconds: 30, rmsDBFS: -20), to: path, format: .flac16)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        XCTAssertEqual(try spindle(["scan"]).status, 0)
        // The copy (the file's own size) fits under the limit; the 120 KB comment does not.
        let limitBlocks = before.count / 1024 + 16
        let comment = String(repeating: "x", count: 120_000)
        let command = "trap '' XFSZ; ulimit -f \(limitBlocks); exec \"$0\" \"$@\""
        let r = try CLI.run(["-c", command, CLI.executable, "--db", db, "--library", library, "tags", "set", "A/long.flac",
                             "--set", "COMMENT=" + comment], shell: true)
        XCTAssertEqual(r.status, 3, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("failed A/long.flac"), r.stdout)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), before, "the original is byte-for-byte untouched")
        XCTAssertEqual(try AudioDigest.of(path: path).frames, 30 * 44100)
        XCTAssertEqual(try temporaries(library + "/A"), [], "the partial copy is removed")
    }

    // Review: a copy cut short while it was made (here by a file-size limit under the file's size) was left
    // beside the original once the copy began to be held open for the edit.
    func testACopyCutShortWhileMadeIsRemoved() throws {
        let path = library + "/A/long.flac"
        try Synth.write(Synth.noise(seconds: 30, rmsDBFS: -20), to: path, format: .flac16)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        XCTAssertEqual(try spindle(["scan"]).status, 0)
        let command = "trap '' XFSZ; ulimit -f \(before.count / 2048); exec \"$0\" \"$@\""
        let r = try CLI.run(["-c", command, CLI.executable, "--db", db, "--library", library, "tags", "set", "A/long.flac",
                             "--set", "COMMENT=x"], shell: true)
        XCTAssertEqual(r.status, 3, r.stdout + r.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), before)
        XCTAssertEqual(try temporaries(library + "/A"), [], "the partial copy is removed")
    }

    // 2. Planned while A was a folder of the library; A is then swapped for a symlink to a folder outside.
    func testAFolderSwappedForASymlinkAfterPlanningIsNotWrittenThrough() throws {
        try Synth.write(Synth.sine(frequency: 440, seconds: 1), to: library + "/A/x.flac", format: .flac16)
        let outside = dir + "/outside"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: library + "/A/x.flac", toPath: outside + "/x.flac")
        let outsideBefore = try Data(contentsOf: URL(fileURLWithPath: outside + "/x.flac"))
        let database = try SpindleDatabase(path: db)
        let root = try LibraryRoot(path: library)
        _ = try LibraryScanner(database: database, root: root).scan()
        let resolver = try PathResolver(database: database, root: root)
        let (plans, refusals, _) = try TagBatch.plan([(input: "A/x.flac", edit: TagEdit(set: ["TITLE": ["Pwned"]]))],
                                                  resolver: resolver, database: database, allowCustom: false)
        XCTAssertEqual(plans.count, 1)
        XCTAssertTrue(refusals.isEmpty)
        try FileManager.default.moveItem(atPath: library + "/A", toPath: dir + "/A-moved")
        try FileManager.default.createSymbolicLink(atPath: library + "/A", withDestinationPath: outside)
        let report = try TagBatch.apply(plans, command: "test", database: database, root: root)
        XCTAssertEqual(report.filesChanged, 0)
        XCTAssertEqual(report.failed.count, 1)
        XCTAssertTrue(report.failed.first?.reason.contains("refused") ?? false, "\(report.failed)")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: outside + "/x.flac")), outsideBefore)
        XCTAssertEqual(try temporaries(outside), [])
    }

    // 2. Undo of a batch whose folder was moved outside the root and symlinked back.
    func testUndoDoesNotFollowAFolderMovedOutsideAndLinkedBack() throws {
        try Synth.write(Synth.sine(frequency: 440, seconds: 1), to: library + "/A/x.flac", format: .flac16)
        // Another file stays, so the root is not taken for an unmounted share once A has left.
        try Synth.write(Synth.sine(frequency: 550, seconds: 1), to: library + "/y.flac", format: .flac16)
        XCTAssertEqual(try spindle(["tags", "set", "A/x.flac", "--set", "TITLE=New"]).status, 0)
        let outside = dir + "/elsewhere"
        try FileManager.default.moveItem(atPath: library + "/A", toPath: outside)
        try FileManager.default.createSymbolicLink(atPath: library + "/A", withDestinationPath: outside)
        let undo = try spindle(["tags", "undo", "--last"])
        XCTAssertEqual(undo.status, 3, undo.stdout + undo.stderr)
        XCTAssertEqual(try title(outside + "/x.flac"), "New", "the file outside the root keeps what it has")
    }

    // 3. A name that does not exist must not plan an edit of some other file found by name or words.
    func testWritesRefuseFilesFoundByNameOrWords() throws {
        try Synth.write(Synth.sine(frequency: 440, seconds: 1), to: library + "/A/Lovely Song.flac", format: .flac16)
        XCTAssertEqual(try spindle(["scan"]).status, 0)
        for guess in ["Other Folder/Lovely Song.flac", "Lovely Song Remix.flac"] {
            let r = try spindle(["tags", "set", guess, "--set", "TITLE=Clobbered"])
            XCTAssertEqual(r.status, 3, guess + r.stdout)
            XCTAssertTrue(r.stdout.contains("writes need the file's own path"), r.stdout)
        }
        let fix = try spindle(["tags", "fix", "whitespace", "Lovely Song Remix.flac"])
        XCTAssertEqual(fix.status, 2, fix.stderr)
        XCTAssertNil(try title(library + "/A/Lovely Song.flac"))
        // Reads still resolve the guess and say what they matched.
        let show = try spindle(["tags", "show", "Other Folder/Lovely Song.flac"])
        XCTAssertEqual(show.status, 0, show.stderr)
        XCTAssertTrue(show.stdout.hasPrefix("A/Lovely Song.flac"), show.stdout)
        XCTAssertTrue(show.stderr.contains("file name lookup"), show.stderr)
        // The path itself, or with leading components stripped, still writes.
        XCTAssertEqual(try spindle(["tags", "set", "/music/A/Lovely Song.flac", "--set", "TITLE=Fine"]).status, 0)
        XCTAssertEqual(try title(library + "/A/Lovely Song.flac"), "Fine")
    }

    // 4. Changed by someone else between plan and write: skipped and reported, never overwritten.
    func testAFileChangedBetweenPlanAndWriteIsSkipped() throws {
        let path = library + "/A/x.flac"
        try Synth.write(Synth.sine(frequency: 440, seconds: 1), to: path, format: .flac16)
        let database = try SpindleDatabase(path: db)
        let root = try LibraryRoot(path: library)
        _ = try LibraryScanner(database: database, root: root).scan()
        let resolver = try PathResolver(database: database, root: root)
        let (plans, _, _) = try TagBatch.plan([(input: "A/x.flac", edit: TagEdit(set: ["TITLE": ["Batch"]]))],
                                           resolver: resolver, database: database, allowCustom: false)
        // Another program edits the file (new tags, same name) after the plan.
        Thread.sleep(forTimeInterval: 0.02)
        _ = try TagFileWrite.write(TagEdit(set: ["TITLE": ["Theirs"], "ARTIST": ["Them"]]), to: "A/x.flac", expected: nil, root: root)
        let report = try TagBatch.apply(plans, command: "test", database: database, root: root)
        XCTAssertEqual(report.filesChanged, 0)
        XCTAssertEqual(report.conflicts.count, 1, "\(report.failed)")
        XCTAssertEqual(try title(path), "Theirs")
        // Nothing was written, so undo restores nothing stale.
        let undo = try TagBatch.undo(batch: report.batchId, database: database, root: root)
        XCTAssertEqual(undo.filesChanged, 0)
        XCTAssertEqual(try title(path), "Theirs")
    }

    // 11. An in-library symlink is written through to its target and stays a link; xattrs survive.
    func testLinksStayLinksAndExtendedAttributesAreKept() throws {
        try Synth.write(Synth.sine(frequency: 440, seconds: 1), to: library + "/A/real.flac", format: .flac16)
        try FileManager.default.createSymbolicLink(atPath: library + "/link.flac", withDestinationPath: "A/real.flac")
        let xattrSet = setxattr(library + "/A/real.flac", "user.spindle-test", "kept", 4, 0) == 0
        XCTAssertEqual(try spindle(["tags", "set", "link.flac", "--set", "TITLE=Through"]).status, 0)
        let attributes = try FileManager.default.attributesOfItem(atPath: library + "/link.flac")
        XCTAssertEqual(attributes[.type] as? FileAttributeType, .typeSymbolicLink, "the link is still a link")
        XCTAssertEqual(try title(library + "/A/real.flac"), "Through", "its target has the new tags")
        if xattrSet {
            var value = [UInt8](repeating: 0, count: 16)
            let n = getxattr(library + "/A/real.flac", "user.spindle-test", &value, value.count)
            XCTAssertEqual(n, 4)
            XCTAssertEqual(String(decoding: value.prefix(max(n, 0)), as: UTF8.self), "kept")
        }
    }

    // 16. A hard link outside the library (a torrent client's seeding copy, as *arr tools make) keeps the old
    // file, so the new one is space taken for good: the batch says so, and is refused before anything is
    // written when the disk lacks that space, instead of filling it file after file.
    func testHardLinksOutsideTheBatchAreCountedAndTheirSpaceChecked() throws {
        let seeding = dir + "/downloads"
        try FileManager.default.createDirectory(atPath: seeding, withIntermediateDirectories: true)
        try Synth.write(Synth.noise(seconds: 3, rmsDBFS: -20), to: library + "/A/linked.flac", format: .flac16)
        try Synth.write(Synth.noise(seconds: 2, rmsDBFS: -20), to: library + "/A/twice.flac", format: .flac16)
        try Synth.write(Synth.noise(seconds: 1, rmsDBFS: -20), to: library + "/A/plain.flac", format: .flac16)
        XCTAssertEqual(link(library + "/A/linked.flac", seeding + "/linked.flac"), 0)
        // Both names of this one are in the batch: the second write frees what the first kept.
        XCTAssertEqual(link(library + "/A/twice.flac", library + "/A/twice again.flac"), 0)
        func size(_ path: String) throws -> Int64 {
            try XCTUnwrap((try FileManager.default.attributesOfItem(atPath: path))[.size] as? NSNumber).int64Value
        }
        let linkedSize = try size(library + "/A/linked.flac")

        let space = TagBatchSpace.of(["A/linked.flac", "A/twice.flac", "A/twice again.flac", "A/plain.flac"].map { ($0, 0) },
                                     root: try LibraryRoot(path: library))
        XCTAssertEqual(space.linkedFiles, 1)
        XCTAssertEqual(space.linkedBytes, linkedSize)
        let disk = try XCTUnwrap(space.disks.values.first)
        XCTAssertEqual(space.disks.count, 1)
        XCTAssertEqual(disk.largest, linkedSize, "the longest file's copy stands beside it during its write")
        XCTAssertNoThrow(try space.check(available: { _ in 2 * linkedSize }))
        XCTAssertThrowsError(try space.check(available: { _ in 2 * linkedSize - 1 })) { error in
            XCTAssertTrue("\(error)".contains("1 file(s) whose other hard links keep the old version"), "\(error)")
        }

        let seedingBefore = try Data(contentsOf: URL(fileURLWithPath: seeding + "/linked.flac"))
        let dry = try spindle(["tags", "set", "A", "--set", "GENRE=Jazz", "--dry-run"])
        XCTAssertEqual(dry.status, 0, dry.stderr)
        XCTAssertTrue(dry.stderr.contains("1 file(s) have hard links outside this batch"), dry.stderr)
        let write = try spindle(["tags", "set", "A", "--set", "GENRE=Jazz"])
        XCTAssertEqual(write.status, 0, write.stdout + write.stderr)
        XCTAssertEqual(try TagReader.read(path: library + "/A/linked.flac").first("GENRE"), "Jazz")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: seeding + "/linked.flac")), seedingBefore,
                       "the seeding copy is byte for byte as it was")
    }

    // 17. Spindle run as a member of the library's group, neither the files' owner nor root (a container's user
    // in a shared media group): the copy that replaces a file cannot be given the file's owner, but it keeps the
    // file's group and mode, so the group's other members (the media server, the downloader) may still write it.
    func testAWriterWhoIsNotTheOwnerKeepsTheFilesGroup() throws {
        guard getuid() == 0 else { throw XCTSkip("needs to set up users and groups") }
        let owner: uid_t = 1, group: gid_t = 4242, writer: UInt32 = 65534
        let path = library + "/A/shared.flac"
        try Synth.write(Synth.sine(frequency: 440, seconds: 1), to: path, format: .flac16)
        for p in [dir, library] { try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: p) }
        XCTAssertEqual(chown(library + "/A", owner, group), 0)
        XCTAssertEqual(chmod(library + "/A", 0o775), 0)
        XCTAssertEqual(chown(path, owner, group), 0)
        XCTAssertEqual(chmod(path, 0o664), 0)
        guard let r = try CLI.runUnprivileged(["--db", db, "--library", library, "tags", "set", "A/shared.flac",
                                               "--set", "GENRE=Jazz"], user: writer, groups: [UInt32(group)]) else {
            throw XCTSkip("no unprivileged user can run the built spindle here")
        }
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertEqual(try TagReader.read(path: path).first("GENRE"), "Jazz")
        var st = stat()
        XCTAssertEqual(stat(path, &st), 0)
        XCTAssertEqual(st.st_gid, group, "the file keeps its group")
        XCTAssertEqual(st.st_mode & 0o777, 0o664, "and its mode")
    }

    // 18. A library on a read-only mount (a container's `:ro` volume): every write failed alike, each after the
    // batch had journaled it. The batch is refused before anything is journaled or written, and so is an undo.
    func testABatchOnAReadOnlyMountIsRefusedBeforeAnythingIsWritten() throws {
        guard getuid() == 0 else { throw XCTSkip("needs to mount") }
        try Synth.write(Synth.sine(frequency: 440, seconds: 1), to: library + "/A/x.flac", format: .flac16)
        try Synth.write(Synth.sine(frequency: 550, seconds: 1), to: library + "/A/y.flac", format: .flac16)
        let mounted = dir + "/mounted"
        try FileManager.default.createDirectory(atPath: mounted, withIntermediateDirectories: true)
        let roDB = dir + "/mounted.db"
        // In a mount namespace of its own: the library bound read-only at `point` (`mounted`, or itself), scanned
        // into `database`, then `arguments` run there.
        func readOnly(at point: String, database: String, _ arguments: [String]) throws -> CLI.Result {
            let script = #"exec unshare -m bash -c 'mount --bind "$1" "$2" && mount -o remount,bind,ro "$2" || exit 99; "#
                + #"lib="$2"; db="$3"; shift 3; "$0" --db "$db" --library "$lib" scan > /dev/null && exec "$0" --db "$db" --library "$lib" "$@"' "#
                + #""$0" "$@""#
            let r = try CLI.run(["-c", script, CLI.executable, library, point, database] + arguments, shell: true)
            if r.status == 99 || r.stderr.contains("unshare failed") { throw XCTSkip("cannot mount here: \(r.stderr)") }
            return r
        }
        let r = try readOnly(at: mounted, database: roDB, ["tags", "set", "A/x.flac", "--set", "GENRE=Jazz"])
        XCTAssertEqual(r.status, 1, r.stdout + r.stderr)
        XCTAssertTrue(r.stderr.contains("is on a read-only file system") && r.stderr.contains("Nothing was written"), r.stderr)
        XCTAssertNil(try TagReader.read(path: library + "/A/x.flac").first("GENRE"))
        let journaled = try SpindleDatabase(path: roDB).writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM tag_edits") }
        XCTAssertEqual(journaled, 0, "nothing journaled")

        // A batch written while the library could be written, undone with the library bound read-only over itself.
        let written = try spindle(["tags", "set", "A/y.flac", "--set", "GENRE=Jazz"])
        XCTAssertEqual(written.status, 0, written.stderr)
        let undo = try readOnly(at: library, database: db, ["tags", "undo", "--last"])
        XCTAssertEqual(undo.status, 1, undo.stdout + undo.stderr)
        XCTAssertTrue(undo.stderr.contains("is on a read-only file system"), undo.stderr)
        XCTAssertEqual(try TagReader.read(path: library + "/A/y.flac").first("GENRE"), "Jazz", "left as the batch wrote it")
        XCTAssertEqual(try spindle(["tags", "undo", "--last"]).status, 0, "undone once the library can be written")
        XCTAssertNil(try TagReader.read(path: library + "/A/y.flac").first("GENRE"))
    }

    // 15. A 250-byte name: the temporary name no longer grows with the original's.
    // A WMA file whose tags grow by 40 KB (a long lyrics or comment) decodes to the same samples, but FFmpeg
    // then estimates its length from the bitrate (21.6 s instead of 20.0 s), so the copy read as truncated
    // and the write was refused though no sample had changed.
    func testAWMAFileWhoseTagsGrowLongIsWritten() throws {
        guard Synth.run("ffmpeg", ["-version"]) == 0 else { throw XCTSkip("needs the ffmpeg command") }
        try Synth.write(Synth.sine(frequency: 440, seconds: 20), to: dir + "/src.wav", format: .wav16)
        let path = library + "/A/w.wma"
        XCTAssertEqual(Synth.run("ffmpeg", ["-y", "-loglevel", "error", "-i", dir + "/src.wav", "-c:a", "wmav2", "-b:a", "128k", path]), 0)
        let before = try AudioDigest.of(path: path)
        XCTAssertEqual(try spindle(["scan"]).status, 0)
        let r = try spindle(["tags", "set", "A/w.wma", "--set", "TITLE=Grown", "--set", "COMMENT=" + String(repeating: "y", count: 20_000)])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertEqual(try title(path), "Grown")
        let after = try AudioDigest.of(path: path)
        XCTAssertEqual(after, before)
        // Nor is the written file reported damaged: FFmpeg's length from the bitrate is not taken as its length.
        XCTAssertFalse(after.damaged, "\(after)")
    }

    // A file TagLib can write whose audio no decoder reads (here a WavPack block claiming no samples) cannot
    // have its edit checked: it is left alone, and the reason names the file, not the /proc/self/fd path the
    // write reached it through.
    func testAFileWhoseAudioDoesNotDecodeIsLeftAloneWithItsOwnName() throws {
        guard Synth.run("ffmpeg", ["-version"]) == 0 else { throw XCTSkip("needs the ffmpeg command") }
        try Synth.write(Synth.sine(frequency: 440, seconds: 2), to: dir + "/src.wav", format: .wav16)
        let path = library + "/A/blank.wv"
        XCTAssertEqual(Synth.run("ffmpeg", ["-y", "-loglevel", "error", "-i", dir + "/src.wav", "-c:a", "wavpack", path]), 0)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        XCTAssertEqual(bytes.prefix(4), Data("wvpk".utf8))
        bytes.replaceSubrange(24..<28, with: Data(count: 4))       // the first block's sample count
        try bytes.write(to: URL(fileURLWithPath: path))
        XCTAssertEqual(try spindle(["scan"]).status, 0)
        let r = try spindle(["tags", "set", "A/blank.wv", "--set", "TITLE=Blank"])
        XCTAssertEqual(r.status, 3, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("failed A/blank.wv: its audio does not decode"), r.stdout + r.stderr)
        XCTAssertFalse((r.stdout + r.stderr).contains("/proc/self/fd"), r.stdout + r.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), bytes)
        // The run counts the failed write (it had been recorded with none failed), and `status` lists it as a
        // tag write's failure, not an analysis one.
        let status = try spindle(["status", "--json"])
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
        let run = try XCTUnwrap((object["runs"] as? [[String: Any]])?.first)
        XCTAssertEqual(run["files_failed"] as? Int, 1, status.stdout)
        let failures = try XCTUnwrap(object["failures"] as? [[String: Any]])
        XCTAssertEqual(failures.map { "\($0["stage"] ?? "") \($0["path"] ?? "")" }, ["tagfix A/blank.wv"])
        let text = try spindle(["status"]).stdout
        XCTAssertTrue(text.contains("pending, 0 failing") && text.contains("[tagfix] A/blank.wv: its audio does not decode"), text)
    }

    func testAFileWithALongNameCanBeEdited() throws {
        let name = String(repeating: "n", count: 245) + ".flac"
        try Synth.write(Synth.sine(frequency: 440, seconds: 1), to: library + "/A/" + name, format: .flac16)
        let r = try spindle(["tags", "set", "A/" + name, "--set", "TITLE=Long"])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertEqual(try title(library + "/A/" + name), "Long")
    }

    // Attack review, high: another user of the folder renamed a symlink to a file outside the root over the
    // copy the moment it was created; TagLib, handed the copy by name, wrote the outside file (3 of 3 tries),
    // and nothing was journaled for undo to restore it. Over 20 tries, each copy swapped, the outside file
    // must stay byte for byte what it was, and the library's file must never become the attacker's entry.
    func testACopySwappedForASymlinkAsItIsCreatedNeverWritesTheLinkedFile() throws {
        let path = library + "/A/song.wav"
        try Synth.write(Synth.sine(frequency: 440, seconds: 20), to: path, format: .wav16)
        let outside = dir + "/outside"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        let victim = outside + "/victim.wav"
        try Synth.write(Synth.sine(frequency: 330, seconds: 2), to: victim, format: .wav16)
        let victimBefore = try Data(contentsOf: URL(fileURLWithPath: victim))
        XCTAssertEqual(try spindle(["scan"]).status, 0)
        let attacker = try CopySwapAttacker(folder: library + "/A", prefix: ".spindle-tmp-", target: victim)
        defer { attacker.stop() }
        for attempt in 1...20 {
            let r = try spindle(["tags", "set", "A/song.wav", "--set", "TITLE=Pwned \(attempt)"])
            XCTAssertEqual(r.status, 3, "attempt \(attempt): " + r.stdout + r.stderr)
            XCTAssertTrue(r.stdout.contains("replaced by another file"), r.stdout)
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: victim)), victimBefore, "attempt \(attempt) wrote outside the root")
            var st = stat()
            XCTAssertEqual(lstat(path, &st), 0)
            XCTAssertEqual(st.st_mode & S_IFMT, S_IFREG, "the library's file is still a regular file")
        }
        XCTAssertEqual(attacker.swaps, 20, "every copy was swapped, so every attempt was attacked")
        XCTAssertEqual(try AudioDigest.of(path: path).frames, 20 * 44100)
        XCTAssertNil(try title(path))
    }

    // Attack review, low 15: a 20 MB comment made a FLAC file TagLib could no longer read. A value over 1 MiB
    // is refused when the batch is planned, saying why, and nothing is written.
    func testATagValueOverAMebibyteIsRefusedSayingWhy() throws {
        let path = library + "/A/x.flac"
        try Synth.write(Synth.sine(frequency: 440, seconds: 1), to: path, format: .flac16)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        XCTAssertEqual(try spindle(["scan"]).status, 0)
        let edits = dir + "/edits.json"
        try JSONSerialization.data(withJSONObject: [["path": "A/x.flac", "set": ["COMMENT": String(repeating: "x", count: 2 << 20)]]])
            .write(to: URL(fileURLWithPath: edits))
        let r = try spindle(["tags", "apply", edits])
        XCTAssertEqual(r.status, 3, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("its COMMENT value is 2048 KiB; a tag value may be at most 1024 KiB"), r.stdout)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), before)
    }

    // 10. Scans remove only Spindle's own abandoned copies.
    func testScansRemoveOnlyAbandonedSpindleTemporaries() throws {
        try Synth.write(Synth.sine(frequency: 440, seconds: 1), to: library + "/A/x.flac", format: .flac16)
        let dead = Process()
        dead.executableURL = URL(fileURLWithPath: "/bin/true")
        try dead.run()
        dead.waitUntilExit()
        let users = library + "/A/.spindle-tmp-my-notes.txt"
        let inFlight = library + "/A/" + ".spindle-tmp-\(getpid())-0123456789abcdef.flac"
        let abandoned = library + "/A/" + ".spindle-tmp-\(dead.processIdentifier)-fedcba9876543210.flac"
        for path in [users, inFlight, abandoned] { XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data("x".utf8))) }
        // The in-flight copy belongs to a live process (this test) and is newer than the scan's run.
        let root = try LibraryRoot(path: library)
        _ = try LibraryScanner(database: try SpindleDatabase(path: db), root: root, runStarted: Date(timeIntervalSinceNow: -60)).scan()
        XCTAssertTrue(FileManager.default.fileExists(atPath: users), "a user's own file is never removed")
        XCTAssertTrue(FileManager.default.fileExists(atPath: inFlight), "another process's copy in flight is kept")
        XCTAssertFalse(FileManager.default.fileExists(atPath: abandoned), "a dead writer's copy is removed")
        // bench walks the library too, and removes nothing.
        XCTAssertTrue(FileManager.default.createFile(atPath: abandoned, contents: Data("x".utf8)))
        XCTAssertEqual(try spindle(["bench", library]).status, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: abandoned))
    }

    // A file still being written by another program (a copy into the library paused halfway, a download) was
    // replaced by its edited copy: what that program wrote afterwards went to the replaced file, and was lost.
    // It is refused while the other program holds it open for writing, and written once it is done.
    func testAFileAnotherProgramIsWritingIsRefused() throws {
        try Synth.write(Synth.sine(frequency: 440, seconds: 1), to: library + "/A/copying.flac", format: .flac16)
        try Synth.write(Synth.sine(frequency: 550, seconds: 1), to: library + "/A/done.flac", format: .flac16)
        let copier = try XCTUnwrap(FileHandle(forWritingAtPath: library + "/A/copying.flac"))
        let before = try Data(contentsOf: URL(fileURLWithPath: library + "/A/copying.flac"))
        let r = try spindle(["tags", "set", "A", "--set", "TITLE=New"])
        XCTAssertEqual(r.status, 3, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("refused A/copying.flac: another program has the file open for writing"), r.stdout)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: library + "/A/copying.flac")), before)
        XCTAssertEqual(try title(library + "/A/done.flac"), "New")
        try copier.close()
        XCTAssertEqual(try spindle(["tags", "set", "A", "--set", "TITLE=New"]).status, 0)
        XCTAssertEqual(try title(library + "/A/copying.flac"), "New")
    }

    // Spindle reading tags opened each file for writing, as TagLib does whenever it may: to another program,
    // and to a tag batch's own check (a test polling a file's title while a batch ran had that file refused),
    // a reader looked like a copy still being written. A read lease tells: the kernel breaks it only for an
    // open for writing.
    func testReadingTagsDoesNotOpenTheFileForWriting() throws {
        let path = library + "/A/read.flac"
        try Synth.write(Synth.sine(frequency: 440, seconds: 1), to: path, format: .flac16)
        XCTAssertEqual(try spindle(["scan"]).status, 0)
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        signal(SIGIO, SIG_IGN)   // the lease break's signal
        let setLease: Int32 = 1024, getLease: Int32 = 1025, readLease: Int32 = 0, unlock: Int32 = 2
        guard fcntl(fd, setLease, readLease) == 0 else { throw XCTSkip("no read lease here (errno \(errno))") }
        let reader = try CLI.start(["--db", db, "--library", library, "tags", "show", "A/read.flac"])
        var broken = false
        for _ in 0..<300 where reader.isRunning && !broken {
            broken = fcntl(fd, getLease) == unlock
            usleep(10_000)
        }
        _ = fcntl(fd, setLease, unlock)
        reader.waitUntilExit()
        XCTAssertFalse(broken, "reading the tags opened the file for writing")
        XCTAssertEqual(reader.terminationStatus, 0)
    }

    // 21. A file its owner made read-only (chmod a-w, to keep a tagger off it) was refused only by TagLib, on the
    // copy, after the batch had journaled it: "TagLib could not save the file". It is refused when planned, and
    // the message says what to do. The writable file beside it is written; its undo, once it too is made
    // read-only, says the same.
    func testAReadOnlyFileIsRefusedWhenPlannedSayingWhy() throws {
        try Synth.write(Synth.sine(frequency: 440, seconds: 1), to: library + "/A/kept.flac", format: .flac16)
        try Synth.write(Synth.sine(frequency: 550, seconds: 1), to: library + "/A/open.flac", format: .flac16)
        let user: UInt32 = 65534
        for path in [dir, library, library + "/A"] {
            try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: path)
        }
        for name in ["kept.flac", "open.flac"] where getuid() == 0 {
            XCTAssertEqual(chown(library + "/A/" + name, user, user), 0)
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: library + "/A/kept.flac")
        let before = try Data(contentsOf: URL(fileURLWithPath: library + "/A/kept.flac"))
        guard let r = try CLI.runUnprivileged(["--db", db, "--library", library, "tags", "set", "A", "--set", "TITLE=New"],
                                              user: user) else {
            throw XCTSkip("no unprivileged user can run the built spindle here")
        }
        XCTAssertEqual(r.status, 3, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("refused A/kept.flac: the file is read-only for this user"), r.stdout)
        XCTAssertFalse(r.stdout.contains("TagLib could not save"), r.stdout)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: library + "/A/kept.flac")), before)
        XCTAssertEqual(try title(library + "/A/open.flac"), "New")
        // Made read-only after the batch: its undo says so too, and is retried once the file is writable.
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: library + "/A/open.flac")
        let undo = try XCTUnwrap(try CLI.runUnprivileged(["--db", db, "--library", library, "tags", "undo", "--last"], user: user))
        XCTAssertEqual(undo.status, 3, undo.stdout + undo.stderr)
        XCTAssertTrue(undo.stdout.contains("failed A/open.flac: the file is read-only for this user"), undo.stdout)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: library + "/A/open.flac")
        let again = try XCTUnwrap(try CLI.runUnprivileged(["--db", db, "--library", library, "tags", "undo", "--last"], user: user))
        XCTAssertEqual(again.status, 0, again.stdout + again.stderr)
        XCTAssertNil(try title(library + "/A/open.flac"))
    }

    /// A tmpfs of `megabytes` mounted over `path` (root only; skipped where mounting is not allowed), unmounted
    /// by `body`'s end, and a filler file leaving `free` bytes on it.
    func onSmallDisk(_ path: String, megabytes: Int, _ body: (_ fill: (_ free: Int64) throws -> Void) throws -> Void) throws {
        guard getuid() == 0 else { throw XCTSkip("needs to mount") }
        let mount = try CLI.run(["-c", "mount -t tmpfs -o size=\(megabytes)m spindle-test \"$0\"", path], shell: true)
        guard mount.status == 0 else { throw XCTSkip("cannot mount here: \(mount.stderr)") }
        defer { _ = try? CLI.run(["-c", "umount -l \"$0\"", path], shell: true) }
        try body { free in
            var fs = statvfs()
            XCTAssertEqual(statvfs(path, &fs), 0)
            let available = Int64(fs.f_bavail) * Int64(fs.f_frsize)
            let filler = path + "/.filler"
            XCTAssertTrue(FileManager.default.createFile(atPath: filler, contents: Data(count: Int(max(0, available - free)))))
        }
    }

    // 19. A batch whose copies fit on the disk but whose tags' growth does not: the space check counted only
    // the largest file's copy, so the batch wrote file after file until the disk was full, then failed every
    // later one. It is refused whole now, before anything is written.
    func testABatchWhoseTagsOutgrowTheFreeSpaceIsRefusedBeforeAnyWrite() throws {
        try onSmallDisk(library, megabytes: 8) { fill in
            try FileManager.default.createDirectory(atPath: library + "/A", withIntermediateDirectories: true)
            for i in 0..<6 {
                try Synth.write(Synth.noise(seconds: 1, rmsDBFS: -20 - Double(i)), to: library + "/A/\(i).flac", format: .flac16)
            }
            XCTAssertEqual(try spindle(["scan"]).status, 0)
            let sizes = try (0..<6).map { i in
                try XCTUnwrap((try FileManager.default.attributesOfItem(atPath: library + "/A/\(i).flac"))[.size] as? NSNumber).int64Value
            }
            // Room for the largest copy and two files' growth: not for six.
            let comment = String(repeating: "x", count: 60_000)
            try fill(sizes.max()! + 150_000)
            let before = try (0..<6).map { try Data(contentsOf: URL(fileURLWithPath: library + "/A/\($0).flac")) }
            let r = try spindle(["tags", "set", "A", "--set", "COMMENT=" + comment])
            XCTAssertEqual(r.status, 1, r.stdout + r.stderr)
            XCTAssertTrue(r.stderr.contains("for the tags' growth") && r.stderr.contains("Nothing was written"), r.stderr)
            for i in 0..<6 {
                XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: library + "/A/\(i).flac")), before[i], "\(i).flac untouched")
            }
        }
    }

    // 20. A disk that fills while TagLib edits the copy (another service wrote in the meantime): TagLib reports
    // nothing, so the copy's check failed with "COMMENT did not read back" or "the audio differs", which reads
    // like a bug in the file or in Spindle. The reason now says the disk is full.
    func testATagWriteCutShortByAFullDiskSaysTheDiskIsFull() throws {
        try onSmallDisk(library, megabytes: 4) { fill in
            let path = library + "/x.flac"
            try Synth.write(Synth.noise(seconds: 2, rmsDBFS: -20), to: path, format: .flac16)
            let size = try XCTUnwrap((try FileManager.default.attributesOfItem(atPath: path))[.size] as? NSNumber).int64Value
            // The copy fits; the 200 KB comment does not.
            try fill(size + 20_000)
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            let edit = TagEdit(set: ["COMMENT": [String(repeating: "x", count: 200_000)]])
            XCTAssertThrowsError(try TagFileWrite.write(edit, to: "x.flac", expected: nil, root: try LibraryRoot(path: library))) { error in
                XCTAssertTrue("\(error)".contains("the disk is full"), "\(error)")
                XCTAssertTrue("\(error)".contains("the original is untouched"), "\(error)")
            }
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), before)
            XCTAssertEqual(try temporaries(library), [], "the partial copy is removed")
        }
    }
}
