import Foundation
import NIOCore

/// At most `limit` connections open at once; one more is closed as it opens. Each open connection can hold a
/// request head of up to the parser's limit before any route (or the token check) sees it: without a cap,
/// 1,000 sockets held open with 1.4 MB headers grew the server to 1.63 GB.
final class ConnectionCount: @unchecked Sendable {
    let limit: Int
    private let lock = NSLock()
    private var open = 0

    init(limit: Int) { self.limit = limit }

    /// Takes a place for a new connection; false when all are taken.
    func enter() -> Bool {
        lock.withLock {
            guard open < limit else { return false }
            open += 1
            return true
        }
    }

    func leave() { lock.withLock { open -= 1 } }
}

/// The per-connection side of `ConnectionCount`, in each connection's pipeline.
final class ConnectionLimitHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    private let count: ConnectionCount
    private var admitted = false

    init(_ count: ConnectionCount) { self.count = count }

    func channelActive(context: ChannelHandlerContext) {
        admitted = count.enter()
        guard admitted else {
            context.close(promise: nil)
            return
        }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        if admitted { count.leave() }
        admitted = false
        context.fireChannelInactive()
    }
}
