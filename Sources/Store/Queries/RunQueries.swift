import Foundation
import GRDB

/// Runs and their per-file journal (`runs`, `run_files`).
public enum RunQueries {
    public static func start(_ db: Database, kind: String, options: String?) throws -> Int64 {
        var run = RunRecord(kind: kind, options: options)
        try run.insert(db)
        return run.id!
    }

    /// Runs still marked running when the lock is taken died without finishing; returns how many.
    public static func markInterrupted(_ db: Database) throws -> Int {
        try RunRecord.filter(Column("status") == RunRecord.Status.running.rawValue)
            .updateAll(db, Column("status").set(to: RunRecord.Status.interrupted.rawValue), Column("finished_at").set(to: Date()))
    }

    public static func setTotal(_ db: Database, run: Int64, _ count: Int) throws {
        try RunRecord.filter(key: run).updateAll(db, Column("files_total").set(to: count))
    }

    public static func record(_ db: Database, run: Int64, files: [RunFileRecord], done: Int, failed: Int, skipped: Int) throws {
        for var row in files { try row.upsert(db) }
        try RunRecord.filter(key: run).updateAll(db, Column("files_done").set(to: done), Column("files_failed").set(to: failed),
                                                 Column("files_skipped").set(to: skipped))
    }

    public static func finish(_ db: Database, run: Int64, status: RunRecord.Status, summary: String?) throws {
        try RunRecord.filter(key: run).updateAll(db, Column("status").set(to: status.rawValue),
                                                 Column("finished_at").set(to: Date()), Column("summary").set(to: summary))
    }

    public static func latest(_ db: Database, limit: Int) throws -> [RunRecord] {
        try RunRecord.order(Column("id").desc).limit(limit).fetchAll(db)
    }
}
