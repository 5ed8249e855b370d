import Foundation
import GRDB
@testable import Jellyfin
import Navidrome
import Store
import TestSupport
import XCTest

/// `jellyfin import` against Jellyfin's documented `/Items` answer (BaseItemDto: Id as 32 hex digits, Path as the
/// server sees it, ArtistItems and AlbumArtists as {Name, Id}), served a page at a time.
extension NavidromeTests {
    static func jellyfinId(_ n: Int) -> String { String(format: "%08x0000400080000000%012x", n, n * 7) }

    func jellyfinPages(_ tracks: [(path: String, artist: String, album: String, title: String, ext: String)],
                       pageSize: Int) -> [(status: Int, body: String)] {
        let artists = Array(Set(tracks.map(\.artist))).sorted()
        let items = tracks.enumerated().map { i, t -> [String: Any] in
            let artist: [String: Any] = ["Name": t.artist, "Id": Self.jellyfinId(10_000 + artists.firstIndex(of: t.artist)!)]
            return ["Name": t.title, "ServerId": "f00d", "Id": Self.jellyfinId(i), "Type": "Audio", "IsFolder": false,
                    "Path": "/media/music/" + t.path, "Container": t.ext, "Album": t.album, "AlbumArtist": t.artist,
                    "Artists": [t.artist], "ArtistItems": [artist], "AlbumArtists": [artist], "MediaType": "Audio"]
        }
        return stride(from: 0, to: items.count, by: pageSize).map { start in
            let page: [String: Any] = ["Items": Array(items[start..<min(items.count, start + pageSize)]),
                                       "TotalRecordCount": items.count, "StartIndex": start]
            return (200, String(decoding: try! JSONSerialization.data(withJSONObject: page), as: UTF8.self))
        }
    }

    func testJellyfinImportMapsItemsSeenUnderAContainersRootAndTheirArtists() throws {
        let tracks = try makeLibrary()
        let server = try StubHTTPServer(responses: jellyfinPages(tracks, pageSize: 50))
        var client = JellyfinClient(baseURL: URL(string: "http://127.0.0.1:\(server.port)")!, apiKey: "k3y")
        client.pageSize = 50
        let items = try client.audioItems()
        XCTAssertEqual(items.count, 120)
        XCTAssertEqual(server.requests.count, 3, "three pages of 50")
        XCTAssertTrue(server.requests[1].contains("StartIndex=50"), server.requests[1])
        XCTAssertTrue(server.requests.allSatisfy { $0.contains("IncludeItemTypes=Audio") && $0.contains("Recursive=true") && !$0.contains("k3y") })
        XCTAssertTrue(server.heads.allSatisfy { $0.contains("Authorization: MediaBrowser Client=\"Spindle\", Token=\"k3y\"") }, server.heads[0])

        let report = try JellyfinImport.run(items: items, database: database, root: root)
        XCTAssertEqual(report.total, 120)
        XCTAssertEqual(report.mapped, 120)
        XCTAssertEqual(report.artists, 12)
        let rows = try database.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT t.jellyfin_id, f.path FROM jellyfin_tracks t JOIN files f ON f.id = t.file_id")
        }
        let byId = Dictionary(uniqueKeysWithValues: rows.map { ($0[0] as String, $0[1] as String) })
        XCTAssertEqual(byId[Self.jellyfinId(7)], tracks[7].path, "/media/music/... maps by its path under the root")
        let credits = try database.writer.read { db in try MediaServerQueries.artistCredits(db, rootId: 1, server: .jellyfin) }
        XCTAssertEqual(Set(credits.map(\.path)).count, 120)
        XCTAssertEqual(Set(credits.map(\.artistName)), Set(tracks.map(\.artist)))
    }

    func testJellyfinImportRefusesAKeyOnTheCommandLineAndNamesARefusedKey() throws {
        _ = try makeLibrary()
        let server = try StubHTTPServer(responses: [(401, "")])
        let base = ["--db", dir + "/spindle.db", "--library", root.path, "jellyfin", "import", "--url", "http://127.0.0.1:\(server.port)"]
        let keyless = try CLI.run(base, environment: ["SPINDLE_JELLYFIN_API_KEY": ""])
        XCTAssertEqual(keyless.status, 2, keyless.stderr)
        XCTAssertTrue(keyless.stderr.contains("--api-key-file"), keyless.stderr)
        let onLine = try CLI.run(base + ["--api-key", "k3y"])
        XCTAssertEqual(onLine.status, 2, "no option takes the key itself: \(onLine.stderr)")
        let refused = try CLI.run(base, environment: ["SPINDLE_JELLYFIN_API_KEY": "wrong"])
        XCTAssertEqual(refused.status, 1, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("refused the API key"), refused.stderr)
    }

    func testNightlyRunsBothImportsAsStagesAndCountsAnUnreachableServerAsAFailure() throws {
        let tracks = try makeLibrary()
        let server = try StubHTTPServer(responses: jellyfinPages(tracks, pageSize: 1000))
        let paths = tracks.enumerated().map { (id: "nd\($0.offset)", path: $0.element.path, artist: $0.element.artist,
                                               album: $0.element.album, title: $0.element.title, ext: $0.element.ext) }
        let navidrome = try navidromeDB("new.db", newSchema: true, paths: paths)
        let pipeline = dir + "/nightly.toml"
        func write(_ url: String) throws {
            try """
                [pipeline]
                stages = ["scan", "navidrome-import", "jellyfin-import"]
                [navidrome]
                db = "\(navidrome)"
                [jellyfin]
                url = "\(url)"
                """.write(toFile: pipeline, atomically: true, encoding: .utf8)
        }
        try write("http://127.0.0.1:\(server.port)")
        let arguments = ["--db", dir + "/spindle.db", "--library", root.path, "run", pipeline]
        let run = try CLI.run(arguments, environment: ["SPINDLE_JELLYFIN_API_KEY": "k3y"])
        XCTAssertEqual(run.status, 0, run.stdout + run.stderr)
        XCTAssertTrue((run.stdout + run.stderr).contains("navidrome: 120 of 120 tracks mapped"), run.stdout + run.stderr)
        XCTAssertTrue((run.stdout + run.stderr).contains("jellyfin: 120 of 120 tracks mapped"), run.stdout + run.stderr)

        try write("http://127.0.0.1:1")
        let unreachable = try CLI.run(arguments, environment: ["SPINDLE_JELLYFIN_API_KEY": "k3y"])
        XCTAssertEqual(unreachable.status, 3, unreachable.stdout + unreachable.stderr)
        XCTAssertTrue((unreachable.stdout + unreachable.stderr).contains("jellyfin import failed"), unreachable.stdout + unreachable.stderr)
        let kept = try database.writer.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM jellyfin_tracks WHERE file_id IS NOT NULL") }
        XCTAssertEqual(kept, 120, "a failed import keeps the last map")
    }
}

extension NavidromeTests {
    /// Navidrome 0.55 and later credit artists in media_file_artists (role artist or albumartist, and composer and
    /// others, which are not the track's artist), named in artist; the tables as Navidrome's migration makes them.
    func testNavidromeImportReadsArtistIdsFromMediaFileArtists() throws {
        let tracks = try makeLibrary()
        let paths = tracks.enumerated().map { (id: "nd\($0.offset)", path: $0.element.path, artist: $0.element.artist,
                                               album: $0.element.album, title: $0.element.title, ext: $0.element.ext) }
        let navidrome = try navidromeDB("artists.db", newSchema: true, paths: paths)
        try DatabaseQueue(path: navidrome).write { db in
            try db.execute(sql: """
                CREATE TABLE artist (id varchar(255) not null primary key, name varchar(255) not null,
                    order_artist_name varchar(255) collate nocase, sort_artist_name varchar(255), mbz_artist_id varchar(255));
                CREATE TABLE media_file_artists (media_file_id varchar not null references media_file (id) on delete cascade,
                    artist_id varchar not null references artist (id) on delete cascade, role varchar default '' not null,
                    sub_role varchar default '' not null, constraint artist_tracks unique (artist_id, media_file_id, role, sub_role));
                INSERT INTO artist (id, name) VALUES ('composer-id', 'A Composer');
                """)
            for (i, artist) in Array(Set(tracks.map(\.artist))).sorted().enumerated() {
                try db.execute(sql: "INSERT INTO artist (id, name) VALUES (?, ?)", arguments: ["ar\(i)", artist])
                for p in paths where p.artist == artist {
                    for role in ["artist", "albumartist"] {
                        try db.execute(sql: "INSERT INTO media_file_artists (media_file_id, artist_id, role) VALUES (?, ?, ?)",
                                       arguments: [p.id, "ar\(i)", role])
                    }
                    try db.execute(sql: "INSERT INTO media_file_artists (media_file_id, artist_id, role) VALUES (?, 'composer-id', 'composer')",
                                   arguments: [p.id])
                }
            }
        }
        let report = try NavidromeImport.run(navidromeDB: navidrome, database: database, root: root)
        XCTAssertEqual(report.artists, 12, "the composer is not an artist of the track")
        let credits = try database.writer.read { db in try MediaServerQueries.artistCredits(db, rootId: 1, server: .navidrome) }
        XCTAssertEqual(credits.count, 120, "one credit a track, artist and album artist being the same")
        let first = try XCTUnwrap(credits.first { $0.path == tracks[0].path })
        XCTAssertEqual(first.artistName, tracks[0].artist)
        XCTAssertTrue(first.artistId.hasPrefix("ar"))
    }
}
