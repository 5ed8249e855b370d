import Analysis
import Foundation
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

    /// The status of the settings' database; a missing database is a usage error, not a new file.
    public static func load(settings: Settings, runLimit: Int = 10) throws -> StatusReport {
        guard FileManager.default.fileExists(atPath: settings.databasePath) else {
            throw ConfigurationError("no database at \(settings.databasePath): run `spindle scan` first")
        }
        return try load(database: try SpindleDatabase(path: settings.databasePath), runLimit: runLimit)
    }

    public static func load(database: SpindleDatabase, runLimit: Int = 10) throws -> StatusReport {
        let s = try database.writer.read { db in
            try StatusQueries.snapshot(db, versions: AnalyzerRegistry.versions, runLimit: runLimit)
        }
        var r = StatusReport()
        r.roots = s.roots
        r.filesPresent = s.filesPresent
        r.filesMissing = s.filesMissing
        r.tracks = s.tracks
        r.analysed = s.analysed
        r.pending = s.pending
        r.failures = s.failures.map { Failure(path: $0.path, stage: $0.stage, error: $0.error) }
        r.failed = Set(r.failures.map(\.path)).count
        r.partial = s.partial.map { Failure(path: $0.path, stage: $0.stage, error: $0.error) }
        r.runs = s.runs.map {
            Run(id: $0.id ?? 0, kind: $0.kind, status: $0.status.rawValue, startedAt: $0.startedAt, finishedAt: $0.finishedAt,
                total: $0.filesTotal, done: $0.filesDone, failed: $0.filesFailed, skipped: $0.filesSkipped)
        }
        return r
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
