import Hummingbird
import Pipeline
import Store

/// The task and configuration calls of AudioMuse-AI's API that its plugins make to check the connection
/// (the Jellyfin plugin's "test connection" asks `/api/active_tasks`) and to show progress. Spindle's tasks
/// are its runs: a nightly `run` or an `analyze` under way is the active task.
struct AudioMuseStatusRoutes: Sendable {
    let library: ServedLibrary

    /// `{}` when no run is under way, else that run as a task.
    func activeTasks(_ request: Request, context: some RequestContext) async throws -> Response {
        let run = try await lastRun()
        return JSONBody.response(run.flatMap { $0.status == .running ? Self.task($0) : nil } ?? .object([]))
    }

    /// The newest run as a task, or `{"status": "NO_PREVIOUS_MAIN_TASK"}` before the first.
    func lastTask(_ request: Request, context: some RequestContext) async throws -> Response {
        let run = try await lastRun()
        return JSONBody.response(run.map(Self.task) ?? .object([("status", .string("NO_PREVIOUS_MAIN_TASK"))]))
    }

    /// What this backend is and holds: Spindle's version, the tracks with a sound profile and the tracks of
    /// each media server's map.
    func config(_ request: Request, context: some RequestContext) async throws -> Response {
        let (profiles, mapped) = try await Blocking.run {
            try library.read { open, db in
                (try ServeQueries.figures(db).profiles,
                 try MediaServer.allCases.map { ($0.rawValue, try MediaServerQueries.mappedCount(db, rootId: open.rootId, server: $0)) })
            }
        }
        return JSONBody.response(.object([
            ("backend", .string("spindle")), ("version", .string(SpindleVersion.text)), ("tracks_analysed", .from(profiles)),
            ("mapped_tracks", .object(mapped.map { ($0.0, .from($0.1)) })),
        ]))
    }

    private func lastRun() async throws -> RunRecord? {
        let liveness = RunLiveness.look(databasePath: library.databasePath)
        return try await Blocking.run { try library.read { _, db in try ServeQueries.figures(db).lastRun } }.map(liveness.settled)
    }

    /// A run in AudioMuse's task terms: PROGRESS, SUCCESS, FAILURE or REVOKED.
    static func task(_ run: RunRecord) -> JSONValue {
        let status = switch run.status {
        case .running: "PROGRESS"
        case .completed: "SUCCESS"
        case .failed: "FAILURE"
        case .interrupted: "REVOKED"
        }
        let progress = run.filesTotal > 0 ? 100 * (run.filesDone + run.filesFailed) / run.filesTotal : (run.status == .running ? 0 : 100)
        return .object([
            ("task_id", .string("spindle-run-\(run.id ?? 0)")), ("task_type", .string("spindle_\(run.kind)")),
            ("status", .string(status)), ("progress", .from(min(100, progress))),
            ("details", .object([("files_total", .from(run.filesTotal)), ("files_done", .from(run.filesDone)),
                                 ("files_failed", .from(run.filesFailed))])),
            ("started_at", .string(run.startedAt.ISO8601Format())), ("finished_at", .from(run.finishedAt?.ISO8601Format())),
        ])
    }
}
