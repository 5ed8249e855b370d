import Analysis
import Foundation
import GRDB
import Store

/// What the database holds: the `status` command's answer.
public struct StatusReport: Sendable {
    public struct Failure: Sendable { public var path, stage, error: String }
    public struct Run: Sendable {
        public var id: Int64
        public var kind, status: String
        public var startedAt: Date
        public var finishedAt: Date?
        public var total, done, failed, skipped: Int
    }
    public var roots: [String] = []
    public var filesPresent = 0
    public var filesMissing = 0
    public var tracks = 0
    public var analysed = 0
    public var failed = 0
    public var pending = 0
    public var failures: [Failure] = []
    /// Files analysed from what could be decoded (truncated, corrupt in places), with the reason.
    public var partial: [Failure] = []
    public var runs: [Run] = []

    public static func load(database: SpindleDatabase, runLimit: Int = 10) throws -> StatusReport {
        try database.writer.read { db in
            var r = StatusReport()
            r.roots = try String.fetchAll(db, sql: "SELECT path FROM library_roots ORDER BY id")
            r.filesPresent = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM files WHERE status = 'present'") ?? 0
            r.filesMissing = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM files WHERE status = 'missing'") ?? 0
            r.tracks = try Int.fetchOne(db, sql: """
                SELECT COUNT(*) FROM tracks t JOIN files f ON f.id = t.file_id WHERE f.status = 'present' AND t.error IS NULL
                """) ?? 0
            let current = """
                a.content_key IS f.content_key AND a.analyzer_version = \(AnalysisOptions.analyzerVersion)
                """
            r.analysed = try Int.fetchOne(db, sql: """
                SELECT COUNT(*) FROM analysis a JOIN files f ON f.id = a.file_id
                WHERE f.status = 'present' AND a.status = 'ok' AND \(current)
                """) ?? 0
            // The latest outcome of each (file, stage) decides whether the file is failing at that stage.
            let rows = try Row.fetchAll(db, sql: """
                SELECT f.path, rf.stage, rf.error FROM run_files rf JOIN files f ON f.id = rf.file_id
                WHERE f.status = 'present' AND rf.status = 'failed'
                  AND rf.run_id = (SELECT MAX(r2.run_id) FROM run_files r2
                                   WHERE r2.file_id = rf.file_id AND r2.stage = rf.stage)
                ORDER BY f.path, rf.stage
                """)
            r.failures = rows.map { Failure(path: $0[0], stage: $0[1], error: $0[2] ?? "unknown error") }
            // Entries the walk could not index have no file row; they fail at the scan stage.
            r.failures += try Row.fetchAll(db, sql: "SELECT path, reason FROM scan_issues ORDER BY path").map {
                Failure(path: $0[0], stage: "scan", error: $0[1])
            }
            r.failed = Set(r.failures.map(\.path)).count
            r.partial = try Row.fetchAll(db, sql: """
                SELECT f.path, a.damage FROM analysis a JOIN files f ON f.id = a.file_id
                WHERE f.status = 'present' AND a.status = 'ok' AND a.damage IS NOT NULL ORDER BY f.path
                """).map { Failure(path: $0[0], stage: "analyze", error: $0[1]) }
            r.pending = try Int.fetchOne(db, sql: """
                SELECT COUNT(*) FROM files f LEFT JOIN analysis a ON a.file_id = f.id
                WHERE f.status = 'present' AND (a.file_id IS NULL OR NOT (\(current)))
                """) ?? 0
            r.runs = try Row.fetchAll(db, sql: """
                SELECT id, kind, status, started_at, finished_at, files_total, files_done, files_failed, files_skipped
                FROM runs ORDER BY id DESC LIMIT ?
                """, arguments: [runLimit]).map {
                Run(id: $0[0], kind: $0[1], status: $0[2], startedAt: $0[3], finishedAt: $0[4], total: $0[5],
                    done: $0[6], failed: $0[7], skipped: $0[8])
            }
            return r
        }
    }

    public func json() -> JSONValue {
        let iso = ISO8601DateFormatter()
        return .object([
            ("files_present", .from(filesPresent)),
            ("analysed", .from(analysed)),
            ("failed", .from(failed)),
            ("pending", .from(pending)),
            ("failures", .array(failures.map {
                .object([("path", .string($0.path)), ("stage", .string($0.stage)), ("error", .string($0.error))])
            })),
            ("runs", .array(runs.map { run in
                .object([
                    ("id", .integer(run.id)), ("kind", .string(run.kind)), ("status", .string(run.status)),
                    ("started_at", .string(iso.string(from: run.startedAt))),
                    ("finished_at", .from(run.finishedAt.map { iso.string(from: $0) })),
                    ("files_total", .from(run.total)), ("files_done", .from(run.done)),
                    ("files_failed", .from(run.failed)), ("files_skipped", .from(run.skipped)),
                ])
            })),
            ("partial", .array(partial.map {
                .object([("path", .string($0.path)), ("stage", .string($0.stage)), ("error", .string($0.error))])
            })),
            ("files_missing", .from(filesMissing)),
            ("tracks", .from(tracks)),
            ("roots", .array(roots.map { .string($0) })),
        ])
    }

    public func text() -> String {
        var lines = [
            "library:   \(roots.isEmpty ? "(none scanned yet)" : roots.joined(separator: ", "))",
            "files:     \(filesPresent) present, \(filesMissing) missing, \(tracks) with tags",
            "analysis:  \(analysed) current, \(pending) pending, \(failed) failing",
        ]
        if !failures.isEmpty {
            lines.append("failures:")
            for f in failures.prefix(20) { lines.append("  [\(f.stage)] \(f.path): \(f.error)") }
            if failures.count > 20 { lines.append("  … and \(failures.count - 20) more (status --json lists all)") }
        }
        if !runs.isEmpty {
            lines.append("recent runs:")
            let formatter = DateFormatter()
            formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
            for run in runs.prefix(5) {
                lines.append("  #\(run.id) \(run.kind) \(run.status) \(formatter.string(from: run.startedAt)): "
                    + "\(run.done)/\(run.total) done, \(run.failed) failed")
            }
        }
        return lines.joined(separator: "\n")
    }
}
