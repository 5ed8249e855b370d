import Dispatch
import Pipeline
import Similarity
import Store

/// The library's sonic space, held in memory for `/similar` and `/mix`: loading it reads every feature
/// vector (a second or two at 100,000 tracks), so it is loaded on first use and again only after a run has
/// ended since (the generation: the newest finished run) or the database file was replaced. Requests that
/// arrive during a load wait for that load instead of starting their own.
actor SonicCache {
    private struct Key: Equatable {
        var generation: Int64
        var inode: UInt64
    }

    private var key: Key?
    private var loading: Task<SonicSpace?, any Error>?

    /// The library's current database and its space (nil when fewer than two tracks have a feature vector); a
    /// failure to read it is the client's 503.
    func current(_ library: ServedLibrary) async throws -> (ServedLibrary.Open, SonicSpace?) {
        let open = try await Blocking.run { try library.current() }
        do { return (open, try await space(for: open)) } catch let error as APIError { throw error } catch {
            throw APIError.unavailable(ServedLibrary.describe(error))
        }
    }

    /// The space for the library as it is now; nil when fewer than two tracks have a feature vector.
    func space(for open: ServedLibrary.Open) async throws -> SonicSpace? {
        let now = Key(generation: try await open.database.writer.read { db in try ServeQueries.generation(db) },
                      inode: open.stamp.inode)
        if now == key, let loading { return try await loading.value }
        let task = Task { try await Self.load(open) }
        key = now
        loading = task
        do {
            return try await task.value
        } catch {
            if key == now { key = nil; loading = nil }
            throw error
        }
    }

    /// Reads the space on a dispatch thread: a long synchronous read would stall the cooperative pool
    /// that every other request runs on.
    private static func load(_ open: ServedLibrary.Open) async throws -> SonicSpace? {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<SonicSpace?, any Error>) in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try SonicLibrary.load(open.database, rootId: open.rootId).space() })
            }
        }
    }
}
