import Hummingbird
import Pipeline
import Store

/// `/health` (open to all: status, counts, the last run, the version) and `/metrics` (Prometheus).
struct StatusRoutes: Sendable {
    let library: ServedLibrary
    let metrics: ServerMetrics

    func health(_ request: Request, context: some RequestContext) async throws -> Response {
        let figures: ServeQueries.Figures
        let liveness = RunLiveness.look(databasePath: library.databasePath)
        do {
            figures = try await Blocking.run { try library.read { _, db in try ServeQueries.figures(db) } }
        } catch let error as APIError {
            return JSONBody.response(.object([
                ("status", .string("unavailable")), ("error", .string(error.message)), ("version", .string(SpindleVersion.text)),
            ]), status: error.status)
        }
        let run: JSONValue = figures.lastRun.map(liveness.settled).map { run in
            .object([("id", .from(run.id.map { Int($0) })), ("kind", .string(run.kind)), ("status", .string(run.status.rawValue)),
                     ("started_at", .string(run.startedAt.ISO8601Format())),
                     ("finished_at", .from(run.finishedAt?.ISO8601Format())),
                     ("files_done", .from(run.filesDone)), ("files_failed", .from(run.filesFailed))])
        } ?? .null
        return JSONBody.response(.object([
            ("status", .string("ok")),
            ("profiles", .from(figures.profiles)),
            ("frame_sets", .from(figures.frameSets)),
            ("failures", .from(figures.failures)),
            ("last_run", run),
            ("version", .string(SpindleVersion.text)),
        ]))
    }

    func metrics(_ request: Request, context: some RequestContext) async throws -> Response {
        let figures = try? library.read { _, db in try ServeQueries.figures(db) }
        return JSONBody.bytes(metrics.render(figures: figures, databasePath: library.databasePath),
                              contentType: "text/plain; version=0.0.4; charset=utf-8")
    }
}
