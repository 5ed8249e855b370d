import Hummingbird
import Pipeline
import Similarity
import Store

/// The part of AudioMuse-AI's API that its Navidrome and Jellyfin plugins call for tracks, so that the Instant
/// Mix and "similar songs" of those servers' clients, and their sonic paths, come from Spindle. Tracks are named
/// by the media server's own ids (`navidrome import`, `jellyfin import` map them to files); an answer holds only
/// tracks that server has an id for. A track is `{"item_id", "title", "author", "album", "distance"}`.
struct AudioMuseRoutes: Sendable {
    let library: ServedLibrary
    let cache: SonicCache
    let options: ServeOptions
    var ids: MediaServerIds { MediaServerIds(library: library) }

    /// `?item_id=ID&n=N&eliminate_duplicates=true|false`, or `title=&artist=` in place of the id: a JSON array,
    /// nearest first. With `eliminate_duplicates`, other encodings of a recording already listed are left out,
    /// as `mix` leaves them out. `radius_similarity` is accepted and has no other meaning here.
    func similarTracks(_ request: Request, context: some RequestContext) async throws -> Response {
        let query = try QueryString(request.uri.query)
        let count = try query.integer("n", default: 10, in: 1...options.maxTracks)
        let distinct = query["eliminate_duplicates"]?.lowercased() == "true"
        let (open, space) = try await openSpace()
        let tracks = try await Blocking.run {
            let (server, row) = try self.seed(query, open: open, space: space)
            // Enough candidates that `count` of them have an id, in a library the server only partly knows.
            let wide = min(space.count - 1, 4 * count)
            let near = distinct ? MixPlanner(space: space).neighbourhood(of: row, size: wide) : space.nearest(to: row, count: wide)
            return try ids.tracks(near.map { ($0.row, $0.distance) }, server: server, open: open, space: space).prefix(count)
        }
        return JSONBody.response(.array(Array(tracks)))
    }

    /// `?start_song_id=A&end_song_id=B&count=N` (`max_steps`, `path_fix_size` and `mood_pct` accepted): `{"path":
    /// [...]}`, A first and B last, each track's distance from the one before (`spindle path`).
    func findPath(_ request: Request, context: some RequestContext) async throws -> Response {
        let query = try QueryString(request.uri.query)
        let count = try query.integer("count", default: try query.integer("max_steps", default: 25, in: 2...options.maxTracks),
                                      in: 2...options.maxTracks)
        let (startId, endId) = (try query.required("start_song_id"), try query.required("end_song_id"))
        let (open, space) = try await openSpace()
        let tracks = try await Blocking.run {
            let start = try ids.row(startId, open: open, space: space), end = try ids.row(endId, open: open, space: space)
            guard start.server == end.server else {
                throw APIError(.badRequest, "start_song_id is a \(start.server.name) id and end_song_id a \(end.server.name) one")
            }
            let steps = SongPath(space: space).plan(from: start.row, to: end.row, count: count)
            return try ids.tracks(steps.map { ($0.row, $0.distance) }, server: start.server, open: open, space: space)
        }
        return JSONBody.response(.object([("path", .array(tracks))]))
    }

    /// `?item_id=ID`: `{"max_distance", "farthest_item_id"}`, how far the analysed track farthest from this
    /// one lies, the scale the plugins' distances are read against.
    func maxDistance(_ request: Request, context: some RequestContext) async throws -> Response {
        let query = try QueryString(request.uri.query)
        let (open, space) = try await openSpace()
        let answer = try await Blocking.run { () -> JSONValue in
            let (server, row) = try self.seed(query, open: open, space: space)
            let farthest = (0..<space.count).filter { $0 != row }.max { space.distance(row, $0) < space.distance(row, $1) }!
            let id = try ids.ids([farthest], server: server, open: open, space: space)[space.tracks[farthest].path]
            return .object([("max_distance", .from(space.distance(row, farthest), digits: 4)),
                            ("farthest_item_id", id.map(JSONValue.string) ?? .null)])
        }
        return JSONBody.response(answer)
    }

    /// `?title=&artist=`: the analysed tracks whose title and artist hold the words given (any case), up to 50,
    /// as `{"item_id", "title", "author", "album"}` in the ids of the server with more tracks mapped.
    func searchTracks(_ request: Request, context: some RequestContext) async throws -> Response {
        let query = try QueryString(request.uri.query)
        let title = query["title"]?.lowercased() ?? "", artist = query["artist"]?.lowercased() ?? ""
        guard !title.isEmpty || !artist.isEmpty else { throw APIError(.badRequest, "title or artist is required") }
        let (open, space) = try await openSpace()
        let tracks = try await Blocking.run {
            let rows = space.tracks.indices.filter { i in
                (title.isEmpty || (space.tracks[i].title?.lowercased().contains(title) ?? false))
                    && (artist.isEmpty || (space.tracks[i].artist?.lowercased().contains(artist) ?? false))
            }
            let server = try ids.busiestServer(open: open)
            return try ids.tracks(rows.prefix(50).map { ($0, 0) }, server: server, open: open, space: space).map(Self.withoutDistance)
        }
        return JSONBody.response(.array(tracks))
    }

    static func withoutDistance(_ track: JSONValue) -> JSONValue {
        guard case .object(let fields) = track else { return track }
        return .object(fields.filter { $0.0 != "distance" })
    }

    func openSpace() async throws -> (ServedLibrary.Open, SonicSpace) {
        let (open, space) = try await cache.current(library)
        guard let space else { throw APIError(.notFound, "fewer than two tracks have a sound profile: run `spindle analyze`") }
        return (open, space)
    }

    /// The track the query names: by `item_id`, or by `title` (and `artist`, when given) among the analysed
    /// tracks, answered in the ids of the server with more tracks mapped.
    private func seed(_ query: QueryString, open: ServedLibrary.Open, space: SonicSpace) throws -> (server: MediaServer, row: Int) {
        if let id = query["item_id"] { return try ids.row(id, open: open, space: space) }
        guard let title = query["title"]?.lowercased(), !title.isEmpty else {
            throw APIError(.badRequest, "item_id, or title (with artist), is required")
        }
        // A form-encoded query's '+' is a space; a title can hold a '+' of its own, so both are tried.
        let titles = [title, title.replacingOccurrences(of: "+", with: " ")]
        let artists = query["artist"].map { [$0.lowercased(), $0.lowercased().replacingOccurrences(of: "+", with: " ")] }
        guard let row = space.tracks.indices.first(where: { i in
            titles.contains(space.tracks[i].title?.lowercased() ?? "")
                && (artists == nil || artists!.contains(space.tracks[i].artist?.lowercased() ?? ""))
        }) else {
            throw APIError(.notFound, "no analysed track titled \(title)\(query["artist"].map { " by \($0)" } ?? "")")
        }
        return (try ids.busiestServer(open: open), row)
    }
}
