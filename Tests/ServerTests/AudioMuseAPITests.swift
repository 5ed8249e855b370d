import Foundation
import GRDB
import Store
import TestSupport
import XCTest

/// The requests AudioMuse-AI-NV-plugin (main.go, audiomuse_api.go) makes, as its Go code builds them:
/// url.Values.Encode() sorts the keys, a bearer token rides in Authorization. Answers are decoded with the
/// field names and types of its audioMuseTrackResponse (item_id, title, author, album: strings; distance: a number).
final class AudioMuseAPITests: XCTestCase {
    var dir = ""
    var db = ""
    /// Navidrome ids by library path, as `navidrome import` would store them; one file is left without.
    var ids: [String: String] = [:]

    override func setUpWithError() throws {
        dir = try Synth.temporaryDirectory("AudioMuseAPITests")
        db = dir + "/spindle.db"
        let fixture = try ServerFixture.get()
        try SpindleDatabase(path: fixture.db).writer.writeWithoutTransaction { d in try d.execute(sql: "VACUUM INTO ?", arguments: [db]) }
        try SpindleDatabase(path: db).writer.write { d in
            let files = try Row.fetchAll(d, sql: "SELECT id, path FROM files WHERE status = 'present' ORDER BY path")
            for row in files where (row["path"] as String) != "Hiss/Album/02 Quiet, Hiss.flac" {
                let id = "nd-\(row["id"] as Int64)"
                ids[row["path"]] = id
                try d.execute(sql: """
                    INSERT INTO navidrome_tracks (navidrome_id, file_id, navidrome_path, strategy, tried, imported_at)
                    VALUES (?, ?, ?, 1, '[]', ?)
                    """, arguments: [id, row["id"] as Int64, row["path"] as String, Date()])
            }
        }
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    struct Track: Decodable {
        var item_id: String
        var title: String
        var author: String
        var album: String
        var distance: Double
    }

    struct Path: Decodable { var path: [Track] }

    func get(_ port: Int, _ target: String, token: String? = "t0ken") throws -> RawHTTPClient.Response {
        try RawHTTPClient.get(port: port, target, headers: token.map { ["Authorization": "Bearer " + $0] } ?? [:])
    }

    func testSimilarTracksAnswersInNavidromesIdsNearestFirst() throws {
        let fixture = try ServerFixture.get()
        let seed = try XCTUnwrap(ids["Chords/Album/01 Organ.flac"])
        try withServer(database: db, library: fixture.library, token: "t0ken") { port in
            let response = try get(port, "/api/similar_tracks?eliminate_duplicates=true&item_id=\(seed)&n=3&radius_similarity=true")
            XCTAssertEqual(response.status, 200, response.text)
            let tracks = try JSONDecoder().decode([Track].self, from: response.body)
            XCTAssertEqual(tracks.count, 3, response.text)
            XCTAssertFalse(tracks.contains { $0.item_id == seed }, "not the seed itself")
            XCTAssertTrue(tracks.allSatisfy { Set(ids.values).contains($0.item_id) }, "only tracks Navidrome has an id for")
            XCTAssertEqual(tracks.map(\.distance), tracks.map(\.distance).sorted())
            let all = try JSONDecoder().decode([Track].self, from: try get(port, "/api/similar_tracks?eliminate_duplicates=false&item_id=\(seed)&n=50&radius_similarity=false").body)
            XCTAssertEqual(all.count, ids.count - 1, "every other track with an id, none without")
        }
    }

    func testFindPathRunsFromStartToEndInNavidromesIds() throws {
        let fixture = try ServerFixture.get()
        let start = try XCTUnwrap(ids["Chords/Album/01 Organ.flac"]), end = try XCTUnwrap(ids["Hiss/Album/01 Hiss.flac"])
        try withServer(database: db, library: fixture.library, token: "t0ken") { port in
            let response = try get(port, "/api/find_path?count=4&end_song_id=\(end)&max_steps=4&mood_pct=100&path_fix_size=false&start_song_id=\(start)")
            XCTAssertEqual(response.status, 200, response.text)
            let path = try JSONDecoder().decode(Path.self, from: response.body).path
            XCTAssertEqual(path.first?.item_id, start)
            XCTAssertEqual(path.last?.item_id, end)
            XCTAssertEqual(Set(path.map(\.item_id)).count, path.count)
        }
    }

    func testBadRequestsGetClearJSONAndTheServerKeepsServing() throws {
        let fixture = try ServerFixture.get()
        let seed = try XCTUnwrap(ids["Chords/Album/01 Organ.flac"])
        try withServer(database: db, library: fixture.library, token: "t0ken") { port in
            for (target, token, status) in [
                ("/api/similar_tracks?item_id=\(seed)&n=3", nil, 401),
                ("/api/similar_tracks?item_id=unknown-id&n=3", "t0ken", 404),
                ("/api/similar_tracks?item_id=\(seed)&n=0", "t0ken", 400),
                ("/api/similar_tracks?item_id=\(seed)&n=1000000000", "t0ken", 400),
                ("/api/similar_tracks?n=3", "t0ken", 400),
                ("/api/similar_tracks?artist=%1B%5B2J&n=3&title=%2e%2e%2fnone", "t0ken", 404),
                ("/api/similar_tracks?n=3&title=%00", "t0ken", 400),
                ("/api/find_path?count=4&end_song_id=nope&start_song_id=\(seed)", "t0ken", 404),
                ("/api/find_path?count=4&start_song_id=\(seed)", "t0ken", 400),
            ] as [(String, String?, Int)] {
                let response = try get(port, target, token: token)
                XCTAssertEqual(response.status, status, "\(target): \(response.text)")
                XCTAssertEqual((response.json() as? [String: Any])?["status"] as? Int, status, target)
            }
            XCTAssertEqual(try get(port, "/health").status, 200, "still serving")
        }
    }
}
