import Foundation
import GRDB
import Library
@testable import Navidrome
@testable import Pipeline
import Store
import Synchronization
import TestSupport
import XCTest

final class NavidromeTests: XCTestCase {
    var dir = ""
    var library = ""
    var database: SpindleDatabase!
    var root: LibraryRoot!

    override func setUpWithError() throws {
        dir = try Synth.temporaryDirectory("navidrome")
        library = dir + "/music"
        database = try SpindleDatabase(path: dir + "/spindle.db")
    }

    override func tearDownWithError() throws {
        database = nil
        try? FileManager.default.removeItem(atPath: dir)
    }

    /// 120 tracks whose folders do not follow their tags ("2019 - Album [FLAC]", "CD1", "Artist - Album").
    func makeLibrary() throws -> [(path: String, artist: String, album: String, title: String, ext: String)] {
        var tracks: [(String, String, String, String, String)] = []
        for a in 0..<12 {
            let artist = "Artist \(["Åsa", "Björk", "Zoë", "Nils", "Mañana", "Océan", "Kōji", "Ana", "Léa", "Tom", "Sūn", "Eve"][a])"
            let album = "Album \(a) Édition"
            for t in 0..<10 {
                let title = "Song \(a * 10 + t) \(["Love", "Night", "Fire", "Rain", "Sky"][t % 5])"
                let ext = ["flac", "mp3"][t % 2]
                let folder = a % 3 == 0 ? "\(2000 + a) - \(album) [\(ext.uppercased())]" : (a % 3 == 1 ? "\(artist) - \(album)/CD1" : "\(artist)/\(album)")
                tracks.append(("\(folder)/\(String(format: "%02d", t + 1)). \(title).\(ext)", artist, album, title, ext))
            }
        }
        for (i, t) in tracks.enumerated() {
            let path = library + "/" + t.0
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                    withIntermediateDirectories: true)
            try Synth.write(Synth.sine(frequency: 100 + Double(i), seconds: 0.05, amplitude: 0.1), to: path, format: .flac16)
        }
        root = try LibraryRoot(path: library)
        _ = try LibraryScanner(database: database, root: root).scan()
        return tracks
    }

    func navidromeDB(_ name: String, newSchema: Bool, paths: [(id: String, path: String, artist: String, album: String, title: String, ext: String)]) throws -> String {
        let path = dir + "/" + name
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            if newSchema {
                try db.execute(sql: "CREATE TABLE library (id INTEGER PRIMARY KEY, name TEXT, path TEXT)")
                try db.execute(sql: "INSERT INTO library VALUES (1, 'Music Library', '/music')")
                try db.execute(sql: """
                    CREATE TABLE media_file (id VARCHAR PRIMARY KEY, path VARCHAR, library_id INTEGER, title VARCHAR,
                    album VARCHAR, artist VARCHAR, album_artist VARCHAR, suffix VARCHAR)
                    """)
            } else {
                try db.execute(sql: """
                    CREATE TABLE media_file (id VARCHAR PRIMARY KEY, path VARCHAR, title VARCHAR, album VARCHAR,
                    artist VARCHAR, album_artist VARCHAR, suffix VARCHAR)
                    """)
            }
            for p in paths {
                if newSchema {
                    try db.execute(sql: "INSERT INTO media_file VALUES (?, ?, 1, ?, ?, ?, ?, ?)",
                                   arguments: [p.id, p.path, p.title, p.album, p.artist, p.artist, p.ext])
                } else {
                    try db.execute(sql: "INSERT INTO media_file VALUES (?, ?, ?, ?, ?, ?, ?)",
                                   arguments: [p.id, p.path, p.title, p.album, p.artist, p.artist, p.ext])
                }
            }
        }
        return path
    }

    func testImportNewerRelativeSchema() throws {
        let tracks = try makeLibrary()
        let paths = tracks.enumerated().map { (id: "id\($0.offset)", path: $0.element.path, artist: $0.element.artist,
                                               album: $0.element.album, title: $0.element.title, ext: $0.element.ext) }
        let navidrome = try navidromeDB("new.db", newSchema: true, paths: paths)
        let before = try Data(contentsOf: URL(fileURLWithPath: navidrome))
        let report = try NavidromeImport.run(navidromeDB: navidrome, database: database, root: root)
        XCTAssertEqual(report.total, 120)
        XCTAssertEqual(report.mapped, 120)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: navidrome)), before, "Navidrome's database is never written")
        let mapped = try database.writer.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM navidrome_tracks WHERE file_id IS NOT NULL") }
        XCTAssertEqual(mapped, 120)
    }

    // `navidrome import` replaces navidrome_tracks: it waits its turn behind a run as analyze does (exit 4).
    func testImportTakesTheRunLock() throws {
        let tracks = try makeLibrary()
        let paths = tracks.enumerated().map { (id: "id\($0.offset)", path: $0.element.path, artist: $0.element.artist,
                                               album: $0.element.album, title: $0.element.title, ext: $0.element.ext) }
        let navidrome = try navidromeDB("new.db", newSchema: true, paths: paths)
        let arguments = ["--db", dir + "/spindle.db", "--library", root.path, "navidrome", "import", "--navidrome-db", navidrome]
        var lock: RunLock? = try RunLock(databasePath: dir + "/spindle.db", command: "a test holding the lock")
        let blocked = try CLI.run(arguments)
        XCTAssertEqual(blocked.status, 4, blocked.stdout + blocked.stderr)
        XCTAssertTrue(blocked.stderr.contains("a test holding the lock"), blocked.stderr)
        withExtendedLifetime(lock) {}
        lock = nil
        let done = try CLI.run(arguments)
        XCTAssertEqual(done.status, 0, done.stdout + done.stderr)
    }

    func testImportOlderAbsoluteSchemaAndTagBuiltPaths() throws {
        let tracks = try makeLibrary()
        // Older Navidrome: absolute container paths. A tenth of them carry a Subsonic-style tag-built path.
        let paths = tracks.enumerated().map { i, t -> (id: String, path: String, artist: String, album: String, title: String, ext: String) in
            let path = i % 10 == 0 ? "\(t.artist)/\(t.album)/\(String(format: "%02d", i % 10 + 1)) - \(t.title).\(t.ext)" : "/music/" + t.path
            return ("id\(i)", path, t.artist, t.album, t.title, t.ext)
        }
        let navidrome = try navidromeDB("old.db", newSchema: false, paths: paths)
        let report = try NavidromeImport.run(navidromeDB: navidrome, database: database, root: root)
        XCTAssertGreaterThanOrEqual(Double(report.mapped) / Double(report.total), 0.99,
                                    "unresolved: \(report.unresolved.map(\.path))")
        XCTAssertEqual(report.byStrategy[2], 108)
    }

    /// Navidrome since 0.58 holds several libraries, each with paths relative to its own folder. The tracks of
    /// another library (audiobooks here) were resolved against this one: one whose relative path this library
    /// also has was mapped to that file as an exact match, others by words shared with a song.
    func testImportLeavesOutTheTracksOfNavidromesOtherLibraries() throws {
        let tracks = try makeLibrary()
        let report = try NavidromeImport.run(navidromeDB: try multiLibraryDB(tracks), database: database, root: root)
        XCTAssertEqual(report.total, 120)
        XCTAssertEqual(report.mapped, 120)
        XCTAssertTrue(report.unresolved.isEmpty, "\(report.unresolved)")
        XCTAssertEqual(report.otherLibraries.map(\.library), ["'Audiobooks' (/audiobooks)"])
        XCTAssertEqual(report.otherLibraries.map(\.tracks), [30])
        let mapped = try database.writer.read { db in
            try String.fetchAll(db, sql: "SELECT navidrome_id FROM navidrome_tracks WHERE file_id IS NOT NULL")
        }
        XCTAssertEqual(mapped.filter { $0.hasPrefix("b") }, [], "no audiobook is taken for a song")
        XCTAssertEqual(mapped.count, 120)
    }

    /// One database for two disks, each a library of its own in Navidrome too: importing for the second disk
    /// wrote every track of the first as unmapped ("another Navidrome library"), so only the last import's
    /// mappings were ever in navidrome_tracks. Each import now leaves the other library's mappings as they are.
    func testImportForASecondLibraryKeepsTheFirstOnesMappings() throws {
        let tracks = try makeLibrary()
        let navidrome = try multiLibraryDB(tracks)
        XCTAssertEqual(try NavidromeImport.run(navidromeDB: navidrome, database: database, root: root).mapped, 120)
        // The audiobooks' disk, indexed into the same database.
        let books = dir + "/audiobooks"
        for i in 1..<30 {
            let t = tracks[i]
            let path = books + "/\(t.artist) reads/\(t.album)/\(t.title).mp3"
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Synth.write(Synth.sine(frequency: 200 + Double(i), seconds: 0.05, amplitude: 0.1), to: path, format: .wav16)
        }
        let booksRoot = try LibraryRoot(path: books)
        _ = try LibraryScanner(database: database, root: booksRoot).scan()
        let second = try NavidromeImport.run(navidromeDB: navidrome, database: database, root: booksRoot)
        XCTAssertGreaterThanOrEqual(second.mapped, 29)
        let mapped = try database.writer.read { db in
            try String.fetchAll(db, sql: "SELECT navidrome_id FROM navidrome_tracks WHERE file_id IS NOT NULL")
        }
        XCTAssertEqual(mapped.filter { $0.hasPrefix("m") }.count, 120, "the first library's tracks stay mapped")
        XCTAssertEqual(mapped.filter { $0.hasPrefix("b") }.count, second.mapped)
        // Importing for the first library again keeps the audiobooks' mappings in turn.
        XCTAssertEqual(try NavidromeImport.run(navidromeDB: navidrome, database: database, root: root).mapped, 120)
        XCTAssertEqual(try database.writer.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM navidrome_tracks WHERE file_id IS NOT NULL")
        }, 120 + second.mapped)
    }

    /// Spindle may index only part of a Navidrome library (its `Rock/` of Navidrome's whole `/music`): that
    /// library is still this one, though most of its tracks are elsewhere; the audiobooks are still not.
    func testImportKeepsANavidromeLibraryThisRootIsOnlyAPartOf() throws {
        let tracks = try makeLibrary()
        let others = (0..<200).map { "Elsewhere/Quartet \($0 / 10)/Take \($0 % 10) Blue.ogg" }
        let report = try NavidromeImport.run(navidromeDB: try multiLibraryDB(tracks, notHere: others),
                                             database: database, root: root)
        XCTAssertEqual(report.total, 320)
        XCTAssertEqual(report.mapped, 120)
        XCTAssertEqual(report.otherLibraries.map(\.tracks), [30])
    }

    /// A Navidrome database with two libraries: the music (`tracks`, plus `notHere` that this library lacks)
    /// and audiobooks, one at a relative path this library also has, the rest sharing words with songs.
    func multiLibraryDB(_ tracks: [(path: String, artist: String, album: String, title: String, ext: String)],
                        notHere: [String] = []) throws -> String {
        let navidrome = dir + "/multi.db"
        let queue = try DatabaseQueue(path: navidrome)
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE library (id INTEGER PRIMARY KEY, name TEXT, path TEXT)")
            try db.execute(sql: "INSERT INTO library VALUES (1, 'Music Library', '/music'), (2, 'Audiobooks', '/audiobooks')")
            try db.execute(sql: """
                CREATE TABLE media_file (id VARCHAR PRIMARY KEY, path VARCHAR, library_id INTEGER, title VARCHAR,
                album VARCHAR, artist VARCHAR, album_artist VARCHAR, suffix VARCHAR)
                """)
            for (i, t) in tracks.enumerated() {
                try db.execute(sql: "INSERT INTO media_file VALUES (?, ?, 1, ?, ?, ?, ?, ?)",
                               arguments: ["m\(i)", t.path, t.title, t.album, t.artist, t.artist, t.ext])
            }
            for (i, path) in notHere.enumerated() {
                try db.execute(sql: "INSERT INTO media_file VALUES (?, ?, 1, NULL, NULL, NULL, NULL, 'ogg')",
                               arguments: ["x\(i)", path])
            }
            try db.execute(sql: "INSERT INTO media_file VALUES ('b0', ?, 2, 'Chapter', 'Book', 'Reader', 'Reader', ?)",
                           arguments: [tracks[5].path, tracks[5].ext])
            for i in 1..<30 {
                let t = tracks[i]
                try db.execute(sql: "INSERT INTO media_file VALUES (?, ?, 2, ?, ?, 'Reader', 'Reader', 'mp3')",
                               arguments: ["b\(i)", "\(t.artist) reads/\(t.album)/\(t.title).mp3", t.title, t.album])
            }
        }
        return navidrome
    }

    /// Navidrome keeps its database in WAL mode, and once it stops the -wal and -shm files are gone. A user who
    /// may read Navidrome's folder but not write it (Spindle's own user, beside a Navidrome container) could
    /// not open the database: "SQLite error 8: attempt to write a readonly database".
    func testImportReadsAStoppedNavidromesDatabaseFromAFolderItCannotWrite() throws {
        try FileManager.default.createDirectory(atPath: library + "/A", withIntermediateDirectories: true)
        try Synth.write(Synth.sine(frequency: 440, seconds: 0.2), to: library + "/A/one.flac", format: .flac16)
        let folder = dir + "/navidrome-data"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let navidrome = folder + "/navidrome.db"
        do {
            let queue = try DatabaseQueue(path: navidrome)
            try queue.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA journal_mode = WAL")
                try db.execute(sql: "CREATE TABLE media_file (id VARCHAR PRIMARY KEY, path VARCHAR, title VARCHAR)")
                try db.execute(sql: "INSERT INTO media_file VALUES ('n1', '/music/A/one.flac', 'one')")
            }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: navidrome + "-wal"), "closed, as a stopped Navidrome leaves it")
        let before = try Data(contentsOf: URL(fileURLWithPath: navidrome))
        for path in [dir, library, library + "/A"] {
            try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: path)
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: folder)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder) }
        let db = dir + "/unprivileged.db"
        guard let scan = try CLI.runUnprivileged(["--db", db, "--library", library, "scan"]) else {
            throw XCTSkip("no unprivileged user can run the built spindle here")
        }
        XCTAssertEqual(scan.status, 0, scan.stderr)
        let imported = try XCTUnwrap(CLI.runUnprivileged(["--db", db, "navidrome", "import", "--navidrome-db", navidrome]))
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertTrue(imported.stdout.contains("1 of 1 tracks mapped"), imported.stdout + imported.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder), ["navidrome.db"])
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: navidrome)), before)
    }

    func testRescanSucceeds() throws {
        let server = try StubHTTPServer(responses: [(200, #"{"subsonic-response":{"status":"ok","version":"1.16.1","scanStatus":{"scanning":true}}}"#)])
        let client = SubsonicClient(baseURL: URL(string: "http://127.0.0.1:\(server.port)")!, user: "admin",
                                    credentials: .password("sesame"))
        XCTAssertEqual(try client.startScan(), 1)
        let request = try XCTUnwrap(server.requests.first)
        XCTAssertTrue(request.contains("/rest/startScan.view"), request)
        XCTAssertTrue(request.contains("u=admin"))
        XCTAssertFalse(request.contains("p="), "the password is never sent, not even encoded: \(request)")
    }

    func testRescanReportsANonAdminUserClearly() throws {
        let server = try StubHTTPServer(responses: [(200, #"{"subsonic-response":{"status":"failed","version":"1.16.1","error":{"code":50,"message":"User not authorized"}}}"#)])
        let client = SubsonicClient(baseURL: URL(string: "http://127.0.0.1:\(server.port)")!, user: "bob",
                                    credentials: .token(token: "abc", salt: "xyz"))
        XCTAssertThrowsError(try client.startScan()) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("bob") && text.contains("admin"), text)
        }
        XCTAssertEqual(server.requests.count, 1, "a refusal is not retried")
        XCTAssertTrue(server.requests[0].contains("t=abc") && server.requests[0].contains("s=xyz"))
    }

    /// A server that ignores `f=json` answers XML: its "ok" started the scan, yet the run failed with "not a
    /// Subsonic response"; and a login page in front of the server was called that too, naming nothing.
    func testRescanReadsAnXMLAnswerAndNamesAWebPage() throws {
        let xmlOK = #"<?xml version="1.0" encoding="UTF-8"?><subsonic-response xmlns="http://subsonic.org/restapi" status="ok" version="1.16.1"><scanStatus scanning="true"/></subsonic-response>"#
        let xmlRefused = #"<subsonic-response status="failed" version="1.16.1"><error code="50" message="User &quot;bob&quot; not authorized"/></subsonic-response>"#
        let page = "<!DOCTYPE html>\n<html><head><title>Sign in</title></head><body>Login</body></html>"
        let server = try StubHTTPServer(responses: [(200, xmlOK), (200, xmlRefused), (200, page), (200, "\u{1B}[2Jok")])
        let client = SubsonicClient(baseURL: URL(string: "http://127.0.0.1:\(server.port)")!, user: "bob", credentials: .password("x"))
        XCTAssertEqual(try client.startScan(), 1)
        XCTAssertThrowsError(try client.startScan()) { error in
            XCTAssertEqual("\(error)", #"user bob may not start a scan: User "bob" not authorized (Navidrome needs an admin user)"#)
        }
        XCTAssertThrowsError(try client.startScan()) { error in XCTAssertTrue("\(error)".hasPrefix("a web page, not a Subsonic response"), "\(error)") }
        XCTAssertThrowsError(try client.startScan()) { error in
            XCTAssertEqual("\(error)", "not a Subsonic response (it begins “ [2Jok”)", "control characters are not printed")
        }
        XCTAssertEqual(server.requests.count, 4, "none of these is retried")
    }

    func testRescanRetriesTransientFailuresWithBackoff() throws {
        let server = try StubHTTPServer(responses: [(503, "busy"), (503, "busy"),
                                                    (200, #"{"subsonic-response":{"status":"ok","version":"1.16.1"}}"#)])
        var client = SubsonicClient(baseURL: URL(string: "http://127.0.0.1:\(server.port)")!, user: "admin",
                                    credentials: .password("x"))
        let waits = Waits()
        client.pause = { wait in waits.list.withLock { $0.append(wait) } }
        XCTAssertEqual(try client.startScan(), 3)
        XCTAssertEqual(waits.list.withLock { $0 }, [1, 2], "waits 1 s then 2 s")
        // Always failing: three retries (1, 2, 4 s), then the error.
        let failing = try StubHTTPServer(responses: [(503, "down")])
        client = SubsonicClient(baseURL: URL(string: "http://127.0.0.1:\(failing.port)")!, user: "admin", credentials: .password("x"))
        let failingWaits = Waits()
        client.pause = { wait in failingWaits.list.withLock { $0.append(wait) } }
        XCTAssertThrowsError(try client.startScan())
        XCTAssertEqual(failing.requests.count, 4)
        XCTAssertEqual(failingWaits.list.withLock { $0 }, [1, 2, 4])
    }
}

/// The waits a Subsonic client asked for, in order.
private final class Waits: Sendable {
    let list = Mutex<[Double]>([])
}
