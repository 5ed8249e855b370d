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
    /// Jellyfin's ids by path (32 lowercase hex digits, as `jellyfin import` stores them), every file.
    var jellyfinIds: [String: String] = [:]

    override func setUpWithError() throws {
        dir = try Synth.temporaryDirectory("AudioMuseAPITests")
        db = dir + "/spindle.db"
        let fixture = try ServerFixture.get()
        try SpindleDatabase(path: fixture.db).writer.writeWithoutTransaction { d in try d.execute(sql: "VACUUM INTO ?", arguments: [db]) }
        try SpindleDatabase(path: db).writer.write { d in
            let files = try Row.fetchAll(d, sql: "SELECT id, path FROM files WHERE status = 'present' ORDER BY path")
            for row in files {
                // The artist each server credits: the top folder, by ids of its own.
                let (path, fileId) = (row["path"] as String, row["id"] as Int64)
                let artist = String(path.split(separator: "/")[0])
                let jellyfin = String(format: "%032x", 0xabc000 + fileId)
                jellyfinIds[path] = jellyfin
                try d.execute(sql: """
                    INSERT INTO jellyfin_tracks (jellyfin_id, file_id, jellyfin_path, strategy, tried, imported_at)
                    VALUES (?, ?, ?, 2, '[]', ?)
                    """, arguments: [jellyfin, fileId, "/media/music/" + path, Date()])
                try d.execute(sql: "INSERT INTO media_server_artists VALUES ('jellyfin', ?, ?, ?)",
                              arguments: [jellyfin, Self.jellyfinArtist(artist), artist])
                guard path != "Hiss/Album/02 Quiet, Hiss.flac" else { continue }
                let id = "nd-\(fileId)"
                ids[path] = id
                try d.execute(sql: """
                    INSERT INTO navidrome_tracks (navidrome_id, file_id, navidrome_path, strategy, tried, imported_at)
                    VALUES (?, ?, ?, 1, '[]', ?)
                    """, arguments: [id, fileId, path, Date()])
                try d.execute(sql: "INSERT INTO media_server_artists VALUES ('navidrome', ?, ?, ?)", arguments: [id, "ar-" + artist, artist])
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

    /// audiomuse_api.go's SimilarArtistsResponse, field for field.
    struct SimilarArtist: Decodable {
        struct Song: Decodable { var item_id: String; var title: String }
        struct Match: Decodable { var artist1_representative_songs: [Song]; var artist2_representative_songs: [Song] }
        var artist: String
        var artist_id: String
        var component_matches: [Match]
    }

    static func jellyfinArtist(_ name: String) -> String { String(format: "%032x", 0xa000 + name.utf8.count) }

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

    /// GetSimilarArtists and GetSimilarSongsByArtist: params.Encode() sorts artist, include_component_matches, n.
    func testSimilarArtistsAnswersInNavidromesArtistIdsWithRepresentativeSongs() throws {
        let fixture = try ServerFixture.get()
        try withServer(database: db, library: fixture.library, token: "t0ken") { port in
            let response = try get(port, "/api/similar_artists?artist=ar-Chords&include_component_matches=true&n=10")
            XCTAssertEqual(response.status, 200, response.text)
            let artists = try JSONDecoder().decode([SimilarArtist].self, from: response.body)
            XCTAssertEqual(Set(artists.map(\.artist_id)), ["ar-Beats", "ar-Hiss"], response.text)
            XCTAssertEqual(Set(artists.map(\.artist)), ["Beats", "Hiss"])
            let chords = Set(ids.filter { $0.key.hasPrefix("Chords/") }.values)
            for artist in artists {
                let match = try XCTUnwrap(artist.component_matches.first)
                XCTAssertFalse(match.artist1_representative_songs.isEmpty)
                XCTAssertTrue(match.artist1_representative_songs.allSatisfy { chords.contains($0.item_id) }, response.text)
                let theirs = Set(ids.filter { $0.key.hasPrefix(artist.artist + "/") }.values)
                XCTAssertTrue(match.artist2_representative_songs.allSatisfy { theirs.contains($0.item_id) }, response.text)
            }
            let plain = try get(port, "/api/similar_artists?artist=ar-Chords&include_component_matches=false&n=1")
            let one = try JSONDecoder().decode([SimilarArtist].self, from: plain.body)
            XCTAssertEqual(one.count, 1)
            XCTAssertEqual(one[0].artist_id, artists[0].artist_id, "nearest first")
            XCTAssertEqual(try get(port, "/api/similar_artists?artist=cHoRdS&n=10").status, 200, "a name, any case, for the Jellyfin plugin's artist=")
        }
    }

    /// The Jellyfin plugin (AudioMuseService.cs): n first, then item_id as Guid.ToString("N"); InstantMixController
    /// keeps the item_ids that Guid.TryParse takes. Its health check asks for "/", its connection test /api/active_tasks.
    func testTheJellyfinPluginsRequestsAnswerInJellyfinIds() throws {
        let fixture = try ServerFixture.get()
        let seed = try XCTUnwrap(jellyfinIds["Chords/Album/01 Organ.flac"])
        try withServer(database: db, library: fixture.library, token: "t0ken") { port in
            let response = try get(port, "/api/similar_tracks?n=10&item_id=\(seed)")
            XCTAssertEqual(response.status, 200, response.text)
            let tracks = try JSONDecoder().decode([Track].self, from: response.body)
            XCTAssertEqual(tracks.count, jellyfinIds.count - 1, "every other track, the one Navidrome lacks included")
            XCTAssertTrue(tracks.allSatisfy { UUID(uuidString: Self.dashed($0.item_id)) != nil && Set(jellyfinIds.values).contains($0.item_id) })
            let dashed = try get(port, "/api/similar_tracks?n=10&item_id=\(Self.dashed(seed).uppercased())")
            XCTAssertEqual(dashed.status, 200, "a GUID with dashes, any case: \(dashed.text)")
            let end = try XCTUnwrap(jellyfinIds["Hiss/Album/02 Quiet, Hiss.flac"])
            let path = try JSONDecoder().decode(Path.self, from: try get(port, "/api/find_path?start_song_id=\(seed)&end_song_id=\(end)&max_steps=3").body).path
            XCTAssertEqual(path.map(\.item_id).first, seed)
            XCTAssertEqual(path.map(\.item_id).last, end)
            let artists = try get(port, "/api/similar_artists?n=5&artist_id=\(Self.jellyfinArtist("Chords"))&include_component_matches=true")
            XCTAssertEqual(try JSONDecoder().decode([SimilarArtist].self, from: artists.body).count, 2, artists.text)
            let far = try get(port, "/api/max_distance?item_id=\(seed)").json() as? [String: Any]
            XCTAssertGreaterThan(far?["max_distance"] as? Double ?? 0, 0)
            XCTAssertTrue(Set(jellyfinIds.values).contains(far?["farthest_item_id"] as? String ?? ""), "\(String(describing: far))")
            XCTAssertEqual(try get(port, "/").status, 200)
            let tasks = try get(port, "/api/active_tasks")
            XCTAssertEqual(tasks.status, 200)
            XCTAssertNotNil(tasks.json() as? [String: Any], tasks.text)
            XCTAssertEqual((try get(port, "/api/last_task").json() as? [String: Any])?["status"] as? String, "SUCCESS")
            let config = try get(port, "/api/config").json() as? [String: Any]
            XCTAssertEqual((config?["mapped_tracks"] as? [String: Any])?["jellyfin"] as? Int, jellyfinIds.count)
        }
    }

    func testArtistAndMixedServerRequestsGetClearJSON() throws {
        let fixture = try ServerFixture.get()
        let navidrome = try XCTUnwrap(ids["Chords/Album/01 Organ.flac"]), jellyfin = try XCTUnwrap(jellyfinIds["Hiss/Album/01 Hiss.flac"])
        try withServer(database: db, library: fixture.library, token: "t0ken") { port in
            for (target, status) in [
                ("/api/similar_artists?artist=nobody&n=3", 404), ("/api/similar_artists?n=3", 400),
                ("/api/similar_artists?artist=ar-Chords&n=0", 400), ("/api/similar_artists?artist=ar-Chords&n=1000000000", 400),
                ("/api/find_path?start_song_id=\(navidrome)&end_song_id=\(jellyfin)", 400),
                ("/api/max_distance?item_id=nope", 404), ("/api/search_tracks", 400),
            ] {
                let response = try get(port, target)
                XCTAssertEqual(response.status, status, "\(target): \(response.text)")
                XCTAssertEqual((response.json() as? [String: Any])?["status"] as? Int, status, target)
            }
            XCTAssertEqual(try get(port, "/api/similar_artists?artist=ar-Chords&n=3", token: nil).status, 401)
            XCTAssertEqual(try get(port, "/health").status, 200, "still serving")
        }
    }

    static func dashed(_ hex: String) -> String {
        let c = Array(hex)
        return [c[0..<8], c[8..<12], c[12..<16], c[16..<20], c[20..<32]].map { String($0) }.joined(separator: "-")
    }

    /// The artists are held between requests; an import that changes them is seen at the next request.
    func testSimilarArtistsSeesCreditsImportedWhileServing() throws {
        let fixture = try ServerFixture.get()
        // One server's credits alone, numbered from 1, as a first import leaves them: refilled, the same count.
        try SpindleDatabase(path: db).writer.write { d in
            let credits = try MediaServerArtistRecord.filter(Column("server") == "navidrome").fetchAll(d)
            try MediaServerArtistRecord.deleteAll(d)
            for var credit in credits { try credit.insert(d) }
        }
        try withServer(database: db, library: fixture.library, token: "t0ken") { port in
            let before = try JSONDecoder().decode([SimilarArtist].self, from: try get(port, "/api/similar_artists?artist=ar-Chords&n=10").body)
            XCTAssertTrue(before.contains { $0.artist_id == "ar-Beats" })
            try SpindleDatabase(path: db).writer.write { d in
                let credits = try MediaServerArtistRecord.filter(Column("server") == "navidrome").fetchAll(d).map { credit in
                    var c = credit
                    if c.artistId == "ar-Beats" { c.artistId = "ar-Drums"; c.artistName = "Drums" }
                    return c
                }
                try MediaServerQueries.replaceArtists(d, server: .navidrome, credits)
            }
            let after = try JSONDecoder().decode([SimilarArtist].self, from: try get(port, "/api/similar_artists?artist=ar-Chords&n=10").body)
            XCTAssertEqual(Set(after.map(\.artist_id)), ["ar-Drums", "ar-Hiss"])
        }
    }
}
