import Dispatch

/// Blocking work of a request (SQLite reads, the resolver's checks on the disk) runs on Dispatch's threads,
/// not on Swift's cooperative pool, whose threads (one a core) also run every connection's I/O: four clients
/// whose requests each held a pool thread for half a second cut everyone else's `/smart-dj/profile` from
/// 2,075 to 5 requests a second.
enum Blocking {
    private static let queue = DispatchQueue(label: "spindle.serve.blocking", attributes: .concurrent)

    static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try work() }) }
        }
    }
}
