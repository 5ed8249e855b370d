import Foundation
import GRDB
import Store
import TestSupport
import XCTest

/// `spindle serve` end to end: a real server on an ephemeral port, a real HTTP client over a socket.
final class ServerTests: XCTestCase {
    /// The shared library is built once for the class; its folder goes with the last test.
    override class func tearDown() {
        if case .success(let fixture) = ServerFixture.shared { try? FileManager.default.removeItem(atPath: fixture.dir) }
        super.tearDown()
    }

    private func object(_ response: RawHTTPClient.Response, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        try XCTUnwrap(response.json() as? [String: Any], "not a JSON object: \(response.status) \(response.text.prefix(300))",
                      file: file, line: line)
    }

    func testProfileHasTheCompanionsNamesWithTheirBackwardsMeaningAndSpindlesOwn() throws {
        let f = try ServerFixture.get()
        try withServer(database: f.db, library: f.library) { port in
            // A container path, as the companion's clients send: resolved by stripping leading components.
            let response = try RawHTTPClient.get(port: port, "/smart-dj/profile?relative_path=%2Fmusic%2FBeats%2FAlbum%2F01+Clicks.flac")
            XCTAssertEqual(response.status, 200, response.text)
            XCTAssertEqual(response.headers["content-type"], "application/json; charset=utf-8")
            let profile = try object(response)
            XCTAssertEqual(profile["relative_path"] as? String, "Beats/Album/01 Clicks.flac")
            XCTAssertEqual(profile["resolved_by"] as? Int, 2)
            // The view is the companion's contract: the served values are its row.
            let view = try DatabaseQueue(path: f.db).read { db in
                try XCTUnwrap(Row.fetchOne(db, sql: "SELECT * FROM smart_dj_profiles WHERE relative_path = ?",
                                           arguments: ["Beats/Album/01 Clicks.flac"]))
            }
            let silenceStart = try XCTUnwrap(profile["silence_start"] as? Double)
            let silenceEnd = try XCTUnwrap(profile["silence_end"] as? Double)
            XCTAssertEqual(silenceStart, view["silence_start"] as Double, accuracy: 1e-3)
            XCTAssertEqual(silenceEnd, view["silence_end"] as Double, accuracy: 1e-3)
            XCTAssertEqual(try XCTUnwrap(profile["bpm"] as? Double), view["bpm"] as Double, accuracy: 0.01)
            XCTAssertEqual(try XCTUnwrap(profile["lufs"] as? Double), view["lufs"] as Double, accuracy: 0.01)
            // Backwards, as the companion had it: silence_end is where the 1 s of leading silence ends,
            // silence_start where trailing silence begins (after the last click, at 6.5 s, and its decay).
            XCTAssertEqual(silenceEnd, 1.0, accuracy: 0.05)
            XCTAssertTrue((6.5...7.05).contains(silenceStart), "\(silenceStart)")
            XCTAssertEqual(profile["lead_silence_end_s"] as? Double, silenceEnd)
            XCTAssertEqual(profile["trail_silence_start_s"] as? Double, silenceStart)
            XCTAssertEqual(try XCTUnwrap(profile["bpm"] as? Double), 120, accuracy: 2)
            for key in ["bpm_confidence", "first_beat_s", "replaygain_track_gain_db", "true_peak_dbtp", "duration_s", "frames_count"] {
                XCTAssertNotNil(profile[key] as? NSNumber, "\(key) in \(profile)")
            }
            XCTAssertTrue(profile.keys.contains("key"))
            XCTAssertTrue(profile.keys.contains("bpm_alternative"), "null when the tempo stands clear, never missing")
            XCTAssertTrue(profile.keys.contains("top_tags"), "null without the tagger, never missing")
        }
    }

    /// A file another recording was copied over, once a scan has seen it change and before it is analysed
    /// again (the rest of a long nightly run, or until the next night when a `tags` command's scan saw it):
    /// its profile and frames were the old recording's, so a player skipped another recording's silences.
    func testAFileChangedSinceItsAnalysisHasNoProfileUntilAnalysedAgain() throws {
        let dir = try Synth.temporaryDirectory("ServerTestsChanged")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let library = dir + "/music", db = dir + "/spindle.db"
        try FileManager.default.createDirectory(atPath: library + "/A", withIntermediateDirectories: true)
        try Synth.write(Synth.clicks(bpm: 120, seconds: 6), to: library + "/A/t.flac", format: .flac16)
        try Synth.write(Synth.clicks(bpm: 90, seconds: 6), to: library + "/A/u.flac", format: .flac16)
        func spindle(_ arguments: [String]) throws { XCTAssertEqual(try CLI.run(["--db", db, "--library", library] + arguments).status, 0) }
        try spindle(["analyze"])
        try Synth.write(Synth.concat(Synth.silence(seconds: 2), Synth.clicks(bpm: 100, seconds: 6)), to: library + "/A/t.flac", format: .flac16)
        try spindle(["scan"])
        try withServer(database: db, library: library) { port in
            let profile = try RawHTTPClient.get(port: port, "/smart-dj/profile?relative_path=A/t.flac")
            XCTAssertEqual(profile.status, 404, profile.text)
            XCTAssertTrue(profile.text.contains("changed since it was analysed"), profile.text)
            XCTAssertEqual(try RawHTTPClient.get(port: port, "/visualizer/frames?relative_path=A/t.flac").status, 404)
            XCTAssertEqual(try RawHTTPClient.get(port: port, "/smart-dj/profile?relative_path=A/u.flac").status, 200)
        }
        try spindle(["analyze"])
        try withServer(database: db, library: library) { port in
            let profile = try object(try RawHTTPClient.get(port: port, "/smart-dj/profile?relative_path=A/t.flac"))
            XCTAssertEqual(try XCTUnwrap(profile["bpm"] as? Double), 100, accuracy: 1)
            XCTAssertEqual(try XCTUnwrap(profile["silence_end"] as? Double), 2, accuracy: 0.05)
            XCTAssertEqual(try RawHTTPClient.get(port: port, "/visualizer/frames?relative_path=A/t.flac").status, 200)
        }
    }

    func testBulkProfilesMapEachPathToItsProfileOrItsError() throws {
        let f = try ServerFixture.get()
        try withServer(database: f.db, library: f.library) { port in
            let get = try object(try RawHTTPClient.get(
                port: port, "/smart-dj/bulk-profiles?paths=Beats/Album/01%20Clicks.flac,01%20Organ.flac,Nowhere/none.flac"))
            XCTAssertEqual(Set(get.keys), ["Beats/Album/01 Clicks.flac", "01 Organ.flac", "Nowhere/none.flac"])
            XCTAssertEqual((get["01 Organ.flac"] as? [String: Any])?["relative_path"] as? String, "Chords/Album/01 Organ.flac",
                           "a bare file name is found by the index")
            let missing = try XCTUnwrap(get["Nowhere/none.flac"] as? [String: Any])
            XCTAssertEqual(missing["status"] as? Int, 404)
            XCTAssertEqual(missing["tried"] as? [String], ["Nowhere/none.flac", "none.flac", "name:none.flac", "words:nowhere none"])

            // GET, the form the companion's clients use: a name with a comma ("Crosby, Stills & Nash", "Hello,
            // Goodbye") is one path of the list, answered under the path asked, not two fragments.
            let commas = try object(try RawHTTPClient.get(
                port: port, "/smart-dj/bulk-profiles?paths=Hiss/Album/02%20Quiet,%20Hiss.flac,01%20Organ.flac,Nowhere/a,b.flac"))
            XCTAssertEqual(Set(commas.keys), ["Hiss/Album/02 Quiet, Hiss.flac", "01 Organ.flac", "Nowhere/a", "b.flac"])
            XCTAssertEqual((commas["Hiss/Album/02 Quiet, Hiss.flac"] as? [String: Any])?["resolved_by"] as? Int, 1)

            // POST: paths with commas, as a list or under "paths".
            for body in [#"["Hiss/Album/02 Quiet, Hiss.flac", "../etc/passwd"]"#,
                         #"{"paths": ["Hiss/Album/02 Quiet, Hiss.flac", "../etc/passwd"]}"#] {
                let response = try RawHTTPClient.request(port: port, method: "POST", target: Array("/smart-dj/bulk-profiles".utf8),
                                                      headers: ["Content-Type": "application/json"], body: Data(body.utf8))
                XCTAssertEqual(response.status, 200, response.text)
                let post = try object(response)
                XCTAssertEqual((post["Hiss/Album/02 Quiet, Hiss.flac"] as? [String: Any])?["relative_path"] as? String,
                               "Hiss/Album/02 Quiet, Hiss.flac")
                XCTAssertEqual((post["../etc/passwd"] as? [String: Any])?["status"] as? Int, 400)
            }
        }
    }

    func testFramesAsJSONAndAsStoredBytesAgree() throws {
        let f = try ServerFixture.get()
        try withServer(database: f.db, library: f.library) { port in
            let json = try RawHTTPClient.get(port: port, "/visualizer/frames?relative_path=Chords/Album/01%20Organ.flac")
            XCTAssertEqual(json.status, 200, json.text)
            let frames = try XCTUnwrap(json.json() as? [[Double]])
            let bytes = try RawHTTPClient.get(port: port, "/visualizer/frames?relative_path=Chords/Album/01%20Organ.flac&format=bytes")
            XCTAssertEqual(bytes.status, 200)
            XCTAssertEqual(bytes.headers["content-type"], "application/octet-stream")
            let count = try XCTUnwrap(bytes.headers["x-frames-count"].flatMap(Int.init))
            let bands = try XCTUnwrap(bytes.headers["x-frames-bands"].flatMap(Int.init))
            XCTAssertEqual(bands, 32)
            XCTAssertEqual(Double(try XCTUnwrap(bytes.headers["x-frames-fps"])), 30)
            XCTAssertEqual(frames.count, count)
            XCTAssertGreaterThan(count, 100)
            XCTAssertEqual(bytes.body.count, count * bands)
            XCTAssertTrue(frames.allSatisfy { $0.count == bands && $0.allSatisfy { (0...1).contains($0) } })
            let raw = [UInt8](bytes.body)
            for i in [0, count / 2, count - 1] {
                for b in 0..<bands { XCTAssertEqual(frames[i][b], Double(raw[i * bands + b]) / 255, accuracy: 1e-4) }
            }
            XCTAssertGreaterThan(frames.joined().max() ?? 0, 0.3, "a chord track is not silent")
            // A stretch only (a long track's frames are megabytes of JSON): frames 30 to 89 for 1 s + 2 s at 30 fps.
            let path = "/visualizer/frames?relative_path=Chords/Album/01%20Organ.flac"
            let part = try RawHTTPClient.get(port: port, path + "&start=1&seconds=2")
            XCTAssertEqual(part.status, 200, part.text)
            XCTAssertEqual(try XCTUnwrap(part.json() as? [[Double]]), Array(frames[30..<90]))
            XCTAssertEqual(part.headers["x-frames-start"], "30")
            XCTAssertEqual(part.headers["x-frames-count"], "60")
            let partBytes = try RawHTTPClient.get(port: port, path + "&format=bytes&start=1.5")
            XCTAssertEqual([UInt8](partBytes.body), Array(raw[(45 * bands)...]))
            let past = try RawHTTPClient.get(port: port, path + "&start=1e300&seconds=1e300")
            XCTAssertEqual(past.status, 200, past.text)
            XCTAssertEqual(try XCTUnwrap(past.json() as? [[Double]]).count, 0)
            XCTAssertEqual(past.headers["x-frames-start"], String(count))
            for bad in ["&start=-1", "&start=abc", "&seconds=0", "&start=nan", "&seconds=inf"] {
                XCTAssertEqual(try RawHTTPClient.get(port: port, path + bad).status, 400, bad)
            }
        }
    }

    /// A long recording's frames were read whole, copied, encoded whole and copied again before the first byte
    /// went out: for a 30-hour audiobook, some 1.6 GB for one request. They are read and sent a piece at a
    /// time now (`FramesRoute.piece`, 1 MiB of frames), so the answer is chunked, and whole across the pieces.
    func testFramesLongerThanAPieceAreSentAPieceAtATimeAndArriveWhole() throws {
        let dir = try Synth.temporaryDirectory("ServerFramesPieces")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let library = dir + "/music", db = dir + "/spindle.db", config = dir + "/spindle.toml"
        try FileManager.default.createDirectory(atPath: library + "/A", withIntermediateDirectories: true)
        // 120 frames of 256 bands a second: 40 s are 1.2 MB of frames, two pieces.
        try Synth.write(Synth.noise(seconds: 40, rmsDBFS: -20, channels: 1), to: library + "/A/long.flac", format: .flac16, channels: 1)
        try "[analysis]\nenabled = [\"frames\"]\nframes_fps = 120\nframes_bands = 256\n".write(toFile: config, atomically: true, encoding: .utf8)
        let analyzed = try CLI.run(["--db", db, "--library", library, "--config", config, "analyze", "--quiet"])
        XCTAssertEqual(analyzed.status, 0, analyzed.stderr)
        let stored = try XCTUnwrap(try DatabaseQueue(path: db).read { db in try Data.fetchOne(db, sql: "SELECT data FROM vis_frames") })
        XCTAssertGreaterThan(stored.count, 1 << 20, "one piece of 1 MiB would hold them all")
        let raw = [UInt8](stored), bands = 256, count = stored.count / bands
        try withServer(database: db, library: library) { port in
            let path = "/visualizer/frames?relative_path=A/long.flac"
            let json = try RawHTTPClient.get(port: port, path)
            XCTAssertEqual(json.status, 200, json.text)
            XCTAssertEqual(json.headers["transfer-encoding"], "chunked")
            XCTAssertNil(json.headers["content-length"])
            let frames = try XCTUnwrap(json.json() as? [[Double]], String(json.text.prefix(200)))
            XCTAssertEqual(frames.count, count)
            XCTAssertEqual(json.headers["x-frames-count"], String(count))
            for i in [0, 4095, 4096, 4097, count - 1] {
                for b in [0, 100, 255] { XCTAssertEqual(frames[i][b], Double(raw[i * bands + b]) / 255, accuracy: 1e-4, "frame \(i)") }
            }
            let bytes = try RawHTTPClient.get(port: port, path + "&format=bytes")
            XCTAssertEqual([UInt8](bytes.body), raw)
            // A stretch across the pieces' seam (frame 4096): frames 4080 to 4139.
            let part = try RawHTTPClient.get(port: port, path + "&format=bytes&start=34&seconds=0.5")
            XCTAssertEqual([UInt8](part.body), Array(raw[(4080 * bands)..<(4140 * bands)]))
            XCTAssertEqual(try XCTUnwrap(RawHTTPClient.get(port: port, path + "&start=34&seconds=0.5").json() as? [[Double]]),
                           Array(frames[4080..<4140]))
        }
    }

    func testSimilarAndMixAnswerAsTheCommandsDo() throws {
        let f = try ServerFixture.get()
        try withServer(database: f.db, library: f.library) { port in
            let similar = try object(try RawHTTPClient.get(port: port, "/similar?relative_path=/music/Hiss/Album/01%20Hiss.flac&n=2"))
            XCTAssertEqual(similar["resolved"] as? String, "Hiss/Album/01 Hiss.flac")
            let neighbours = try XCTUnwrap(similar["neighbours"] as? [[String: Any]])
            XCTAssertEqual(neighbours.count, 2)
            XCTAssertEqual(neighbours.first?["path"] as? String, "Hiss/Album/02 Quiet, Hiss.flac", "\(neighbours)")
            let mix = try object(try RawHTTPClient.get(port: port, "/mix?seed=Chords/Album/01%20Organ.flac&n=3"))
            let tracks = try XCTUnwrap(mix["tracks"] as? [[String: Any]])
            XCTAssertEqual(tracks.count, 3)
            XCTAssertEqual(tracks.first?["path"] as? String, "Chords/Album/01 Organ.flac")
            XCTAssertNil(mix["shortfall"], "a full mix needs no word")
            // More than the library holds: a player is told why the mix is short, as `spindle mix` tells a user.
            let short = try object(try RawHTTPClient.get(port: port, "/mix?seed=Chords/Album/01%20Organ.flac&n=50"))
            let held = try XCTUnwrap(short["tracks"] as? [[String: Any]]).count
            XCTAssertLessThan(held, 50)
            XCTAssertTrue((short["shortfall"] as? String ?? "").hasPrefix("mix of \(held) of the 50 tracks asked"), "\(short)")
            let m3u = try RawHTTPClient.get(port: port, "/mix?seed=Chords/Album/01%20Organ.flac&n=2&format=m3u")
            XCTAssertTrue(m3u.text.hasPrefix("#EXTM3U\n"), m3u.text)
            let unknown = try RawHTTPClient.get(port: port, "/similar?relative_path=Nowhere/none.flac")
            XCTAssertEqual(unknown.status, 404)
            XCTAssertNotNil(try object(unknown)["tried"] as? [String])
        }
    }

    /// A `+` of a file name left unencoded (Swift's `URLComponents` does so) reads as a space in the form
    /// encoding; the file is still found by its own path, as is the form-encoded path.
    func testAPlusLeftUnencodedInAFileNameStillFindsTheFile() throws {
        let f = try ServerFixture.get()
        let name = "Chords/Album/02 Plucked + Struck.flac"
        try withServer(database: f.db, library: f.library) { port in
            for target in ["/smart-dj/profile?relative_path=Chords/Album/02%20Plucked%20+%20Struck.flac",
                           "/smart-dj/profile?relative_path=Chords%2FAlbum%2F02+Plucked+%2B+Struck.flac"] {
                let profile = try object(try RawHTTPClient.get(port: port, target))
                XCTAssertEqual(profile["relative_path"] as? String, name, target)
                XCTAssertEqual(profile["resolved_by"] as? Int, 1, target)
            }
            let bulk = try object(try RawHTTPClient.get(
                port: port, "/smart-dj/bulk-profiles?paths=Chords/Album/02%20Plucked%20+%20Struck.flac,01+Organ.flac"))
            XCTAssertEqual(Set(bulk.keys), [name, "01 Organ.flac"])
            XCTAssertEqual((bulk[name] as? [String: Any])?["resolved_by"] as? Int, 1)
            let frames = try RawHTTPClient.get(port: port, "/visualizer/frames?relative_path=Chords/Album/02%20Plucked%20+%20Struck.flac")
            XCTAssertEqual(frames.status, 200, frames.text)
            let similar = try object(try RawHTTPClient.get(port: port, "/similar?relative_path=Chords/Album/02%20Plucked%20+%20Struck.flac&n=1"))
            XCTAssertEqual(similar["resolved"] as? String, name)
            let mix = try object(try RawHTTPClient.get(port: port, "/mix?seed=Chords/Album/02%20Plucked%20+%20Struck.flac&n=2"))
            XCTAssertEqual((mix["tracks"] as? [[String: Any]])?.first?["path"] as? String, name)
        }
    }

    /// The issue's bad inputs: each gets a JSON error with the right status, and the server keeps serving.
    func testBadInputGetsAClearJSONErrorAndTheServerKeepsServing() throws {
        let f = try ServerFixture.get()
        let thousands = (0..<10_000).map { "p\($0).flac" }
        try withServer(database: f.db, library: f.library) { port in
            let cases: [(name: String, method: String, target: [UInt8], body: Data, status: Int)] = [
                ("dot-dot", "GET", Array("/smart-dj/profile?relative_path=../../etc/passwd".utf8), Data(), 400),
                ("encoded traversal", "GET", Array("/smart-dj/profile?relative_path=%2e%2e%2f%2e%2e%2fetc%2fpasswd".utf8), Data(), 400),
                ("absolute outside the root", "GET", Array("/smart-dj/profile?relative_path=/etc/passwd".utf8), Data(), 404),
                ("symlink out of the root", "GET", Array("/smart-dj/profile?relative_path=Escape.flac".utf8), Data(), 400),
                ("frames through a symlink out", "GET", Array("/visualizer/frames?relative_path=Escape.flac".utf8), Data(), 400),
                ("NUL", "GET", Array("/smart-dj/profile?relative_path=Beats%00x.flac".utf8), Data(), 400),
                ("invalid UTF-8", "GET", Array("/smart-dj/profile?relative_path=%ff%fe.flac".utf8), Data(), 400),
                ("broken percent-encoding", "GET", Array("/smart-dj/profile?relative_path=%zz".utf8), Data(), 400),
                ("missing parameter", "GET", Array("/smart-dj/profile".utf8), Data(), 400),
                ("n out of range", "GET", Array("/similar?relative_path=x.flac&n=100000".utf8), Data(), 400),
                ("10,000 paths in one GET", "GET", Array(("/smart-dj/bulk-profiles?paths=" + thousands.joined(separator: ",")).utf8), Data(), 414),
                ("10,000 paths in one POST", "POST", Array("/smart-dj/bulk-profiles".utf8),
                 try JSONSerialization.data(withJSONObject: thousands), 413),
                ("a 2 MB body", "POST", Array("/smart-dj/bulk-profiles".utf8), Data(repeating: 0x61, count: 2 << 20), 413),
                ("a body that is not JSON", "POST", Array("/smart-dj/bulk-profiles".utf8), Data("a,b".utf8), 400),
                ("no such route", "GET", Array("/smart-dj/nothing".utf8), Data(), 404),
            ]
            for c in cases {
                let response = try RawHTTPClient.request(port: port, method: c.method, target: c.target, body: c.body)
                XCTAssertEqual(response.status, c.status, "\(c.name): \(response.text.prefix(300))")
                let error = try object(response)
                XCTAssertEqual(error["status"] as? Int, c.status, c.name)
                XCTAssertFalse((error["error"] as? String ?? "").isEmpty, c.name)
                XCTAssertFalse(response.text.contains("/etc/passwd:") || response.text.contains("root:"), c.name)
            }
            // Raw bytes that are not valid HTTP are refused by the HTTP parser before any route: a bare 400
            // and a closed connection, and the server goes on.
            let raw = try RawHTTPClient.request(port: port, target: Array("/smart-dj/profile?relative_path=".utf8) + [0xff, 0xfe, 0x00])
            XCTAssertEqual(raw.status, 400)
            // So is a head longer than the parser holds (ServeOptions.maxHeadBytes): a 1 MB query string.
            let long = try RawHTTPClient.get(port: port, "/smart-dj/profile?relative_path=" + String(repeating: "a", count: 1 << 20))
            XCTAssertEqual(long.status, 400)
            XCTAssertEqual(try RawHTTPClient.get(port: port, "/health").status, 200, "still serving")
        }
    }

    // Attack review, low 14: HEAD /health was 404, and another method on a GET route 404 too.
    func testHeadIsAnsweredAsGetAndOtherMethodsAre405() throws {
        let f = try ServerFixture.get()
        try withServer(database: f.db, library: f.library) { port in
            let head = try RawHTTPClient.request(port: port, method: "HEAD", target: Array("/health".utf8))
            XCTAssertEqual(head.status, 200)
            XCTAssertTrue(head.body.isEmpty)
            XCTAssertEqual(head.headers["content-type"], "application/json; charset=utf-8")
            let delete = try RawHTTPClient.request(port: port, method: "DELETE", target: Array("/health".utf8))
            XCTAssertEqual(delete.status, 405, delete.text)
            XCTAssertEqual(delete.headers["allow"], "GET, HEAD")
            XCTAssertEqual((try object(delete))["status"] as? Int, 405)
            let put = try RawHTTPClient.request(port: port, method: "PUT", target: Array("/smart-dj/bulk-profiles".utf8))
            XCTAssertEqual(put.headers["allow"], "GET, HEAD, POST")
            XCTAssertEqual(try RawHTTPClient.request(port: port, method: "DELETE", target: Array("/nothing".utf8)).status, 404)
        }
    }

    func testATokenGuardsEveryRouteButHealth() throws {
        let f = try ServerFixture.get()
        try withServer(database: f.db, library: f.library, token: "s3cret-token") { port in
            let target = "/smart-dj/profile?relative_path=Beats/Album/01%20Clicks.flac"
            XCTAssertEqual(try RawHTTPClient.get(port: port, "/health").status, 200)
            let none = try RawHTTPClient.get(port: port, target)
            XCTAssertEqual(none.status, 401)
            XCTAssertEqual(none.headers["www-authenticate"], "Bearer")
            XCTAssertEqual(try object(none)["status"] as? Int, 401)
            XCTAssertEqual(try RawHTTPClient.get(port: port, target, headers: ["Authorization": "Bearer wrong-token!"]).status, 401)
            XCTAssertEqual(try RawHTTPClient.get(port: port, target, headers: ["Authorization": "Basic czNjcmV0"]).status, 401)
            XCTAssertEqual(try RawHTTPClient.get(port: port, "/metrics").status, 401)
            XCTAssertEqual(try RawHTTPClient.get(port: port, target, headers: ["Authorization": "Bearer s3cret-token"]).status, 200)
        }
    }

    func testAMissingOrLockedDatabaseIs503AndServingResumesWhenItIsReadable() throws {
        let f = try ServerFixture.get()
        let dir = try Synth.temporaryDirectory("ServerTestsMissing")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let db = dir + "/late.db"
        try withServer(database: db, library: f.library) { port in
            let health = try RawHTTPClient.get(port: port, "/health")
            XCTAssertEqual(health.status, 503)
            XCTAssertEqual(try object(health)["status"] as? String, "unavailable")
            let profile = try RawHTTPClient.get(port: port, "/smart-dj/profile?relative_path=x.flac")
            XCTAssertEqual(profile.status, 503)
            XCTAssertEqual(profile.headers["retry-after"], "5")
            XCTAssertTrue((try object(profile)["error"] as? String ?? "").contains("no database"), profile.text)

            // The nightly run's database appears, but another process holds it with an exclusive lock.
            try DatabaseQueue(path: f.db).backup(to: DatabaseQueue(path: db))
            var configuration = Configuration()
            configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA locking_mode = EXCLUSIVE") }
            let locker = try DatabaseQueue(path: db, configuration: configuration)
            try locker.inDatabase { db in try db.execute(sql: "UPDATE runs SET summary = summary") }
            var locked = try RawHTTPClient.get(port: port, "/smart-dj/profile?relative_path=01%20Hiss.flac")
            for _ in 0..<20 where !locked.text.contains("locked") {
                usleep(250_000) // the missing file's answer is kept for a second before the next try
                locked = try RawHTTPClient.get(port: port, "/smart-dj/profile?relative_path=01%20Hiss.flac")
            }
            XCTAssertEqual(locked.status, 503, locked.text)
            XCTAssertTrue((try object(locked)["error"] as? String ?? "").contains("locked"), locked.text)

            // The lock goes: served without a restart.
            try locker.close()
            var status = 0
            for _ in 0..<40 where status != 200 {
                status = try RawHTTPClient.get(port: port, "/smart-dj/profile?relative_path=01%20Hiss.flac").status
                if status != 200 { usleep(250_000) }
            }
            XCTAssertEqual(status, 200)
        }
    }

    func testMetricsCountRequestsByRouteAndStatusAndReportTheLibrary() throws {
        let f = try ServerFixture.get()
        try withServer(database: f.db, library: f.library) { port in
            for _ in 0..<3 { _ = try RawHTTPClient.get(port: port, "/smart-dj/profile?relative_path=01%20Hiss.flac") }
            _ = try RawHTTPClient.get(port: port, "/smart-dj/profile?relative_path=none.flac")
            let metrics = try RawHTTPClient.get(port: port, "/metrics")
            XCTAssertEqual(metrics.status, 200)
            XCTAssertTrue(metrics.headers["content-type"]?.hasPrefix("text/plain; version=0.0.4") ?? false)
            let lines = Set(metrics.text.split(separator: "\n").map(String.init))
            XCTAssertTrue(lines.contains(#"spindle_http_requests_total{route="/smart-dj/profile",status="200"} 3"#), metrics.text)
            XCTAssertTrue(lines.contains(#"spindle_http_requests_total{route="/smart-dj/profile",status="404"} 1"#), metrics.text)
            XCTAssertTrue(lines.contains(#"spindle_http_request_duration_seconds_count{route="/smart-dj/profile"} 4"#), metrics.text)
            XCTAssertTrue(lines.contains("spindle_tracks_analysed 5.0"), metrics.text)
            XCTAssertTrue(lines.contains("spindle_database_up 1.0"), metrics.text)
            XCTAssertTrue(lines.contains { $0.hasPrefix("spindle_last_run_end_timestamp_seconds 1") }, metrics.text)
            let size = lines.first { $0.hasPrefix("spindle_database_size_bytes ") }.flatMap { Double($0.split(separator: " ")[1]) }
            XCTAssertGreaterThan(size ?? 0, 10_000)
        }
    }

    /// A run killed mid-way (`kill -9`, the OOM killer, a reboot) stays "running" in the database until the
    /// next run closes it: `/health` said "running" all day. It now says "interrupted" while no process
    /// holds the run lock, and "running" while one does.
    func testHealthCallsARunWhoseProcessDiedInterrupted() throws {
        let f = try ServerFixture.get()
        let dir = try Synth.temporaryDirectory("ServerTestsDeadRun")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let db = try walCopy(of: f.db, in: dir)
        try DatabaseQueue(path: db).write { db in
            try db.execute(sql: """
                INSERT INTO runs (kind, status, pid, started_at, files_total, files_done) VALUES ('nightly', 'running', 999999, ?, 10, 4)
                """, arguments: [Date().addingTimeInterval(-600)])
        }
        try withServer(database: db, library: f.library) { port in
            func lastRun() throws -> [String: Any] {
                try XCTUnwrap(try object(try RawHTTPClient.get(port: port, "/health"))["last_run"] as? [String: Any])
            }
            XCTAssertEqual(try lastRun()["kind"] as? String, "nightly")
            XCTAssertEqual(try lastRun()["status"] as? String, "interrupted")
            // A run holds the lock: the same row is a run under way.
            let fd = open(db + ".lock", O_RDWR | O_CREAT, 0o600)
            defer { close(fd) }
            XCTAssertEqual(flock(fd, LOCK_EX | LOCK_NB), 0)
            XCTAssertEqual(try lastRun()["status"] as? String, "running")
        }
    }

    /// A copy of the database `source` as spindle.db in `dir`, as the nightly run leaves it: in WAL mode, the
    /// -wal and -shm files gone with the last connection.
    private func walCopy(of source: String, in dir: String) throws -> String {
        let db = dir + "/spindle.db"
        let copy = try DatabaseQueue(path: db)
        try DatabaseQueue(path: source).backup(to: copy)
        try copy.writeWithoutTransaction { try $0.execute(sql: "PRAGMA journal_mode = WAL") }
        return db
    }

    /// A server run as nobody on a database owned by user 1 that it may read but not write, in the owner's
    /// folder, which it may (777) or may not (755) write, with and without the owner's -wal and -shm beside it.
    /// Without them (a database copied, or last written by an older Spindle): in the folder it could write, the
    /// server made them as its own and the owner's next run failed on them ("-wal belongs to nobody"); in the
    /// other, every request got 503 until a nightly run held the database open. The owner's files could not
    /// prevent it: SQLite deleted them with the owner's last connection (Spindle's writers now keep them). Now
    /// the server reads a snapshot or through the owner's files, makes nothing, and sees the owner's runs.
    func testAServerAsAnotherUserMakesNothingBesideTheDatabaseAndSeesTheOwnersRuns() throws {
        let f = try ServerFixture.get()
        guard getuid() == 0, try CLI.runUnprivileged(["--version"])?.status == 0 else {
            throw XCTSkip("needs root, to run the server and the owner as two other users")
        }
        for folderMode in [0o777, 0o755] {
            for ownersSideFiles in [false, true] {
                let label = "folder \(String(folderMode, radix: 8)), owner's side files \(ownersSideFiles)"
                let dir = try Synth.temporaryDirectory("ServerTestsAnotherUser")
                defer { try? FileManager.default.removeItem(atPath: dir) }
                let db = try walCopy(of: f.db, in: dir)
                try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: dir)
                try FileManager.default.setAttributes([.posixPermissions: 0o644, .ownerAccountID: 1], ofItemAtPath: db)
                if ownersSideFiles {
                    let owners = try XCTUnwrap(CLI.runUnprivileged(["--db", db, "status"], user: 1))
                    XCTAssertEqual(owners.status, 0, owners.stderr)
                }
                // The owner's folder.
                try FileManager.default.setAttributes([.posixPermissions: folderMode, .ownerAccountID: 1], ofItemAtPath: dir)
                for side in [db + "-wal", db + "-shm"] {
                    let owner = ((try? FileManager.default.attributesOfItem(atPath: side))?[.ownerAccountID] as? NSNumber)?.intValue
                    XCTAssertEqual(owner, ownersSideFiles ? 1 : nil, "\(side), \(label)")
                }
                let before = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
                var serve = try ServeProcess(["--db", db, "--library", f.library, "serve", "--listen", "127.0.0.1:0"], asNobody: true)
                let process = serve.process
                defer { if process.isRunning { process.terminate() } }
                let port = try XCTUnwrap(serve.port, serve.announced)
                let first = try RawHTTPClient.get(port: port, "/health")
                XCTAssertEqual(first.status, 200, "\(label): \(first.text)")
                XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir).sorted(), before, "nothing made: \(label)")
                // The owner writes while the server reads, and the server's next answer has it.
                let scan = try XCTUnwrap(CLI.runUnprivileged(["--db", db, "--library", f.library, "scan"], user: 1))
                XCTAssertEqual(scan.status, 0, "\(label): \(scan.stderr)")
                let health = try object(try RawHTTPClient.get(port: port, "/health"))
                XCTAssertEqual((health["last_run"] as? [String: Any])?["kind"] as? String, "scan", "the owner's run: \(label)")
                let announced = serve.stop()
                XCTAssertFalse(announced.contains("warning"), "\(label): \(announced)")
                let again = try XCTUnwrap(CLI.runUnprivileged(["--db", db, "--library", f.library, "scan"], user: 1))
                XCTAssertEqual(again.status, 0, "\(label): \(again.stderr)")
            }
        }
    }

    /// A writer that deletes its -wal when it closes (an older Spindle, any SQLite program) can come and go
    /// between two requests to a server reading a snapshot: no -wal is left to say so, but the file changed,
    /// and the server opens it again instead of reading the new file with the old one's pages cached.
    func testAServerReadingASnapshotSeesAWriterThatCameAndWent() throws {
        let f = try ServerFixture.get()
        guard getuid() == 0, try CLI.runUnprivileged(["--version"])?.status == 0 else {
            throw XCTSkip("needs root, to run the server as a user who may not write the database")
        }
        let dir = try Synth.temporaryDirectory("ServerTestsSnapshot")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let db = try walCopy(of: f.db, in: dir)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: db)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: dir)
        var serve = try ServeProcess(["--db", db, "--library", f.library, "serve", "--listen", "127.0.0.1:0"], asNobody: true)
        let process = serve.process
        defer { if process.isRunning { process.terminate() } }
        let port = try XCTUnwrap(serve.port, serve.announced)
        func lastRunKind() throws -> String? {
            (try object(try RawHTTPClient.get(port: port, "/health"))["last_run"] as? [String: Any])?["kind"] as? String
        }
        let before = try lastRunKind()
        XCTAssertNotNil(before)
        do {
            let writer = try DatabaseQueue(path: db)
            try writer.write { try $0.execute(sql: "UPDATE runs SET kind = 'tagfix' WHERE id = (SELECT max(id) FROM runs)") }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: db + "-wal"), "the writer left no -wal")
        XCTAssertEqual(try lastRunKind(), "tagfix")
        _ = serve.stop()
    }

    /// Side files beside the database that are not its owner's (left by a server that made its own): the owner
    /// cannot write through them. The server says so at start, and how to mend it.
    func testServeWarnsOfSideFilesThatAreNotTheDatabaseOwners() throws {
        let f = try ServerFixture.get()
        let dir = try Synth.temporaryDirectory("ServerTestsSharing")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let db = try walCopy(of: f.db, in: dir)
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: dir)
        try FileManager.default.setAttributes([.posixPermissions: 0o644, .ownerAccountID: 1], ofItemAtPath: db)
        guard getuid() == 0, try CLI.runUnprivileged(["--version"])?.status == 0 else {
            throw XCTSkip("needs root, to run the server as a user who may not write the database")
        }
        for side in [db + "-wal", db + "-shm"] {
            XCTAssertTrue(FileManager.default.createFile(atPath: side, contents: side.hasSuffix("shm") ? Data(count: 32768) : Data(),
                                                         attributes: [.posixPermissions: 0o644, .ownerAccountID: 65534]))
        }
        var serve = try ServeProcess(["--db", db, "--library", f.library, "serve", "--listen", "127.0.0.1:0"], asNobody: true)
        let process = serve.process
        defer { if process.isRunning { process.terminate() } }
        let port = try XCTUnwrap(serve.port, serve.announced)
        XCTAssertEqual(try RawHTTPClient.get(port: port, "/health").status, 200, "it serves")
        let announced = serve.stop()
        XCTAssertTrue(announced.contains("warning: this user may read but not write \(db), and the -wal and -shm files beside it are not all its owner's")
                      && announced.contains("run `spindle status` once as the database's owner"), announced)
    }

    /// The command itself: an ephemeral port announced on standard error, and a clean stop on SIGTERM.
    func testServeCommandAnnouncesItsPortAndStopsOnSIGTERM() throws {
        let f = try ServerFixture.get()
        let serve = try ServeProcess(["--db", f.db, "--library", f.library, "serve", "--listen", "127.0.0.1:0"])
        let process = serve.process
        defer { if process.isRunning { process.terminate() } }
        let announced = serve.announced
        let port = try XCTUnwrap(serve.port, announced)
        XCTAssertTrue(announced.contains("http://127.0.0.1:"), announced)
        let health = try object(try RawHTTPClient.get(port: port, "/health"))
        XCTAssertEqual(health["status"] as? String, "ok")
        XCTAssertEqual(health["profiles"] as? Int, 5)
        process.terminate()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
    }
}

extension ServerTests {
    /// Listening beyond loopback without a token serves every path of the library to the network: said, once.
    /// With a token, or on loopback, nothing is said.
    func testServingTheNetworkWithoutATokenIsWarnedOf() throws {
        let f = try ServerFixture.get()
        let tokenFile = f.dir + "/token"
        try "s3cret\n".write(toFile: tokenFile, atomically: true, encoding: .utf8)
        chmod(tokenFile, 0o600)
        for (listen, token, warned) in [("0.0.0.0:0", false, true), ("0.0.0.0:0", true, false), ("127.0.0.1:0", false, false)] {
            var serve = try ServeProcess(["--db", f.db, "--library", f.library, "serve", "--listen", listen]
                                         + (token ? ["--token-file", tokenFile] : []))
            XCTAssertTrue(serve.announced.contains("serving "), serve.announced)
            Thread.sleep(forTimeInterval: 0.2)
            let said = serve.stop()
            XCTAssertEqual(said.contains("without --token-file: anyone who can reach this port reads every path"), warned, "\(listen) \(token): \(said)")
        }
    }

    // Attack review, low 10: --quiet silenced the warning too.
    func testServingTheNetworkWithoutATokenIsWarnedOfEvenWhenQuiet() throws {
        let f = try ServerFixture.get()
        var serve = try ServeProcess(["--db", f.db, "--library", f.library, "serve", "--listen", "0.0.0.0:0", "--quiet"])
        let said = serve.stop()
        XCTAssertTrue(said.contains("without --token-file: anyone who can reach this port reads every path"), said)
        XCTAssertFalse(said.contains("serving "), said)
    }

    // Attack review, low 9: a token file saved with CRLF gave the token "s3cret\r\n" (Swift takes "\r\n" as one
    // character), and every client was refused.
    func testATokenFileSavedWithCRLFGivesTheTokenWithoutItsLineEnd() throws {
        let f = try ServerFixture.get()
        let tokenFile = f.dir + "/token-crlf"
        try "s3cret\r\n".write(toFile: tokenFile, atomically: true, encoding: .utf8)
        chmod(tokenFile, 0o600)
        var serve = try ServeProcess(["--db", f.db, "--library", f.library, "serve", "--listen", "127.0.0.1:0",
                                      "--token-file", tokenFile])
        let port = serve.port
        let target = "/smart-dj/profile?relative_path=Beats/Album/01%20Clicks.flac"
        let status = port.flatMap { try? RawHTTPClient.get(port: $0, target, headers: ["Authorization": "Bearer s3cret"]).status }
        let said = serve.stop()
        XCTAssertEqual(status, 200, said)
    }
}

/// `spindle serve` run as a command (as nobody when asked), up to the line announcing its port.
private struct ServeProcess {
    let process = Process()
    let standardError = Pipe()
    /// Standard error up to the first line break.
    private(set) var announced = ""

    init(_ arguments: [String], asNobody: Bool = false) throws {
        if asNobody {
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments = ["-c", #"exec setpriv --reuid=65534 --regid=65534 --clear-groups "$0" "$@""#,
                                 CLI.executable] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: CLI.executable)
            process.arguments = arguments
        }
        process.standardError = standardError
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        while !announced.contains("\n") {
            let chunk = standardError.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            announced += String(decoding: chunk, as: UTF8.self)
        }
    }

    /// Stops the server; everything it wrote to standard error.
    mutating func stop() -> String {
        process.terminate()
        process.waitUntilExit()
        announced += String(decoding: standardError.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return announced
    }

    /// The port of "spindle: serving DB on http://HOST:PORT", with or without " (bearer token required)" after it.
    var port: Int? {
        announced.split(separator: "\n").first?.split(separator: ":").last
            .flatMap { Int($0.prefix { $0.isNumber }) }
    }
}
