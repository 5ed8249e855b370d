import Pipeline
import Similarity
import Store

/// The media servers' ids, as the AudioMuse routes take and give them: a track id is looked up in Navidrome's
/// map and then in Jellyfin's, and the answer names tracks in the ids of the server that was asked.
struct MediaServerIds: Sendable {
    let library: ServedLibrary

    /// The server whose id `id` is and the library file it names; a 404 naming the id otherwise.
    func track(_ id: String, open: ServedLibrary.Open) throws -> (server: MediaServer, path: String) {
        let found = try library.read(in: open) { open, db -> (MediaServer, String)? in
            for server in MediaServer.allCases {
                let key = server == .jellyfin ? MediaServer.jellyfinForm(id) : id
                if let path = try MediaServerQueries.path(db, rootId: open.rootId, server: server, id: key) { return (server, path) }
            }
            return nil
        }
        guard let found else {
            throw APIError(.notFound, "no track of this library has the id \(id) in Navidrome's or Jellyfin's map "
                           + "(run `spindle navidrome import` or `spindle jellyfin import`)", [("item_id", .string(id))])
        }
        return found
    }

    /// The row of the track `id` names; a 404 when it has no sound profile yet.
    func row(_ id: String, open: ServedLibrary.Open, space: SonicSpace) throws -> (server: MediaServer, row: Int) {
        let (server, path) = try track(id, open: open)
        guard let row = space.index(of: path) else {
            throw APIError(.notFound, "\(path) has no sound profile yet: run `spindle analyze`", [("item_id", .string(id))])
        }
        return (server, row)
    }

    /// The server answers name tracks by when the request named none: the one with more tracks mapped.
    func busiestServer(open: ServedLibrary.Open) throws -> MediaServer {
        try library.read(in: open) { open, db in
            try MediaServer.allCases.max {
                try MediaServerQueries.mappedCount(db, rootId: open.rootId, server: $0)
                    < MediaServerQueries.mappedCount(db, rootId: open.rootId, server: $1)
            } ?? .navidrome
        }
    }

    /// The server's id for each row's track, by path (tracks it has none for are absent).
    func ids(_ rows: [Int], server: MediaServer, open: ServedLibrary.Open, space: SonicSpace) throws -> [String: String] {
        try library.read(in: open) { open, db in
            try MediaServerQueries.ids(db, rootId: open.rootId, server: server, paths: rows.map { space.tracks[$0].path })
        }
    }

    /// The rows as the plugins read tracks (`item_id`, `title`, `author`, `album`, `distance`), those the server
    /// has no id for left out.
    func tracks(_ rows: [(row: Int, distance: Double)], server: MediaServer, open: ServedLibrary.Open,
                space: SonicSpace) throws -> [JSONValue] {
        let ids = try ids(rows.map(\.row), server: server, open: open, space: space)
        return rows.compactMap { row, distance in
            let t = space.tracks[row]
            return ids[t.path].map { id in
                .object([("item_id", .string(id)), ("title", .string(t.title ?? "")), ("author", .string(t.artist ?? "")),
                         ("album", .string(t.album ?? "")), ("distance", .from(distance, digits: 4))])
            }
        }
    }
}
