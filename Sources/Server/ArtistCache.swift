import Similarity
import Store

/// Each media server's artists in the sonic space, held between requests: reading every artist credit of a
/// 100,000-track library costs a tenth of a second, the answer from it a few milliseconds. Built again when the
/// space is (a run ended, the database was replaced) or the credits were imported again.
actor ArtistCache {
    struct Artists: Sendable {
        var neighbours: ArtistNeighbours
        var names: [String: String]
    }

    private struct Key: Equatable {
        var server: MediaServer
        var inode: UInt64
        var generation: Int64
        var credits: [Int64]
    }

    private var held: [MediaServer: (key: Key, artists: Task<Artists, any Error>)] = [:]

    func artists(_ server: MediaServer, library: ServedLibrary, open: ServedLibrary.Open, space: SonicSpace) async throws -> Artists {
        let key = try await Blocking.run {
            try library.read(in: open) { open, db in
                Key(server: server, inode: open.stamp.inode, generation: try ServeQueries.generation(db),
                    credits: try MediaServerQueries.artistStamp(db, server: server))
            }
        }
        if let held = held[server], held.key == key { return try await held.artists.value }
        let task = Task { try await Blocking.run { try Self.build(server, library: library, open: open, space: space) } }
        held[server] = (key, task)
        do { return try await task.value } catch {
            if held[server]?.key == key { held[server] = nil }
            throw error
        }
    }

    private static func build(_ server: MediaServer, library: ServedLibrary, open: ServedLibrary.Open, space: SonicSpace) throws -> Artists {
        let credits = try library.read(in: open) { open, db in try MediaServerQueries.artistCredits(db, rootId: open.rootId, server: server) }
        var rows: [String: [Int]] = [:], names: [String: String] = [:]
        for credit in credits {
            names[credit.artistId] = credit.artistName
            if let row = space.index(of: credit.path) { rows[credit.artistId, default: []].append(row) }
        }
        return Artists(neighbours: ArtistNeighbours(space: space, rows: rows), names: names)
    }
}
