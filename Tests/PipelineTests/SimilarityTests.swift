import Foundation
import Store
import TestSupport
import XCTest

/// `similar`, `mix`, `playlists write` and the report's map, end to end on a synthesized library of three
/// textures (clicks, chords, hiss) at four variations each, plus an Ogg copy of one chord track.
final class SimilarityTests: LibraryTestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        for v in 0..<4 {
            let seconds = 8 + Double(v)
            try write(Synth.clicks(bpm: 96 + Double(v) * 8, seconds: seconds, accentEvery: 2 + v), "beats/beat\(v).flac")
            try write(Synth.chords(Synth.cadence(tonic: v * 2, minor: v % 2 == 1), timbre: v % 2 == 0 ? .organ : .plucked),
                      "chords/chord\(v).flac")
            try write(Synth.noise(seconds: seconds, rmsDBFS: -20 - Double(v) * 3, seed: UInt64(v + 1)), "hiss/hiss\(v).flac")
        }
        try FileManager.default.createDirectory(atPath: library + "/copies", withIntermediateDirectories: true)
        try Synth.write(Synth.chords(Synth.cadence(tonic: 0, minor: false), timbre: .organ), to: library + "/copies/chord0.ogg",
                        format: .oggVorbis)
        XCTAssertEqual(try spindle(["analyze", "--quiet"]).status, 0)
        XCTAssertEqual(try spindle(["genres", "build", "--quiet"]).status, 0)
    }

    private func write(_ samples: [Float], _ path: String) throws {
        let folder = (library + "/" + path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Synth.write(samples, to: library + "/" + path, format: .flac16)
    }

    private func json(_ result: CLI.Result) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stdout + result.stderr)
    }

    func testSimilarFindsTheOtherEncodingFirstAndResolvesPlayersPaths() throws {
        let result = try spindle(["similar", "--json", "-n", "5", "/music/copies/chord0.ogg"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let object = try json(result)
        XCTAssertEqual(Array(object.keys).sorted(), ["input", "neighbours", "resolved"])
        XCTAssertEqual(object["input"] as? String, "/music/copies/chord0.ogg")
        XCTAssertEqual(object["resolved"] as? String, "copies/chord0.ogg", "a container path goes through the resolver")
        let neighbours = try XCTUnwrap(object["neighbours"] as? [[String: Any]])
        XCTAssertEqual(neighbours.count, 5)
        XCTAssertEqual(neighbours.first?["path"] as? String, "chords/chord0.flac")
        let distances = neighbours.compactMap { $0["distance"] as? Double }
        XCTAssertEqual(distances, distances.sorted())
        XCTAssertLessThan(distances[0], distances[1] / 3, "another encoding is far nearer than another recording")
        XCTAssertTrue((neighbours.first?["why"] as? String ?? "").hasPrefix("same key"), "\(neighbours.first!)")
        for n in neighbours { XCTAssertEqual(Array(n.keys).sorted(), ["distance", "path", "why"]) }
        // The chord tracks are nearer to each other than the hiss is.
        let hiss = try json(try spindle(["similar", "--json", "-n", "3", "hiss/hiss0.flac"]))
        let hissNeighbours = (hiss["neighbours"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }
        XCTAssertTrue(hissNeighbours.allSatisfy { $0.hasPrefix("hiss/") }, "\(hissNeighbours)")
    }

    func testSimilarOnAnUnknownTrackSaysWhyWithExitCode3() throws {
        let result = try spindle(["similar", "--json", "nowhere/at-all.flac"])
        XCTAssertEqual(result.status, 3)
        let object = try json(result)
        XCTAssertTrue(object["resolved"] is NSNull)
        XCTAssertEqual((object["neighbours"] as? [Any])?.count, 0)
        XCTAssertTrue((object["error"] as? String ?? "").contains("not found"), "\(object)")
        let text = try spindle(["similar", "../../etc/passwd"])
        XCTAssertEqual(text.status, 3)
    }

    /// A mistyped name may still be found by its words: the answer says so ("tracks like hiss/hiss2.flac:" had
    /// read as if the asked track were found), and `mix` says which track seeded it.
    func testATrackFoundByItsWordsIsSaidToBeAGuess() throws {
        let similar = try spindle(["similar", "-n", "2", "Hiss/Hiss2 (remaster).mp3"])
        XCTAssertEqual(similar.status, 0, similar.stderr)
        XCTAssertTrue(similar.stdout.hasPrefix("tracks like hiss/hiss2.flac (found by fuzzy word match for \"Hiss/Hiss2 (remaster).mp3\"):"),
                      similar.stdout)
        let exact = try spindle(["similar", "-n", "2", "hiss/hiss2.flac"])
        XCTAssertTrue(exact.stdout.hasPrefix("tracks like hiss/hiss2.flac:"), exact.stdout)
        let mix = try spindle(["mix", "-n", "3", "Hiss/Hiss2 (remaster).mp3"])
        XCTAssertEqual(mix.status, 0, mix.stderr)
        XCTAssertTrue(mix.stderr.contains("mix of hiss/hiss2.flac (found by fuzzy word match for \"Hiss/Hiss2 (remaster).mp3\")"), mix.stderr)
        XCTAssertTrue(mix.stdout.hasPrefix("#EXTM3U"), mix.stdout)
    }

    /// A track added since the last analysis: the answer says so once ("new/late.flac: new/late.flac has no
    /// feature vector yet" had named it twice), and a mix of it prints no playlist ("#EXTM3U" alone had gone
    /// to standard output, so `spindle mix X > mix.m3u` left an empty playlist that looked made).
    func testATrackNotYetAnalysedIsSaidOnceAndMakesNoPlaylist() throws {
        try write(Synth.sine(frequency: 330, seconds: 6, amplitude: 0.4), "new/late.flac")
        let similar = try spindle(["similar", "new/late.flac"])
        XCTAssertEqual(similar.status, 3)
        XCTAssertEqual(similar.stdout.trimmingCharacters(in: .whitespacesAndNewlines),
                       "new/late.flac: not analysed yet (no feature vector): run `spindle analyze`")
        let mix = try spindle(["mix", "/music/new/late.flac"])
        XCTAssertEqual(mix.status, 3)
        XCTAssertEqual(mix.stdout, "", "no playlist")
        XCTAssertTrue(mix.stderr.contains("/music/new/late.flac (new/late.flac): not analysed yet"), mix.stderr)
    }

    /// A track analysed without a feature vector (silent, a blip, or a failed analysis) was told "not analysed
    /// yet: run `spindle analyze`" after every analysis, by the command line and by the server alike. Each is
    /// told why instead; a track that analysing would change still hears "run analyze".
    func testATrackAnalysedWithoutAFeatureVectorIsToldWhy() throws {
        try write([Float](repeating: 0, count: 44100 * 2 * 5), "odd/silent.flac")
        try write(Array(Synth.sine(frequency: 440, seconds: 0.02, amplitude: 0.5)), "odd/blip.flac")
        try Synth.write([], to: library + "/odd/empty.wav", format: .wav16)
        _ = try spindle(["analyze", "--quiet"])
        let expected = [
            "odd/silent.flac": "silent: a silent track has no sound profile to compare",
            "odd/blip.flac": "too little sound for a sound profile (0.02 s)",
            "odd/empty.wav": "its analysis failed (no audio frames in the file), so it has no sound profile to compare",
        ]
        for (path, why) in expected {
            let similar = try spindle(["similar", path])
            XCTAssertEqual(similar.status, 3, path)
            XCTAssertEqual(similar.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "\(path): \(why)")
        }
        try write(Synth.sine(frequency: 330, seconds: 6, amplitude: 0.4), "odd/late.flac")
        XCTAssertTrue(try spindle(["similar", "odd/late.flac"]).stdout.contains("not analysed yet"))
    }

    func testMixIsAnExtendedM3UStartingWithTheSeedWithoutRepeatingARecording() throws {
        let result = try spindle(["mix", "chords/chord0.flac", "-n", "5"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.first, "#EXTM3U")
        let paths = lines.filter { !$0.hasPrefix("#") }
        XCTAssertEqual(paths.count, 5)
        XCTAssertEqual(paths.first, library + "/chords/chord0.flac")
        let detail = try spindle(["mix", "chords/chord0.flac", "-n", "5", "--format", "json"]).stdout
        XCTAssertFalse(paths.contains(library + "/copies/chord0.ogg"), "the seed's other encoding is the same recording: \(detail)")
        XCTAssertTrue(paths.allSatisfy { FileManager.default.fileExists(atPath: $0) })
        XCTAssertEqual(lines.filter { $0.hasPrefix("#EXTINF:") }.count, 5)
        XCTAssertTrue(lines[1].hasPrefix("#EXTINF:8,"), lines[1])
        let mix = try json(try spindle(["mix", "chords/chord0.flac", "-n", "5", "--format", "json"]))
        let tracks = try XCTUnwrap(mix["tracks"] as? [[String: Any]])
        XCTAssertEqual(tracks.map { $0["path"] as? String }, paths.map { String($0.dropFirst(library.count + 1)) })
        XCTAssertEqual(tracks.first?["transition"] as? String, "seed")
        XCTAssertTrue((tracks.last?["transition"] as? String ?? "").contains("away"))
        XCTAssertEqual(try spindle(["mix", "chords/chord0.flac", "-n", "5"]).stderr, "", "a full mix needs no word")
        // More than the library's 13 tracks: a shorter mix, and a word on why (a mix had just come out short).
        let long = try spindle(["mix", "chords/chord0.flac", "-n", "30"])
        XCTAssertEqual(long.status, 0, long.stderr)
        let count = long.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.count
        XCTAssertLessThan(count, 13)
        XCTAssertTrue(long.stderr.contains("mix of \(count) of the 30 tracks asked"), long.stderr)
        let longJSON = try json(try spindle(["mix", "chords/chord0.flac", "-n", "30", "--format", "json", "--quiet"]))
        XCTAssertTrue((longJSON["shortfall"] as? String ?? "").hasPrefix("mix of \(count) of the 30"), "\(longJSON)")
        XCTAssertTrue(long.stderr.contains("another encoding"), "one track left, the seed's other encoding: \(long.stderr)")
        // Without the copy every track is in the mix: the library is smaller than the mix, nothing was kept out.
        try FileManager.default.removeItem(atPath: library + "/copies/chord0.ogg")
        XCTAssertEqual(try spindle(["analyze", "--quiet"]).status, 0)
        let whole = try spindle(["mix", "chords/chord0.flac", "-n", "30"])
        XCTAssertEqual(whole.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.count, 12)
        XCTAssertTrue(whole.stderr.contains("mix of 12 of the 30 tracks asked: every track with a sound profile is in it (12)"),
                      whole.stderr)
    }

    // A VBR MP3 without its Xing header: TagLib 1.13 estimates its length from the first frame's bitrate
    // (a quiet start, so a low one, and a length far too long). Mixes and playlists had that estimate in
    // #EXTINF (and the same-recording test compared it); the decoded length is the file's.
    // `spindle path A B`: both ends in place, n real tracks, the other encoding of an end left out; an end that
    // names nothing is exit 3 with why.
    func testPathRunsFromOneTrackToAnotherWithoutRepeatingARecording() throws {
        let result = try spindle(["path", "chords/chord0.flac", "hiss/hiss3.flac", "-n", "6", "--format", "json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let path = try json(result)
        let tracks = try XCTUnwrap(path["tracks"] as? [[String: Any]]).compactMap { $0["path"] as? String }
        XCTAssertEqual(tracks.count, 6, "\(tracks)")
        XCTAssertEqual(tracks.first, "chords/chord0.flac")
        XCTAssertEqual(tracks.last, "hiss/hiss3.flac")
        XCTAssertEqual(Set(tracks).count, 6)
        XCTAssertFalse(tracks.contains("copies/chord0.ogg"), "the start's other encoding is the same recording: \(tracks)")
        let m3u = try spindle(["path", "chords/chord0.flac", "hiss/hiss3.flac", "-n", "6"])
        XCTAssertEqual(m3u.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init),
                       tracks.map { library + "/" + $0 })
        let missing = try spindle(["path", "chords/chord0.flac", "nowhere/none.flac"])
        XCTAssertEqual(missing.status, 3)
        XCTAssertTrue(missing.stderr.contains("nowhere/none.flac: not found"), missing.stderr)
        XCTAssertFalse(missing.stderr.contains("chord0"), "the end that was found is not blamed: \(missing.stderr)")
    }

    func testMixesGiveTheDecodedLengthNotTagLibsEstimate() throws {
        let path = library + "/vbr/quiet start.mp3"
        try FileManager.default.createDirectory(atPath: library + "/vbr", withIntermediateDirectories: true)
        try Synth.write(Synth.concat(Synth.silence(seconds: 3), Synth.noise(seconds: 9, rmsDBFS: -12, seed: 9)),
                        to: path, format: .mp3VBR)
        try Synth.stripXingHeader(path: path)
        XCTAssertEqual(try spindle(["analyze", "--quiet"]).status, 0)
        let tags = try json(try spindle(["tags", "show", "--json", "vbr/quiet start.mp3"]))
        let estimate = try XCTUnwrap(tags["duration_s"] as? Double, "\(tags)")
        XCTAssertGreaterThan(abs(estimate - 12), 2, "the case needs TagLib's estimate to be off: \(estimate)")
        let mix = try spindle(["mix", "vbr/quiet start.mp3", "-n", "2"])
        XCTAssertEqual(mix.status, 0, mix.stderr)
        XCTAssertTrue(mix.stdout.split(separator: "\n").dropFirst().first?.hasPrefix("#EXTINF:12,") == true, mix.stdout)
    }

    func testReportShowsTheLibraryMap() throws {
        let result = try spindle(["genres", "report", "--format", "html"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("Library map: 13 tracks"), "every analysed track is on the map")
        let figure = try XCTUnwrap(result.stdout.components(separatedBy: "<figure class=\"map\">").last)
        XCTAssertEqual(figure.components(separatedBy: "<circle ").count - 1, 13)
    }

    func testPlaylistsAreWrittenOncePerGenreRelativeAndOnlyRewrittenWhenChanged() throws {
        let genres = try XCTUnwrap(try json(try spindle(["genres", "report", "--format", "json"]))["genres"] as? [[String: Any]])
        XCTAssertFalse(genres.isEmpty)
        let first = try json(try spindle(["playlists", "write", "--json"]))
        let folder = library + "/Spindle Playlists"
        let report = try XCTUnwrap(first["playlists"] as? [String: Any])
        XCTAssertEqual(report["written"] as? Int, genres.count)
        for genre in genres {
            let name = try XCTUnwrap(genre["name"] as? String)
            let text = try String(contentsOfFile: folder + "/\(name).m3u8", encoding: .utf8)
            let lines = text.split(separator: "\n").map(String.init)
            XCTAssertEqual(Array(lines.prefix(2)), ["#EXTM3U", "#PLAYLIST:\(name)"])
            let paths = lines.filter { !$0.hasPrefix("#") }
            XCTAssertEqual(paths.count, genre["size"] as? Int)
            for p in paths {
                XCTAssertTrue(p.hasPrefix("../"), "relative to the playlist: \(p)")
                XCTAssertTrue(FileManager.default.fileExists(atPath: folder + "/" + p), p)
            }
        }
        // Nothing changed: nothing rewritten.
        let second = try XCTUnwrap(try json(try spindle(["playlists", "write", "--json"]))["playlists"] as? [String: Any])
        XCTAssertEqual(second["written"] as? Int, 0)
        XCTAssertEqual(second["unchanged"] as? Int, genres.count)

        // A user's own playlist, a playlist the user edited, and a genre that disappears.
        let mine = folder + "/Mine.m3u8"
        try "#EXTM3U\n../beats/beat0.flac\n".write(toFile: mine, atomically: true, encoding: .utf8)
        let names = genres.compactMap { $0["name"] as? String }
        let edited = folder + "/\(names[0]).m3u8"
        try (try String(contentsOfFile: edited, encoding: .utf8) + "../hiss/hiss0.flac\n").write(toFile: edited, atomically: true, encoding: .utf8)
        let editedText = try String(contentsOfFile: edited, encoding: .utf8)
        var renamed: [String] = []
        if names.count > 1 {
            let database = try SpindleDatabase(path: db)
            try database.writer.write { db in
                try db.execute(sql: "UPDATE composite_genres SET name = 'Renamed Shelf' WHERE name = ?", arguments: [names[1]])
            }
            renamed = [names[1]]
        }
        let third = try XCTUnwrap(try json(try spindle(["playlists", "write", "--json"]))["playlists"] as? [String: Any])
        XCTAssertEqual(try String(contentsOfFile: mine, encoding: .utf8), "#EXTM3U\n../beats/beat0.flac\n", "never a file Spindle did not write")
        XCTAssertEqual(try String(contentsOfFile: edited, encoding: .utf8), editedText, "an edited playlist is left as the user left it")
        let leftAlone = (third["left_alone"] as? [[String: Any]] ?? []).compactMap { $0["reason"] as? String }
        XCTAssertTrue(leftAlone.contains("edited since Spindle wrote it"), "\(third)")
        for old in renamed {
            XCTAssertFalse(FileManager.default.fileExists(atPath: folder + "/\(old).m3u8"), "the vanished genre's playlist is removed")
            XCTAssertTrue(FileManager.default.fileExists(atPath: folder + "/Renamed Shelf.m3u8"))
            XCTAssertEqual(third["removed"] as? Int, 1)
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix(".spindle-tmp-") }
        XCTAssertEqual(leftovers, [], "no temporary left behind")
    }

    /// A library moved to another folder kept nothing of its index: every file was analysed again, and the
    /// playlists Spindle had written, which moved with it, were no longer known as its own, so they were left
    /// alone for good instead of being kept up to date.
    func testAMovedLibraryKeepsItsAnalysisAndItsPlaylists() throws {
        func pipeline(_ library: String) throws -> String {
            let path = dir + "/nightly.toml"
            try "[pipeline]\nname = \"nightly\"\nstages = [\"scan\", \"tags\", \"analyze\", \"genres\"]\n"
                .write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }
        // First to a folder whose name is not ASCII, where the playlists are written.
        let musik = dir + "/Müsik ☂"
        try FileManager.default.moveItem(atPath: library, toPath: musik)
        XCTAssertEqual(try CLI.run(["--db", db, "--library", musik, "analyze"]).status, 0)
        let first = try XCTUnwrap(try json(try CLI.run(["--db", db, "--library", musik, "playlists", "write", "--json"]))["playlists"] as? [String: Any])
        let written = try XCTUnwrap(first["written"] as? Int)
        XCTAssertGreaterThan(written, 0)
        let moved = dir + "/moved"
        try FileManager.default.moveItem(atPath: musik, toPath: moved)
        // Before the next scan, status says where the library was and that it is not there.
        let status = try CLI.run(["--db", db, "status"])
        XCTAssertTrue(status.stdout.contains("\(musik) (folder not found: a disk or share not mounted, or the library moved;"),
                      status.stdout)
        XCTAssertEqual(try json(try CLI.run(["--db", db, "status", "--json"]))["roots_not_found"] as? [String], [musik])
        let run = try CLI.run(["--db", db, "--library", moved, "analyze", "--json"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let outcome = try json(run)
        XCTAssertEqual(outcome["library_moved_from"] as? String, musik)
        XCTAssertEqual(try json(try CLI.run(["--db", db, "status", "--json"]))["roots_not_found"] as? [String], [])
        XCTAssertEqual((outcome["analyze"] as? [String: Any])?["analysed"] as? Int, 0)
        // The library changes after the move: its playlists are still Spindle's to bring up to date.
        try FileManager.default.removeItem(atPath: moved + "/chords/chord3.flac")
        XCTAssertEqual(try CLI.run(["--db", db, "--library", moved, "run", "--json", pipeline(moved)]).status, 0)
        let again = try json(try CLI.run(["--db", db, "--library", moved, "playlists", "write", "--json"]))
        let playlists = try XCTUnwrap(again["playlists"] as? [String: Any])
        XCTAssertEqual((playlists["left_alone"] as? [Any])?.count, 0, "\(playlists)")
        XCTAssertGreaterThan(playlists["written"] as? Int ?? 0, 0, "\(playlists)")
    }

    /// Two libraries in one database (two disks, one default database): the nightly run of the second replaced
    /// the first one's genres, so the first library's report showed the other's genres, and its `playlists
    /// write` put the other's genres, every one empty, into its folder for Navidrome to import.
    func testTwoLibrariesInOneDatabaseKeepTheirOwnGenresAndPlaylists() throws {
        func genreNames(_ library: String) throws -> [String] {
            let report = try CLI.run(["--db", db, "--library", library, "genres", "report", "--format", "json"])
            XCTAssertEqual(report.status, 0, report.stderr)
            return try XCTUnwrap(json(report)["genres"] as? [[String: Any]]).compactMap { $0["name"] as? String }.sorted()
        }
        let ours = try genreNames(library)
        XCTAssertFalse(ours.isEmpty)
        // The second library: the same sounds under other paths, so its genres are built from other files.
        let second = dir + "/second disk"
        try FileManager.default.createDirectory(atPath: second, withIntermediateDirectories: true)
        for folder in ["beats", "chords", "hiss"] {
            try FileManager.default.copyItem(atPath: library + "/" + folder, toPath: second + "/disk2 " + folder)
        }
        XCTAssertEqual(try CLI.run(["--db", db, "--library", second, "analyze", "--quiet"]).status, 0)
        XCTAssertEqual(try CLI.run(["--db", db, "--library", second, "genres", "build", "--quiet"]).status, 0)
        XCTAssertFalse(try genreNames(second).isEmpty)
        XCTAssertEqual(try genreNames(library), ours, "the first library's genres stay its own")
        let written = try json(try CLI.run(["--db", db, "--library", library, "playlists", "write", "--json"]))
        XCTAssertEqual((written["playlists"] as? [String: Any])?["written"] as? Int, ours.count, "\(written)")
        let folder = library + "/Spindle Playlists"
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
            let paths = try String(contentsOfFile: folder + "/" + name, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("#") }
            XCTAssertFalse(paths.isEmpty, "\(name) lists no track")
            XCTAssertTrue(paths.allSatisfy { !$0.contains("disk2") }, "\(name): \(paths)")
        }
    }

    func testPlaylistsGoToTheConfiguredFolder() throws {
        let outside = dir + "/navidrome-playlists"
        let config = dir + "/spindle.toml"
        try "[playlists]\ndir = \"\(outside)\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        let result = try spindle(["--config", config, "playlists", "write", "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let files = try FileManager.default.contentsOfDirectory(atPath: outside).filter { $0.hasSuffix(".m3u8") }
        XCTAssertFalse(files.isEmpty)
        let text = try String(contentsOfFile: outside + "/" + files[0], encoding: .utf8)
        let path = try XCTUnwrap(text.split(separator: "\n").first { !$0.hasPrefix("#") })
        XCTAssertTrue(path.hasPrefix("../music/"), String(path))
    }

    /// Before any composite genre exists (`genres build` not run yet), `playlists write` made an empty
    /// "Spindle Playlists" folder in the library for the media server to show, and said "0 written".
    func testNoGenresYetMakesNoFolderAndSaysWhatToRun() throws {
        let database = try SpindleDatabase(path: db)
        try database.writer.write { try $0.execute(sql: "DELETE FROM genre_memberships; DELETE FROM composite_genres") }
        let result = try spindle(["playlists", "write"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("playlists: none: the library has no composite genres yet (`spindle genres build` makes them)"),
                      result.stdout)
        XCTAssertFalse(FileManager.default.fileExists(atPath: library + "/Spindle Playlists"))
        let json = try json(try spindle(["playlists", "write", "--json"]))
        XCTAssertEqual((json["playlists"] as? [String: Any])?["composite_genres"] as? Int, 0)
    }

    /// A folder that cannot be made (a library mounted read-only, a path through a file) ended the command
    /// with Foundation's words: 'Error Domain=NSCocoaErrorDomain Code=642 "The volume is read only." UserInfo=…'.
    func testAPlaylistsFolderThatCannotBeMadeSaysWhyAndWhereElse() throws {
        let blocked = dir + "/a-file"
        try Data("x".utf8).write(to: URL(fileURLWithPath: blocked))
        let result = try spindle(["playlists", "write", blocked + "/playlists"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("cannot create the playlists folder \(blocked)/playlists: Not a directory"),
                      result.stderr)
        XCTAssertTrue(result.stderr.contains("[playlists] dir"), result.stderr)
        XCTAssertFalse(result.stderr.contains("NSCocoaErrorDomain"), result.stderr)
    }
}
