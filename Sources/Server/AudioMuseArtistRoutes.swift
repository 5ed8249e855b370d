import Hummingbird
import Pipeline
import Similarity
import Store

/// `/api/similar_artists` as AudioMuse-AI answers it to its plugins: the artists that sound nearest one artist,
/// named by the media server's artist ids (`navidrome import` and `jellyfin import` read them), each with the
/// songs through which the two sound alike (`ArtistNeighbours`).
struct AudioMuseArtistRoutes: Sendable {
    let tracks: AudioMuseRoutes
    let cache = ArtistCache()
    static let representativeSongs = 3

    /// `?artist=ID-or-name&n=N&include_component_matches=true|false`, or `artist_id=ID`: `[{"artist",
    /// "artist_id", "distance", "component_matches": [{"artist1_representative_songs": [{"item_id", "title"}],
    /// "artist2_representative_songs": [...]}]}]`, nearest first.
    func similarArtists(_ request: Request, context: some RequestContext) async throws -> Response {
        let query = try QueryString(request.uri.query)
        let count = try query.integer("n", default: 10, in: 1...tracks.options.maxTracks)
        let asked = try query["artist_id"].map { $0 } ?? query.required("artist")
        let matches = query["include_component_matches"]?.lowercased() == "true"
        let (open, space) = try await tracks.openSpace()
        let found = try await Blocking.run { try tracks.library.read(in: open) { _, db in try MediaServerQueries.artists(db, idOrName: asked) } }
        guard let (server, artist) = found.first else {
            throw APIError(.notFound, "no artist of Navidrome's or Jellyfin's map has the id or name \(asked) "
                           + "(run `spindle navidrome import` or `spindle jellyfin import`)", [("artist", .string(asked))])
        }
        let artists = try await cache.artists(server, library: tracks.library, open: open, space: space)
        let answer = try await Blocking.run {
            try self.answer(asked, artist: artist, server: server, count: count, matches: matches, open: open, artists: artists)
        }
        return JSONBody.response(.array(answer))
    }

    private func answer(_ asked: String, artist: String, server: MediaServer, count: Int, matches: Bool, open: ServedLibrary.Open,
                        artists: ArtistCache.Artists) throws -> [JSONValue] {
        let (neighbours, names, space) = (artists.neighbours, artists.names, artists.neighbours.space)
        guard neighbours.rows[artist] != nil else {
            throw APIError(.notFound, "no track of \(names[artist] ?? asked) has a sound profile yet: run `spindle analyze`",
                           [("artist", .string(asked))])
        }
        let near = neighbours.nearest(to: artist, count: count)
        var songs: [Int: String] = [:]
        if matches {
            let all = near.flatMap { other in
                neighbours.representatives(of: artist, towards: other.artist, count: Self.representativeSongs)
                    + neighbours.representatives(of: other.artist, towards: artist, count: Self.representativeSongs)
            }.map(\.row)
            songs = try tracks.ids.ids(all, server: server, open: open, space: space)
                .reduce(into: [:]) { out, pair in if let row = space.index(of: pair.key) { out[row] = pair.value } }
        }
        return near.map { other in
            var fields: [(String, JSONValue)] = [("artist", .string(names[other.artist] ?? "")), ("artist_id", .string(other.artist)),
                                                 ("distance", .from(other.distance, digits: 4))]
            if matches {
                func list(_ of: String, _ towards: String) -> JSONValue {
                    .array(neighbours.representatives(of: of, towards: towards, count: Self.representativeSongs).compactMap { song in
                        songs[song.row].map {
                            .object([("item_id", .string($0)), ("title", .string(space.tracks[song.row].title ?? "")),
                                     ("distance_to_component", .from(song.distance, digits: 4))])
                        }
                    })
                }
                fields.append(("component_matches", .array([.object([
                    ("artist1_representative_songs", list(artist, other.artist)),
                    ("artist2_representative_songs", list(other.artist, artist)), ("distance", .from(other.distance, digits: 4)),
                ])])))
            } else {
                fields.append(("component_matches", .array([])))
            }
            return .object(fields)
        }
    }
}
