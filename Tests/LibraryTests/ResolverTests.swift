import Foundation
@testable import Library
import Store
import TestSupport
import XCTest

final class ResolverTests: XCTestCase {
    var dir = ""
    var library = ""
    var resolver: PathResolver!

    override func setUpWithError() throws {
        dir = try Synth.temporaryDirectory("resolve")
        library = dir + "/music"
        let files = [
            "Beyoncé/I Am... Sasha Fierce (2008)/03 - Halo.flac",
            "Daft Punk/Discovery/01 One More Time.mp3",
            "Daft Punk/Discovery/02 Aerodynamic.mp3",
            "Daft Punk/Alive 2007/02 Aerodynamic.mp3",
            "Various/Hits A/05 Intro.flac",
            "Various/Hits B/05 Intro.flac",
            "Ünïcödé Band/Ålbum/07 Ça va.ogg",
        ]
        for (i, f) in files.enumerated() {
            let path = library + "/" + f
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                    withIntermediateDirectories: true)
            try Synth.write(Synth.sine(frequency: 200 + Double(i) * 30, seconds: 0.2, amplitude: 0.2), to: path, format: .flac16)
        }
        // A file outside the root, reachable only through symlinks that must be refused.
        try Synth.write(Synth.sine(frequency: 999, seconds: 0.2, amplitude: 0.2), to: dir + "/secret.flac", format: .flac16)
        try FileManager.default.createSymbolicLink(atPath: library + "/secret.flac", withDestinationPath: dir + "/secret.flac")
        try FileManager.default.createSymbolicLink(atPath: library + "/outside", withDestinationPath: dir)
        try index()
    }

    /// Scans the library into the test's database and resolves against it.
    private func index() throws {
        let database = try SpindleDatabase(path: dir + "/spindle.db")
        let root = try LibraryRoot(path: library)
        _ = try LibraryScanner(database: database, root: root).scan()
        resolver = try PathResolver(database: database, root: root)
    }

    override func tearDownWithError() throws {
        resolver = nil
        try? FileManager.default.removeItem(atPath: dir)
    }

    func testDirectJoinWins() throws {
        let r = try resolver.resolve("Daft Punk/Discovery/01 One More Time.mp3")
        XCTAssertEqual(r.resolved, "Daft Punk/Discovery/01 One More Time.mp3")
        XCTAssertEqual(r.strategy, 1)
        let abs = try resolver.resolve(library + "/Daft Punk/Discovery/01 One More Time.mp3")
        XCTAssertEqual(abs.strategy, 1)
    }

    func testContainerPrefixIsStripped() throws {
        let r = try resolver.resolve("/music/Daft Punk/Discovery/02 Aerodynamic.mp3")
        XCTAssertEqual(r.resolved, "Daft Punk/Discovery/02 Aerodynamic.mp3")
        XCTAssertEqual(r.strategy, 2)
        XCTAssertEqual(r.tried.first, "music/Daft Punk/Discovery/02 Aerodynamic.mp3")
        let library = try resolver.resolve("Main Library/Beyoncé/I Am... Sasha Fierce (2008)/03 - Halo.flac")
        XCTAssertEqual(library.strategy, 2)
    }

    func testFileNameLookupDecidesByFolders() throws {
        let r = try resolver.resolve("Daft Punk/Discovery (2001)/02 Aerodynamic.mp3")
        XCTAssertEqual(r.strategy, 3)
        XCTAssertEqual(r.resolved, "Daft Punk/Discovery/02 Aerodynamic.mp3")
        let live = try resolver.resolve("Some/Alive 2007/02 Aerodynamic.mp3")
        XCTAssertEqual(live.resolved, "Daft Punk/Alive 2007/02 Aerodynamic.mp3")
    }

    func testAmbiguousNamesAreReportedNotGuessed() throws {
        let r = try resolver.resolve("Elsewhere/05 Intro.flac")
        XCTAssertNil(r.resolved)
        XCTAssertEqual(r.ambiguous, ["Various/Hits A/05 Intro.flac", "Various/Hits B/05 Intro.flac"])
    }

    func testFuzzyMatchForSubsonicFakePaths() throws {
        // Subsonic builds AlbumArtist/Album/NN - Title.ext from tags; case, accents and punctuation differ.
        try assertResolves("Beyonce/I Am Sasha Fierce/03 - halo.mp3", to: "Beyoncé/I Am... Sasha Fierce (2008)/03 - Halo.flac", by: 4)
        let accents = try resolver.resolve("Unicode Band/Album/07 - Ca Va.ogg")
        XCTAssertEqual(accents.resolved, "Ünïcödé Band/Ålbum/07 Ça va.ogg")
    }

    // A library copied from a Mac keeps its names decomposed (NFD: "é" as e + U+0301, Hangul as jamo), and
    // players and servers send them composed (NFC). Before, the Hangul path was found by no strategy and the
    // accented one only by fuzzy words (a guess, refused for writes).
    func testComposedPathsFindTheirDecomposedNamesOnDisk() throws {
        let names = ["Beyoncé/Déjà Vu.flac", "하늘빛/봄날/03 여름밤.flac"]
        for name in names {
            let path = library + "/" + name.decomposedStringWithCanonicalMapping
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                    withIntermediateDirectories: true)
            try Synth.write(Synth.sine(frequency: 330, seconds: 0.2, amplitude: 0.2), to: path, format: .flac16)
        }
        try index()
        func bytes(_ s: String?) -> [UInt8]? { s.map { Array($0.utf8) } }
        for name in names {
            let asked = name.precomposedStringWithCanonicalMapping, onDisk = name.decomposedStringWithCanonicalMapping
            XCTAssertNotEqual(bytes(asked), bytes(onDisk))
            let direct = try resolver.resolve(asked)
            XCTAssertEqual(bytes(direct.resolved), bytes(onDisk), name)
            XCTAssertEqual(direct.strategy, 1, name)
            XCTAssertTrue(direct.isExact, name)
            let container = try resolver.resolve("/music/" + asked)
            XCTAssertEqual(bytes(container.resolved), bytes(onDisk), name)
            XCTAssertEqual(container.strategy, 2, name)
        }
        let byName = try resolver.resolve("Elsewhere/03 여름밤.flac")
        XCTAssertEqual(byName.strategy, 3)
        XCTAssertEqual(bytes(byName.resolved), bytes("하늘빛/봄날/03 여름밤.flac".decomposedStringWithCanonicalMapping))
        let byWords = try resolver.resolve("하늘빛/봄날/01 - 여름밤.mp3")
        XCTAssertEqual(byWords.strategy, 4)
        XCTAssertEqual(bytes(byWords.resolved), bytes("하늘빛/봄날/03 여름밤.flac".decomposedStringWithCanonicalMapping))
    }

    func testNoMatchReturnsNullWithEverythingTried() throws {
        let r = try resolver.resolve("Nobody/Nothing/01 Silence Of The Void.flac")
        XCTAssertNil(r.resolved)
        XCTAssertNil(r.strategy)
        XCTAssertEqual(r.tried.count, 3 + 1 + 1)   // three joins, the name, the words
        XCTAssertTrue(r.tried.contains("name:01 silence of the void.flac"))
        // A path that names only the root (or nothing) says so; it had been "not found (tried )".
        for root in [".", "/", "", "./"] {
            let r = try resolver.resolve(root)
            XCTAssertNil(r.resolved, root)
            XCTAssertEqual(r.failure, "not found: the path names no file, only the library root or nothing", root)
        }
    }

    func testEscapesAreRefused() throws {
        for attempt in ["../secret.flac", "Daft Punk/../../secret.flac", "./../../etc/passwd"] {
            let r = try resolver.resolve(attempt)
            XCTAssertNil(r.resolved, attempt)
            XCTAssertNotNil(r.refused, attempt)
        }
        let link = try resolver.resolve("secret.flac")
        XCTAssertNil(link.resolved)
        XCTAssertNotNil(link.refused)
        let throughDirectory = try resolver.resolve("outside/secret.flac")
        XCTAssertNil(throughDirectory.resolved)
        XCTAssertNotNil(throughDirectory.refused)
        let absolute = try resolver.resolve("/etc/passwd")
        XCTAssertNil(absolute.resolved)
        // The same escapes written the Windows way or as a URI are refused too.
        for attempt in ["..\\..\\secret.flac", "file:///music/%2e%2e/%2e%2e/secret.flac"] {
            let r = try resolver.resolve(attempt)
            XCTAssertNil(r.resolved, attempt)
            XCTAssertNotNil(r.refused, attempt)
        }
        XCTAssertEqual(try resolver.resolve("file:///music/Daft%20Punk/x%00.mp3").refused, "path contains a NUL byte")
    }

    // Navidrome on Windows hands out paths with backslashes, and playlists and MPD write file:// URIs. Before,
    // both were found only by fuzzy words (a guess, refused for writes) or not at all.
    func testWindowsPathsAndFileURIsAreThePathsTheyName() throws {
        try assertResolves("Daft Punk\\Discovery\\01 One More Time.mp3", to: "Daft Punk/Discovery/01 One More Time.mp3", by: 1)
        try assertResolves("D:\\Music\\Daft Punk\\Alive 2007\\02 Aerodynamic.mp3", to: "Daft Punk/Alive 2007/02 Aerodynamic.mp3", by: 2)
        try assertResolves("file:///music/%C3%9Cn%C3%AFc%C3%B6d%C3%A9%20Band/%C3%85lbum/07%20%C3%87a%20va.ogg",
                           to: "Ünïcödé Band/Ålbum/07 Ça va.ogg", by: 2)
        try assertResolves("file://localhost" + library + "/Daft%20Punk/Discovery/02%20Aerodynamic.mp3",
                           to: "Daft Punk/Discovery/02 Aerodynamic.mp3", by: 1)
    }

    private func assertResolves(_ input: String, to path: String, by strategy: Int, line: UInt = #line) throws {
        let r = try resolver.resolve(input)
        XCTAssertEqual(r.resolved, path, input, line: line)
        XCTAssertEqual(r.strategy, strategy, input, line: line)
    }

    // A fuzzy query holds every word of a sibling whose folder is named like the song ("Neon Skyline/02 Laser
    // Rain.mp3" for "Neon Skyline/01 Neon Skyline"): the path with fewer words besides is the one asked for,
    // whatever its extension. The sibling was picked, because its extension matched a transcoded name's.
    func testFuzzyWordsPreferThePathWithFewestOtherWords() throws {
        for (i, f) in ["Midnight Arcade/Neon Skyline/01 Neon Skyline.flac", "Midnight Arcade/Neon Skyline/02 Laser Rain.mp3"].enumerated() {
            let path = library + "/" + f
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Synth.write(Synth.sine(frequency: 300 + Double(i) * 50, seconds: 0.2, amplitude: 0.2), to: path, format: .flac16)
        }
        try index()
        try assertResolves("Midnight Arcade/Neon Skyline/01 Neon Skyline.mp3", to: "Midnight Arcade/Neon Skyline/01 Neon Skyline.flac", by: 4)
    }

    // A song the library does not hold, asked in the folder of an album it does: the fuzzy words had found
    // the album's only other track (6 of 8 words: the artist and album), so a player got Halo's tempo and
    // silences for Single Ladies. A candidate now shares a word of the asked file name (the track number
    // counts, as in a server's tag-built "NN - Title" path).
    func testFuzzyWordsNeedAWordOfTheFileName() throws {
        let other = try resolver.resolve("Beyoncé/I Am... Sasha Fierce (2008)/Single Ladies.flac")
        XCTAssertNil(other.resolved, "\(other)")
        XCTAssertTrue(other.ambiguous.isEmpty)
        try assertResolves("Beyoncé/I Am... Sasha Fierce (2008)/03 - Halo (Album Version).m4a",
                           to: "Beyoncé/I Am... Sasha Fierce (2008)/03 - Halo.flac", by: 4)
        try assertResolves("Beyoncé/I Am... Sasha Fierce (2008)/3 - Untitled.m4a",
                           to: "Beyoncé/I Am... Sasha Fierce (2008)/03 - Halo.flac", by: 4)
    }

    // Classical names hold the same words in another order ("Symphony No. 1, Mvt. 2" and "Symphony No. 2,
    // Mvt. 1" in one folder). A server's tag-built path for one of them tied the two, and the player got
    // nothing ("ambiguous"); the order of the name's words now decides, after the folders.
    func testNamesOfTheSameWordsAreToldApartByTheirOrder() throws {
        let names = ["Brahms/Symphonies/02 Symphony No. 1, Mvt. 2.flac", "Brahms/Symphonies/05 Symphony No. 2, Mvt. 1.flac"]
        for (i, f) in names.enumerated() {
            let path = library + "/" + f
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Synth.write(Synth.sine(frequency: 300 + Double(i) * 50, seconds: 0.2, amplitude: 0.2), to: path, format: .flac16)
        }
        try index()
        try assertResolves("Brahms/Symphonies/02 - Symphony No. 1: Mvt. 2.mp3", to: names[0], by: 4)
        try assertResolves("Brahms/Symphonies/Symphony No. 2 - Mvt. 1.mp3", to: names[1], by: 4)
        // The same words in the same order in two folders are still for the folders to decide, and a tie
        // there is still reported.
        let elsewhere = try resolver.resolve("Elsewhere/Intro.mp3")
        XCTAssertNil(elsewhere.resolved)
        XCTAssertEqual(elsewhere.ambiguous, ["Various/Hits A/05 Intro.flac", "Various/Hits B/05 Intro.flac"])
    }

    func testWordsInOrder() {
        XCTAssertEqual(PathWords.wordsInOrder(["symphony", "no", "1", "mvt", "2"], ["2", "symphony", "no", "1", "mvt", "2"]), 5)
        XCTAssertEqual(PathWords.wordsInOrder(["symphony", "no", "1", "mvt", "2"], ["5", "symphony", "no", "2", "mvt", "1"]), 3)
        XCTAssertEqual(PathWords.wordsInOrder([], ["a"]), 0)
        XCTAssertEqual(PathWords.nameSequence("Brahms/02 Symphony No. 1, Mvt. 02.flac"), ["2", "symphony", "no", "1", "mvt", "2"])
    }

    func testPathWords() {
        XCTAssertEqual(PathWords.words("Beyoncé/03 - Halo.FLAC"), ["beyonce", "halo"])
        XCTAssertEqual(PathWords.words("2Pac/1996 All Eyez on Me/1-03 Ambitionz.mp3"), ["2pac", "1996", "all", "eyez", "on", "me", "ambitionz"])
        XCTAssertEqual(PathWords.words("Blur/13/02. Song 2.flac"), ["blur", "13", "song", "2"])
    }

    // Hostile depth (2,000 components, under the byte limit): a 5,000-component path was resolved component by component (177 s, 75 MB of "tried").
    func testVeryDeepOrLongInputsAreRefusedCheaply() throws {
        let deep = Array(repeating: "a", count: 2000).joined(separator: "/") + "/Halo.flac"
        let r = try resolver.resolve(deep)
        XCTAssertNil(r.resolved)
        XCTAssertTrue(r.refused?.contains("more than \(PathResolver.maxComponents) components") ?? false, "\(r.refused ?? "")")
        XCTAssertTrue(r.tried.isEmpty)
        let long = try resolver.resolve(String(repeating: "x", count: 1 << 20))
        XCTAssertNotNil(long.refused)
        XCTAssertLessThan(long.input.utf8.count, 1000, "the refusal does not echo a megabyte back")
        XCTAssertNotNil(try resolver.resolve("Daft Punk/Discovery/01 One More Time.mp3\u{0}.txt").refused)
        // The deepest path allowed still resolves.
        let allowed = Array(repeating: "x", count: PathResolver.maxComponents - 3).joined(separator: "/")
            + "/Daft Punk/Discovery/02 Aerodynamic.mp3"
        XCTAssertEqual(try resolver.resolve(allowed).resolved, "Daft Punk/Discovery/02 Aerodynamic.mp3")
    }
}

/// Fuzzy lookup over a library where one word is everywhere.
final class ResolverCrowdTests: XCTestCase {
    func testTheBestMatchIsFoundAmongMoreThan500SharingAWordAndSharpSFoldsLikeTheIndex() throws {
        let dir = try Synth.temporaryDirectory("crowd")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let library = dir + "/music"
        try FileManager.default.createDirectory(atPath: library + "/Songs", withIntermediateDirectories: true)
        // Empty files are enough: the scan indexes names, it does not decode.
        for i in 0..<700 { FileManager.default.createFile(atPath: library + "/Songs/Song \(i) Love.flac", contents: Data("x".utf8)) }
        FileManager.default.createFile(atPath: library + "/Songs/Zebra Love Song.flac", contents: Data("x".utf8))
        FileManager.default.createFile(atPath: library + "/Songs/Große Straße.flac", contents: Data("x".utf8))
        let database = try SpindleDatabase(path: dir + "/spindle.db")
        let root = try LibraryRoot(path: library)
        _ = try LibraryScanner(database: database, root: root).scan()
        let resolver = try PathResolver(database: database, root: root)
        let zebra = try resolver.resolve("Other/Love Song Zebra (Remastered).mp3")
        XCTAssertEqual(zebra.resolved, "Songs/Zebra Love Song.flac", "\(zebra)")
        XCTAssertEqual(zebra.strategy, 4)
        let street = try resolver.resolve("Elsewhere/grosse strasse.mp3")
        XCTAssertEqual(street.resolved, "Songs/Große Straße.flac", "\(street)")
    }
}
