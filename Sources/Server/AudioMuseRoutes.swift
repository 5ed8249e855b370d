import Hummingbird
import Pipeline
import Similarity
import Store

/// The part of AudioMuse-AI's API that its Navidrome plugin (AudioMuse-AI-NV-plugin) calls, so that the Instant
/// Mix and "similar songs" of Navidrome's clients, and its sonic paths, come from Spindle: `/api/similar_tracks`
/// and `/api/find_path`. Tracks are named by Navidrome's ids (`navidrome import` maps them to files); an answer
/// holds only tracks Navidrome has an id for. A track of `{"item_id", "title", "author", "album", "distance"}`.
struct AudioMuseRoutes: Sendable {
    let library: ServedLibrary
    let cache: SonicCache
    let options: ServeOptions

    /// `?item_id=ID&n=N&eliminate_duplicates=true|false`, or `title=&artist=` in place of the id: a JSON array,
    /// nearest first. With `eliminate_duplicates`, other encodings of a recording already listed are left out,
    /// as `mix` leaves them out. `radius_similarity` is accepted and has no other meaning here.
    func similarTracks(_ request: Request, context: some RequestContext) async throws -> Response {
        let query = try QueryString(request.uri.query)
        let count = try query.integer("n", default: 10, in: 1...options.maxTracks)
        let distinct = query["eliminate_duplicates"]?.lowercased() == "true"
        let (open, space) = try await openSpace()
        let tracks = try await Blocking.run {
            let row = try self.row(query, open: open, space: space)
            // Enough candidates that `count` of them have an id, in a library Navidrome only partly knows.
            let wide = min(space.count - 1, 4 * count)
            let near = distinct ? MixPlanner(space: space).neighbourhood(of: row, size: wide) : space.nearest(to: row, count: wide)
            return try tracksWithIds(near.map { ($0.row, $0.distance) }, open: open, space: space).prefix(count)
        }
        return JSONBody.response(.array(Array(tracks)))
    }

    /// `?start_song_id=A&end_song_id=B&count=N` (`max_steps`, `path_fix_size` and `mood_pct` accepted): `{"path":
    /// [...]}`, A first and B last, each track's distance from the one before (`spindle path`).
    func findPath(_ request: Request, context: some RequestContext) async throws -> Response {
        let query = try QueryString(request.uri.query)
        let count = try query.integer("count", default: 25, in: 2...options.maxTracks)
        let (startId, endId) = (try query.required("start_song_id"), try query.required("end_song_id"))
        let (open, space) = try await openSpace()
        let tracks = try await Blocking.run {
            let start = try row(ofId: startId, open: open, space: space), end = try row(ofId: endId, open: open, space: space)
            let steps = SongPath(space: space).plan(from: start, to: end, count: count)
            return try tracksWithIds(steps.map { ($0.row, $0.distance) }, open: open, space: space)
        }
        return JSONBody.response(.object([("path", .array(tracks))]))
    }

    private func openSpace() async throws -> (ServedLibrary.Open, SonicSpace) {
        let (open, space) = try await cache.current(library)
        guard let space else { throw APIError(.notFound, "fewer than two tracks have a sound profile: run `spindle analyze`") }
        return (open, space)
    }

    /// The track the query names: by `item_id`, or by `title` (and `artist`, when given) among the analysed tracks.
    private func row(_ query: QueryString, open: ServedLibrary.Open, space: SonicSpace) throws -> Int {
        if let id = query["item_id"] { return try row(ofId: id, open: open, space: space) }
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
        return row
    }

    private func row(ofId id: String, open: ServedLibrary.Open, space: SonicSpace) throws -> Int {
        let path = try library.read(in: open) { open, db in try NavidromeQueries.path(db, rootId: open.rootId, navidromeId: id) }
        guard let path else {
            throw APIError(.notFound, "no track of this library has Navidrome id \(id) (run `spindle navidrome import`)",
                           [("item_id", .string(id))])
        }
        guard let row = space.index(of: path) else {
            throw APIError(.notFound, "\(path) has no sound profile yet: run `spindle analyze`", [("item_id", .string(id))])
        }
        return row
    }

    /// The rows as the plugin reads tracks, those Navidrome has no id for left out.
    private func tracksWithIds(_ rows: [(row: Int, distance: Double)], open: ServedLibrary.Open,
                               space: SonicSpace) throws -> [JSONValue] {
        let ids = try library.read(in: open) { open, db in
            try NavidromeQueries.navidromeIds(db, rootId: open.rootId, paths: rows.map { space.tracks[$0.row].path })
        }
        return rows.compactMap { row, distance in
            let t = space.tracks[row]
            return ids[t.path].map { id in
                .object([("item_id", .string(id)), ("title", .string(t.title ?? "")), ("author", .string(t.artist ?? "")),
                         ("album", .string(t.album ?? "")), ("distance", .from(distance, digits: 4))])
            }
        }
    }
}
