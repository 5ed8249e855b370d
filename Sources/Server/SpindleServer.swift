import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import Pipeline
import Store

/// `spindle serve`: the Navidrome companion's read endpoints, answered from Spindle's database through a
/// read-only pool while nightly runs write to it. It never writes.
public struct SpindleServer: Sendable {
    let options: ServeOptions
    let library: ServedLibrary
    let token: String?

    /// `token`: the bearer token every route but `/health` then requires (nil: none).
    public init(settings: Settings, options: ServeOptions, token: String?) {
        self.options = options
        self.library = ServedLibrary(settings: settings)
        self.token = token
    }

    typealias Handler = @Sendable (Request, BasicRequestContext) async throws -> Response

    func router() -> Router<BasicRequestContext> {
        let metrics = ServerMetrics()
        let status = StatusRoutes(library: library, metrics: metrics)
        let profiles = ProfileRoutes(library: library, options: options)
        let frames = FramesRoute(library: library)
        let cache = SonicCache()
        let sonic = SonicRoutes(library: library, cache: cache, options: options)
        let audioMuse = AudioMuseRoutes(library: library, cache: cache, options: options)
        let artists = AudioMuseArtistRoutes(tracks: audioMuse)
        let tasks = AudioMuseStatusRoutes(library: library)
        let routes: [(HTTPRequest.Method, String, Handler)] = [
            (.get, "/health", status.health), (.get, "/metrics", status.metrics),
            (.get, "/smart-dj/profile", profiles.profile),
            (.get, "/smart-dj/bulk-profiles", profiles.bulk), (.post, "/smart-dj/bulk-profiles", profiles.bulk),
            (.get, "/visualizer/frames", frames.frames),
            (.get, "/similar", sonic.similar), (.get, "/mix", sonic.mix),
            (.get, "/api/similar_tracks", audioMuse.similarTracks), (.get, "/api/find_path", audioMuse.findPath),
            (.get, "/api/similar_artists", artists.similarArtists), (.get, "/api/max_distance", audioMuse.maxDistance),
            (.get, "/api/search_tracks", audioMuse.searchTracks),
            (.get, "/api/active_tasks", tasks.activeTasks), (.get, "/api/last_task", tasks.lastTask), (.get, "/api/config", tasks.config),
            // The Jellyfin plugin's health check asks for the backend's root.
            (.get, "/", status.health),
        ]
        let router = Router()
        // Middleware wraps only the routes added after it, so it comes first.
        router.add(middleware: MetricsMiddleware(metrics: metrics))
        router.add(middleware: JSONErrorMiddleware())
        router.add(middleware: TargetLimitMiddleware(maxBytes: options.maxTargetBytes))
        router.add(middleware: MethodMiddleware(methods: Dictionary(routes.map { ($0.1, Set([$0.0])) }, uniquingKeysWith: { $0.union($1) })))
        if let token { router.add(middleware: BearerTokenMiddleware(token: Array(token.utf8))) }
        for (method, path, handler) in routes {
            router.on(RouterPath(path), method: method, use: handler)
            if method == .get { router.on(RouterPath(path), method: .head, use: handler) }
        }
        return router
    }

    /// Why requests would get a 503 now (no database yet, a folder the server may not write, a library not
    /// scanned), or nil when the database opens: for the operator's log at start.
    public func databaseProblem() -> String? {
        do {
            _ = try library.current()
            return nil
        } catch let error as APIError {
            return error.message
        } catch {
            return ServedLibrary.describe(error)
        }
    }

    /// Why serving this database may stop its owner from writing it (`ServedLibrary.sharingProblem`); nil when not.
    public func sharingProblem() -> String? { ServedLibrary.sharingProblem(library.databasePath) }

    /// Why the database's place may corrupt it: a network share (`DatabaseFiles.networkShareWarning`); nil when not.
    public func storageProblem() -> String? { DatabaseFiles.networkShareWarning(library.databasePath) }

    /// Serves until SIGINT or SIGTERM. `onListening` gets the bound port (the one asked for, or the one
    /// the system chose for port 0).
    public func run(onListening: @escaping @Sendable (Int) -> Void = { _ in }) async throws {
        try await application(onListening: onListening).runService()
    }

    /// Serves until the calling task is cancelled (tests).
    public func runUntilCancelled(onListening: @escaping @Sendable (Int) -> Void) async throws {
        try await application(onListening: onListening).run()
    }

    /// The HTTP parser's limit on a request head sits above the server's own on its target, so that a target
    /// somewhat too long reaches the limit middleware and gets its JSON 414; one longer than `maxHeadBytes` is
    /// the parser's bare 400. That limit holds before the token is checked, for every connection at once
    /// (`ConnectionCount`). Idle connections are closed after a minute.
    private func http1() -> HTTP1Channel.Configuration {
        let headBytes = max(options.maxHeadBytes, options.maxTargetBytes + 16 << 10)
        let connections = ConnectionCount(limit: options.maxConnections)
        return .init(additionalChannelHandlers: [ConnectionLimitHandler(connections)], idleTimeout: .seconds(60),
                     httpDecoderConfiguration: .init(maxHeaderFieldSize: headBytes, maxHeaderListSize: headBytes, maxHeaderFieldCount: 100))
    }

    private func application(onListening: @escaping @Sendable (Int) -> Void) -> some ApplicationProtocol {
        var logger = Logger(label: "spindle.serve")
        logger.logLevel = .warning
        return Application(
            router: router(),
            server: .http1(configuration: http1()),
            configuration: .init(address: .hostname(options.host, port: options.port), serverName: "spindle/\(SpindleVersion.text)"),
            onServerRunning: { channel in onListening(channel.localAddress?.port ?? 0) },
            logger: logger)
    }
}
