import Foundation
import GRDB
@testable import Library
import Store
import TestSupport
import XCTest

final class ScannerTests: XCTestCase {
    var dir = ""
    var library = ""
    var database: SpindleDatabase!

    override func setUpWithError() throws {
        dir = try Synth.temporaryDirectory("scan")
        library = dir + "/music"
        try FileManager.default.createDirectory(atPath: library + "/Artist/Album", withIntermediateDirectories: true)
        database = try SpindleDatabase(path: dir + "/spindle.db")
    }

    override func tearDownWithError() throws {
        database = nil
        try? FileManager.default.removeItem(atPath: dir)
    }

    func write(_ relative: String, seconds: Double = 1, frequency: Double = 440) throws {
        let path = library + "/" + relative
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try Synth.write(Synth.sine(frequency: frequency, seconds: seconds, amplitude: 0.3), to: path, format: .flac16)
    }

    func scan() throws -> ScanReport {
        try LibraryScanner(database: database, root: try LibraryRoot(path: library)).scan()
    }

    func statuses() throws -> [String: String] {
        try database.writer.read { db in
            Dictionary(uniqueKeysWithValues: try FileRecord.fetchAll(db).map { ($0.path, $0.status.rawValue) })
        }
    }

    func testFirstScanIndexesAudioAndSkipsTheRest() throws {
        try write("Artist/Album/01 One.flac")
        try write("Artist/Album/02 Two.flac", frequency: 550)
        for junk in ["Artist/Album/cover.jpg", "Artist/Album/album.cue", "Artist/Album/list.m3u", ".DS_Store",
                     "Artist/Album/._01 One.flac", "Artist/Album/notes.txt"] {
            FileManager.default.createFile(atPath: library + "/" + junk, contents: Data("x".utf8))
        }
        let tone = Synth.dsdSine(frequency: 440, seconds: 0.1, amplitude: 0.25)
        try Synth.writeDSF([tone, tone], to: library + "/Artist/Album/03 Three.dsf")
        try Synth.writeDFF([tone, tone], to: library + "/Artist/Album/04 Four.dff")
        // Shorten, which Navidrome serves, was passed over.
        try Synth.writeShorten([Int16](repeating: 100, count: 2000), channels: 2, sampleRate: 44100,
                               to: library + "/Artist/Album/05 Five.shn")
        let report = try scan()
        XCTAssertEqual(report.new, 5)
        XCTAssertEqual(report.seen, 5)
        XCTAssertEqual(try statuses(), ["Artist/Album/01 One.flac": "present", "Artist/Album/02 Two.flac": "present",
                                        "Artist/Album/03 Three.dsf": "present", "Artist/Album/04 Four.dff": "present",
                                        "Artist/Album/05 Five.shn": "present"])
        for name in ["a.tak", "b.wvp", "c.SHN"] { XCTAssertTrue(AudioFileTypes.isAudio(name), name) }
    }

    /// Titles that begin with an ellipsis are music, not hidden files; the recycle bins and snapshots of
    /// Windows and NAS firmware are never music of the library's own.
    func testEllipsisTitlesAreIndexedAndSystemFoldersAreNot() throws {
        let kept = ["Metallica/...And Justice for All/01 Blackened.flac", "Taylor Swift/reputation/...Ready for It.flac"]
        let passedOver = ["#snapshot/GMT+00_2026-11-01/Artist/a.flac", "$RECYCLE.BIN/S-1-5-21/b.flac", "#recycle/c.flac",
                          "@Recycle/d.flac", "@eaDir/e.flac", "Artist/@eaDir/f.flac", "@Recently-Snapshot/g.flac",
                          "lost+found/h.flac", "System Volume Information/i.flac", ".Trash-1000/files/j.flac"]
        for path in kept + passedOver { try write(path) }
        _ = try scan()
        XCTAssertEqual(try statuses().keys.sorted(), kept.sorted())
    }

    /// A `.ndignore` (Navidrome's ignore file) or `.ignore` (Jellyfin's) hides from the scan what it hides from
    /// the server: an empty one its whole folder, patterns what they match beneath their folder, a deeper file
    /// overriding a shallower.
    func testWhatAMediaServersIgnoreFileNamesIsNotIndexed() throws {
        let kept = ["A/01.flac", "A/keep.wav", "A/Live/l.flac", "B/y.wav", "C/Bootlegs/old/x.flac", "D/notes/n.flac", "E/e.flac",
                    "F/Sessions/2019/take.ogg"]
        // "F/**/raw/*.flac": the raw folder at any depth under F, right under it too (gitignore's middle "**").
        let passedOver = ["A/x.wav", "A/Demos/d.flac", "Live/l.flac", "Audiobooks/Book/01.flac", "C/Bootlegs/b.flac",
                          "D/deep/er/notes/n.flac", "Podcasts/Show/01.mp3", "E/e.ogg", "E/Skip/s.flac",
                          "F/raw/a.flac", "F/Sessions/raw/b.flac", "F/Sessions/2019/raw/c.flac"]
        for path in kept + passedOver { try write(path) }
        let rules = "# what Navidrome should not show\n*.wav\n!keep.wav\nDemos/\n/Live/*.flac\nC/Bootlegs/*.flac\n**/er/notes\n"
            + "F/**/raw/*.flac\n"
        FileManager.default.createFile(atPath: library + "/.ndignore", contents: Data(rules.utf8))
        FileManager.default.createFile(atPath: library + "/Audiobooks/.ndignore", contents: Data())
        FileManager.default.createFile(atPath: library + "/B/.ndignore", contents: Data("!*.wav\n".utf8))
        FileManager.default.createFile(atPath: library + "/Podcasts/.ignore", contents: Data())
        // Written on Windows: a byte-order mark and CRLF line ends.
        FileManager.default.createFile(atPath: library + "/E/.ndignore", contents: Data("\u{FEFF}*.ogg\r\nSkip\r\n".utf8))
        _ = try scan()
        XCTAssertEqual(try statuses().keys.sorted(), kept.sorted())
    }

    /// Each `**` in a line tried every split of the rest of the path in turn: 25 of them against a path 40
    /// folders deep took of the order of 10^11 glob matches for one file, and the scan never finished. The
    /// matcher keeps the reachable positions instead; what it matches is the same.
    func testManyDoubleStarsInAnIgnoreLineMatchInPolynomialTime() {
        let pattern = Array(repeating: "a*", count: 26).joined(separator: "/**/") + "/x.flac"
        let rules = IgnoreFile(text: pattern + "\n").rules
        let rule = rules[0]
        let deep = Array(repeating: "ab", count: 40).joined(separator: "/")
        XCTAssertFalse(rule.matches(path: deep + "/y.flac", name: "y.flac"))
        XCTAssertTrue(rule.matches(path: deep + "/x.flac", name: "x.flac"))
        // The same answers as before on the lines gitignore's documentation shows.
        let cases: [(String, String, Bool)] = [
            ("F/**/raw/*.flac", "F/raw/a.flac", true), ("F/**/raw/*.flac", "F/x/y/raw/a.flac", true),
            ("F/**/raw/*.flac", "F/x/raw/y/a.flac", false), ("**/notes", "x/y/notes", true),
            ("a/**/b", "a/b", true), ("a/**/b", "a/x/b/c", false), ("a/**/**/b", "a/b", true)]
        for (line, path, expected) in cases {
            let rule = IgnoreFile(text: line + "\n").rules[0]
            XCTAssertEqual(rule.matches(path: path, name: String(path.split(separator: "/").last!)), expected, "\(line) ~ \(path)")
        }
    }

    func testRescanMarksExactlyTheDeletedAndTouchedFiles() throws {
        for i in 1...5 { try write("Artist/Album/0\(i).flac", frequency: 200 + Double(i) * 50) }
        _ = try scan()
        try FileManager.default.removeItem(atPath: library + "/Artist/Album/02.flac")
        // Touch: new content and a new mtime.
        Thread.sleep(forTimeInterval: 0.01)
        try write("Artist/Album/04.flac", seconds: 1.5, frequency: 999)
        let report = try scan()
        XCTAssertEqual(report.missing, 1)
        XCTAssertEqual(report.changed, 1)
        XCTAssertEqual(report.unchanged, 3)
        XCTAssertEqual(report.new, 0)
        let s = try statuses()
        XCTAssertEqual(s["Artist/Album/02.flac"], "missing")
        XCTAssertEqual(s.values.filter { $0 == "present" }.count, 4)
    }

    func testUnchangedRescanReadsNothing() throws {
        for i in 1...3 { try write("a\(i).flac", frequency: 300 + Double(i)) }
        _ = try scan()
        let rows = try database.writer.read { try FileRecord.fetchAll($0) }
        let report = try scan()
        XCTAssertEqual(report.unchanged, 3)
        XCTAssertEqual(report.changed, 0)
        XCTAssertEqual(try database.writer.read { try FileRecord.fetchAll($0) }, rows)
    }

    /// Bytes rewritten with the size and modification time set back (a tagger keeping timestamps) move the
    /// inode's change time, which no user tool sets back: the scan looks at the file again.
    func testARewriteKeepingSizeAndModificationTimeIsNoticed() throws {
        for i in 1...3 { try write("a\(i).flac", frequency: 300 + Double(i)) }
        _ = try scan()
        let keys = try database.writer.read { try FileRecord.fetchAll($0).map(\.contentKey) }
        let path = library + "/a2.flac"
        var st = stat()
        XCTAssertEqual(stat(path, &st), 0)
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        data[data.count - 10] ^= 0xFF
        try data.write(to: URL(fileURLWithPath: path))
        var times = [st.st_atim, st.st_mtim]
        XCTAssertEqual(utimensat(AT_FDCWD, path, &times, 0), 0)
        let report = try scan()
        XCTAssertEqual(report.unchanged, 2)
        XCTAssertEqual(report.changed, 1)
        let now = try database.writer.read { try FileRecord.fetchAll($0).map(\.contentKey) }
        XCTAssertEqual(now[0], keys[0])
        XCTAssertNotEqual(now[1], keys[1])
        XCTAssertEqual(now[2], keys[2])
    }

    /// A library moved to another folder (another disk, a container volume mounted elsewhere) was a new root:
    /// every file was analysed again, and the old root's files stayed present beside the new ones. A copy of a
    /// library whose original is still in place is another root.
    func testALibraryMovedToAnotherFolderKeepsItsRowsButACopyIsAnotherRoot() throws {
        for i in 1...4 { try write("Artist/Album/0\(i).flac", frequency: 300 + 50 * Double(i)) }
        _ = try scan()
        let ids = try database.writer.read { try FileRecord.fetchAll($0).map(\.id) }
        let moved = dir + "/moved"
        try FileManager.default.moveItem(atPath: library, toPath: moved)
        let scanner = LibraryScanner(database: database, root: try LibraryRoot(path: moved))
        let report = try scanner.scan()
        XCTAssertEqual(scanner.relocatedFrom, try LibraryRoot(path: dir).path + "/music")
        XCTAssertEqual([report.new, report.missing, report.unchanged], [0, 0, 4])
        XCTAssertEqual(try database.writer.read { try FileRecord.fetchAll($0).map(\.id) }, ids)
        XCTAssertEqual(try database.writer.read { try FileQueries.roots($0) }, [try LibraryRoot(path: moved).path])

        // A copy beside the original, which is still where it was: a library of its own.
        let copy = dir + "/copy"
        try FileManager.default.copyItem(atPath: moved, toPath: copy)
        let copyScanner = LibraryScanner(database: database, root: try LibraryRoot(path: copy))
        XCTAssertEqual(try copyScanner.scan().new, 4)
        XCTAssertNil(copyScanner.relocatedFrom)
        XCTAssertEqual(try database.writer.read { try FileQueries.roots($0) }.count, 2)

        // Both gone, and a third folder holding their files: it could be either, so it is neither.
        let third = dir + "/third"
        try FileManager.default.moveItem(atPath: copy, toPath: third)
        try FileManager.default.removeItem(atPath: moved)
        let thirdScanner = LibraryScanner(database: database, root: try LibraryRoot(path: third))
        XCTAssertEqual(try thirdScanner.scan().new, 4)
        XCTAssertNil(thirdScanner.relocatedFrom)
    }

    /// Moved to a bigger disk, with a symlink left at the old path so that the media server's configured path
    /// still works: the old path is a link now, and the library is given by the new one (or the link resolves
    /// to it). Its files are still found through the old path, so it was taken for a copy: a second library,
    /// every file analysed again, the old rows present beside the new ones.
    func testALibraryMovedWithASymlinkLeftAtItsOldPathIsTheSameLibrary() throws {
        for i in 1...4 { try write("Artist/Album/0\(i).flac", frequency: 300 + 50 * Double(i)) }
        _ = try scan()
        let ids = try database.writer.read { try FileRecord.fetchAll($0).map(\.id) }
        let oldPath = try LibraryRoot(path: library).path
        let bigger = dir + "/bigger disk/music"
        try FileManager.default.createDirectory(atPath: dir + "/bigger disk", withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: library, toPath: bigger)
        try FileManager.default.createSymbolicLink(atPath: library, withDestinationPath: bigger)
        let scanner = LibraryScanner(database: database, root: try LibraryRoot(path: library))
        let report = try scanner.scan()
        XCTAssertEqual(scanner.relocatedFrom, oldPath)
        XCTAssertEqual([report.new, report.missing, report.unchanged], [0, 0, 4])
        XCTAssertEqual(try database.writer.read { try FileRecord.fetchAll($0).map(\.id) }, ids)
        XCTAssertEqual(try database.writer.read { try FileQueries.roots($0) }, [try LibraryRoot(path: bigger).path])
    }

    func testMovedFileKeepsItsRow() throws {
        try write("Old/Name.flac")
        _ = try scan()
        let before = try database.writer.read { try FileRecord.fetchOne($0)!.id! }
        try FileManager.default.createDirectory(atPath: library + "/New", withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: library + "/Old/Name.flac", toPath: library + "/New/Renamed.flac")
        let report = try scan()
        XCTAssertEqual(report.moved, 1)
        XCTAssertEqual(report.missing, 0)
        XCTAssertEqual(report.new, 0)
        let after = try database.writer.read { try FileRecord.fetchAll($0) }
        XCTAssertEqual(after.map(\.path), ["New/Renamed.flac"])
        XCTAssertEqual(after.first?.id, before)
        XCTAssertEqual(after.first?.name, "renamed.flac")
    }

    func testMissingFileThatReturnsIsPresentAgain() throws {
        try write("x.flac")
        try write("stays.flac", frequency: 550)
        _ = try scan()
        try FileManager.default.moveItem(atPath: library + "/x.flac", toPath: dir + "/x.flac")
        _ = try scan()
        XCTAssertEqual(try statuses()["x.flac"], "missing")
        try FileManager.default.moveItem(atPath: dir + "/x.flac", toPath: library + "/x.flac")
        let report = try scan()
        XCTAssertEqual(report.restored, 1)
        XCTAssertEqual(try statuses()["x.flac"], "present")
    }

    /// A folder of the library with a file system of its own mounted on it, unmounted after the test if still there.
    func mountedDisk(_ relative: String) throws -> String {
        let disk = library + "/" + relative
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
        guard Synth.run("mount", ["-t", "tmpfs", "spindle-test", disk]) == 0 else {
            throw XCTSkip("cannot mount a file system here (needs root with CAP_SYS_ADMIN)")
        }
        addTeardownBlock { _ = Synth.run("umount", [disk]) }
        return disk
    }

    /// A library of one file on its own disk and two on a second disk mounted at "Disk 2", scanned: the disk's
    /// folder and the scan's report.
    func libraryWithASecondDisk() throws -> (disk: String, report: ScanReport) {
        let disk = try mountedDisk("Disk 2")
        try write("Artist/Album/01.flac")
        try write("Disk 2/01.flac", frequency: 550)
        try write("Disk 2/02.flac", frequency: 660)
        return (disk, try scan())
    }

    /// A second disk mounted inside the library that is not mounted one night leaves an empty folder: its files
    /// were marked missing (out of every genre and playlist, and forgotten with their results after a while)
    /// as if deleted one by one. They are left as they were, and `status` says why; the folder removed, they go.
    func testADiskNotMountedInsideTheLibraryIsNotItsFilesDeleted() throws {
        let (disk, first) = try libraryWithASecondDisk()
        XCTAssertEqual(first.new, 3)
        XCTAssertEqual(Synth.run("umount", [disk]), 0)
        let report = try scan()
        XCTAssertEqual(report.seen, 1)
        XCTAssertEqual(report.missing, 0)
        XCTAssertEqual(report.unreadable, 2)
        XCTAssertEqual(report.skipped.map(\.relativePath), ["Disk 2"])
        XCTAssertTrue(report.skipped.first?.reason.contains("mount point") == true, "\(report.skipped)")
        XCTAssertEqual(try statuses().values.filter { $0 == "present" }.count, 3)
        // Not mounted on the next night either: still left alone, not forgotten.
        XCTAssertEqual(try scan().missing, 0)
        try FileManager.default.removeItem(atPath: disk)
        let removed = try scan()
        XCTAssertEqual(removed.missing, 2)
        XCTAssertTrue(removed.skipped.isEmpty, "\(removed.skipped)")
    }

    /// In a container, a volume whose disk is not mounted on the host binds the empty host folder: the mount
    /// point is still one, of another device than the disk's. Its files are left as they were; a disk emptied on
    /// purpose, still the device it was, loses them.
    func testAnEmptyFileSystemInADisksPlaceIsNotItsFilesDeleted() throws {
        let disk = try libraryWithASecondDisk().disk
        // The disk stays mounted elsewhere, so the file system in its place is another device (an unmounted
        // one's number would be free for it to take).
        let elsewhere = dir + "/elsewhere"
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        guard Synth.run("mount", ["--bind", disk, elsewhere]) == 0 else { throw XCTSkip("cannot bind-mount a folder here") }
        addTeardownBlock { _ = Synth.run("umount", [elsewhere]) }
        XCTAssertEqual(Synth.run("umount", [disk]), 0)
        XCTAssertEqual(Synth.run("mount", ["-t", "tmpfs", "spindle-test", disk]), 0)
        let report = try scan()
        XCTAssertEqual(report.missing, 0)
        XCTAssertEqual(report.unreadable, 2)
        XCTAssertEqual(report.skipped.map(\.relativePath), ["Disk 2"])
        // The same empty file system a night later is still not the disk.
        XCTAssertEqual(try scan().missing, 0)
        // Audio on the file system in its place: that is the library's disk there now.
        try write("Disk 2/03.flac", frequency: 770)
        let replaced = try scan()
        XCTAssertEqual([replaced.new, replaced.missing], [1, 2])
        // Emptied on purpose: the device that held audio at the last scan holds none now.
        try FileManager.default.removeItem(atPath: disk + "/03.flac")
        let emptied = try scan()
        XCTAssertEqual(emptied.missing, 1)
        XCTAssertTrue(emptied.skipped.isEmpty, "\(emptied.skipped)")
    }

    /// A folder that was a mount point and holds audio of its own now (the disk's files copied onto the
    /// library's disk) is an ordinary folder: nothing is held back.
    func testAFormerMountPointWithAudioInItIsAnOrdinaryFolder() throws {
        let disk = try libraryWithASecondDisk().disk
        XCTAssertEqual(Synth.run("umount", [disk]), 0)
        try write("Disk 2/01.flac", frequency: 550)
        let report = try scan()
        XCTAssertEqual(report.missing, 1)
        XCTAssertEqual(report.unreadable, 0)
        XCTAssertTrue(report.skipped.isEmpty, "\(report.skipped)")
    }

    /// An empty root that held files is an unmounted share, not a library deleted file by file: the scan
    /// refuses and marks nothing missing. Before, all of them went missing (and with them genres, playlists).
    func testAnEmptyRootThatHadFilesIsRefusedNotMarkedMissing() throws {
        try write("Artist/Album/01 One.flac")
        try write("Artist/Album/02 Two.flac", frequency: 550)
        XCTAssertEqual(try scan().new, 2)
        try FileManager.default.moveItem(atPath: library, toPath: dir + "/elsewhere")
        try FileManager.default.createDirectory(atPath: library, withIntermediateDirectories: true)
        XCTAssertThrowsError(try scan()) { error in
            XCTAssertTrue("\(error)".contains("mount"), "\(error)")
        }
        XCTAssertEqual(try statuses().values.sorted(), ["present", "present"])
        // An empty ignore file at the root hides everything too, and is named.
        try FileManager.default.removeItem(atPath: library)
        try FileManager.default.moveItem(atPath: dir + "/elsewhere", toPath: library)
        FileManager.default.createFile(atPath: library + "/.ndignore", contents: Data())
        XCTAssertThrowsError(try scan()) { error in
            XCTAssertTrue("\(error)".contains("or its .ndignore hides them all"), "\(error)")
        }
        XCTAssertEqual(try statuses().values.sorted(), ["present", "present"])
        try FileManager.default.removeItem(atPath: library + "/.ndignore")
        try FileManager.default.moveItem(atPath: library, toPath: dir + "/elsewhere")
        try FileManager.default.createDirectory(atPath: library, withIntermediateDirectories: true)
        // One file really deleted of two is still a deletion.
        try FileManager.default.removeItem(atPath: library)
        try FileManager.default.moveItem(atPath: dir + "/elsewhere", toPath: library)
        try FileManager.default.removeItem(atPath: library + "/Artist/Album/02 Two.flac")
        XCTAssertEqual(try scan().missing, 1)
    }

    /// A shard whose last file is deleted while the root holds other shards' files: a deletion, not a share
    /// gone missing.
    func testAShardEmptiedInAMountedLibraryMarksItsFilesMissing() throws {
        let shard = try Shard(index: 1, count: 2)
        let names = (1...8).map { "s\($0).flac" }
        let mine = names.filter { shard.contains($0) }, theirs = names.filter { !shard.contains($0) }
        XCTAssertFalse(mine.isEmpty || theirs.isEmpty, "the fixture needs files on both shards")
        for (i, name) in names.enumerated() { try write(name, frequency: 300 + Double(i) * 40) }
        let scanner = LibraryScanner(database: database, root: try LibraryRoot(path: library), shard: shard)
        XCTAssertEqual(try scanner.scan().new, mine.count)
        for name in mine { try FileManager.default.removeItem(atPath: library + "/" + name) }
        XCTAssertEqual(try scanner.scan().missing, mine.count)
    }

    func testSymlinksFifosAndLoopsNeverEscapeOrHang() throws {
        try write("real.flac")
        let outside = dir + "/outside.flac"
        try Synth.write(Synth.sine(frequency: 300, seconds: 1, amplitude: 0.3), to: outside, format: .flac16)
        try FileManager.default.createSymbolicLink(atPath: library + "/escape.flac", withDestinationPath: outside)
        try FileManager.default.createSymbolicLink(atPath: library + "/inside.flac", withDestinationPath: library + "/real.flac")
        try FileManager.default.createSymbolicLink(atPath: library + "/loop", withDestinationPath: library)
        try FileManager.default.createSymbolicLink(atPath: library + "/outdir", withDestinationPath: dir)
        try FileManager.default.createSymbolicLink(atPath: library + "/self.flac", withDestinationPath: library + "/self.flac")
        XCTAssertEqual(mkfifo(library + "/pipe.flac", 0o644), 0)
        let report = try scan()
        XCTAssertEqual(Set(try statuses().keys), ["real.flac", "inside.flac"])
        let reasons = Dictionary(uniqueKeysWithValues: report.skipped.map { ($0.relativePath, $0.reason) })
        XCTAssertTrue(reasons["escape.flac"]?.contains("outside") ?? false)
        XCTAssertTrue(reasons["pipe.flac"]?.contains("FIFO") ?? false)
        XCTAssertNotNil(reasons["self.flac"])
        // A folder linked in from elsewhere is named, with where it leads; one inside the root is not.
        XCTAssertTrue(reasons["outdir"]?.contains("symlink to a folder outside the library root") ?? false, "\(reasons)")
        XCTAssertNil(reasons["loop"])
    }

    func testNonUTF8NamesAreReportedNotIndexed() throws {
        try write("ok.flac")
        let bad: [UInt8] = Array((library + "/bad-").utf8) + [0xFF, 0xFE] + Array(".flac".utf8) + [0]
        let fd = bad.withUnsafeBufferPointer { p in
            p.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_CREAT | O_WRONLY, 0o644) }
        }
        XCTAssertGreaterThanOrEqual(fd, 0)
        close(fd)
        let report = try scan()
        XCTAssertEqual(report.seen, 1)
        XCTAssertTrue(report.skipped.contains { $0.reason.contains("UTF-8") })
    }

    func testContentKeyDependsOnContent() throws {
        try write("a.flac", frequency: 300)
        try write("b.flac", frequency: 300)
        try write("c.flac", frequency: 301)
        func key(_ name: String) -> String? {
            let path = library + "/" + name
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            return ContentKey.compute(path: path, size: Int64(size))
        }
        XCTAssertEqual(key("a.flac"), key("b.flac"))
        XCTAssertNotEqual(key("a.flac"), key("c.flac"))
    }
}
