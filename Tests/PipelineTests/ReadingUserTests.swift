import Foundation
import XCTest
import TestSupport

/// A user who may read the database but not write it: a monitoring account running `status`, the media
/// server's user asking `similar` or `frames`. Such a user ran none of the commands that only read: each ended
/// with "SQLite error 8: attempt to write a readonly database - while executing `PRAGMA synchronous = NORMAL`".
final class ReadingUserTests: LibraryTestCase {
    private func makeLibrary() throws {
        for (i, bpm) in [96.0, 120, 140].enumerated() {
            try Synth.write(Synth.clicks(bpm: bpm, seconds: 8, accentEvery: 2 + i), to: library + "/beat\(i).flac",
                            format: .flac16)
        }
    }

    /// The library scanned into a database of its own by a user other than root and nobody (user id 1), in a
    /// folder anyone may write; that user's id.
    private func ownersDatabase() throws -> UInt32 {
        guard getuid() == 0 else { throw XCTSkip("needs two users other than the tests' own") }
        try makeLibrary()
        for path in [dir, library] { try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: path) }
        let owner: UInt32 = 1
        guard let first = try CLI.runUnprivileged(["--db", db, "--library", library, "scan"], user: owner) else {
            throw XCTSkip("no unprivileged user can run the built spindle here")
        }
        XCTAssertEqual(first.status, 0, first.stderr)
        return owner
    }

    /// The commands that only read, as a user who may not write the database or its folder.
    private static let reads: [[String]] = [
        ["status"], ["status", "--json"], ["resolve", "/music/beat0.flac"], ["tags", "show", "beat0.flac"],
        ["similar", "beat0.flac"], ["mix", "beat0.flac", "-n", "3"], ["frames", "beat1.flac"],
        ["genres", "report", "--format", "md"],
    ]

    func testEveryCommandThatOnlyReadsWorksForAUserWhoMayNotWriteTheDatabase() throws {
        try makeLibrary()
        XCTAssertEqual(try spindle(["analyze"]).status, 0)
        for path in [dir, library] { try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path) }
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: db)
        let before = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
        for arguments in Self.reads {
            guard let r = try CLI.runUnprivileged(["--db", db, "--library", library] + arguments) else {
                throw XCTSkip("no unprivileged user can run the built spindle here")
            }
            XCTAssertEqual(r.status, 0, "\(arguments): \(r.stderr)")
            XCTAssertFalse(r.stdout.isEmpty, "\(arguments)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir).sorted(), before, "nothing made beside the database")
    }

    /// In a folder the reader may write, SQLite made the database's -wal and -shm as the reader's, read-only to
    /// anyone else: the database's owner could no longer write it.
    func testAReaderLeavesNothingThatStopsTheDatabasesOwner() throws {
        let owner = try ownersDatabase()
        let status = try XCTUnwrap(CLI.runUnprivileged(["--db", db, "status"]))
        XCTAssertEqual(status.status, 0, status.stderr)
        XCTAssertTrue(status.stdout.contains("3 present"), status.stdout)
        // The side files are the owner's, left by its scan: the reader read through them, making none.
        for side in [db + "-wal", db + "-shm"] {
            let fileOwner = ((try? FileManager.default.attributesOfItem(atPath: side))?[.ownerAccountID] as? NSNumber)?.uint32Value
            XCTAssertEqual(fileOwner, owner, side)
        }
        let again = try XCTUnwrap(CLI.runUnprivileged(["--db", db, "--library", library, "analyze"], user: owner))
        XCTAssertEqual(again.status, 0, again.stderr)
    }

    /// Spindle keeps the -wal and -shm files beside the database, as their owner's. A database handed to another
    /// user with `chown spindle.db` alone (moving the nightly run off root) leaves them to the old owner, and
    /// the new owner's run cannot write: it says so, and what to do, rather than blaming a reader.
    func testANewOwnerIsToldToTakeTheSideFilesToo() throws {
        guard getuid() == 0 else { throw XCTSkip("needs root, to hand the database to another user") }
        try makeLibrary()
        XCTAssertEqual(try spindle(["scan"]).status, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: db + "-wal"), "kept for readers")
        for path in [dir, library] { try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: path) }
        let newOwner = getpwuid(1).map { String(cString: $0.pointee.pw_name) } ?? "1"
        let handOver = "`chown \(newOwner) \(db) \(db).lock \(db)-wal \(db)-shm`"
        try FileManager.default.setAttributes([.ownerAccountID: 1], ofItemAtPath: db)
        let blocked = try XCTUnwrap(CLI.runUnprivileged(["--db", db, "--library", library, "scan"], user: 1))
        XCTAssertEqual(blocked.status, 1)
        XCTAssertTrue(blocked.stderr.contains("\(db)-wal belongs to root") && blocked.stderr.contains("before the database changed owner")
                      && blocked.stderr.contains(handOver), blocked.stderr)
        for side in [db + "-wal", db + "-shm"] { try FileManager.default.setAttributes([.ownerAccountID: 1], ofItemAtPath: side) }
        let locked = try XCTUnwrap(CLI.runUnprivileged(["--db", db, "--library", library, "scan"], user: 1))
        XCTAssertEqual(locked.status, 1)
        XCTAssertTrue(locked.stderr.contains("\(db).lock: Permission denied; it belongs to root") && locked.stderr.contains(handOver),
                      locked.stderr)
        try FileManager.default.setAttributes([.ownerAccountID: 1], ofItemAtPath: db + ".lock")
        let taken = try XCTUnwrap(CLI.runUnprivileged(["--db", db, "--library", library, "scan"], user: 1))
        XCTAssertEqual(taken.status, 0, taken.stderr)
    }

    /// Such files, made by a reader that does make them (`serve`, which keeps reading as the nightly run
    /// comes and goes): the owner's run said only "the user running spindle needs write access to the database
    /// file and to its folder", which it has.
    func testTheOwnerIsToldWhoseSideFilesStopItWriting() throws {
        let owner = try ownersDatabase()
        for side in [db + "-wal", db + "-shm"] {
            XCTAssertTrue(FileManager.default.createFile(atPath: side, contents: side.hasSuffix("shm") ? Data(count: 32768) : Data(),
                                                         attributes: [.posixPermissions: 0o644, .ownerAccountID: 65534]))
        }
        let blocked = try XCTUnwrap(CLI.runUnprivileged(["--db", db, "--library", library, "analyze"], user: owner))
        XCTAssertEqual(blocked.status, 1)
        XCTAssertTrue(blocked.stderr.contains("\(db)-wal belongs to nobody") && blocked.stderr.contains("remove \(db)-wal"),
                      blocked.stderr)
        let status = try XCTUnwrap(CLI.runUnprivileged(["--db", db, "status"], user: owner))
        XCTAssertEqual(status.status, 0, "a command that only reads still reads: \(status.stderr)")
    }
}
