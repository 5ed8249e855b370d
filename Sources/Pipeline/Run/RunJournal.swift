import Foundation
import GRDB
import Store

/// The journal of one run: a `runs` row with its counts, and per-file progress in `run_files`,
/// written in batches by the single writer that owns this object.
public final class RunJournal {
    public let runId: Int64
    let database: SpindleDatabase
    private var buffer: [RunFileRecord] = []
    private var counts = (done: 0, failed: 0, skipped: 0)
    private var lastFlush = monotonicSeconds()

    public init(database: SpindleDatabase, kind: String, options: String? = nil) throws {
        self.database = database
        runId = try database.writer.write { db in try RunQueries.start(db, kind: kind, options: options) }
    }

    /// Adds a stage's planned work to the run's total.
    public func addToTotal(_ count: Int) throws {
        try database.writer.write { db in try RunQueries.addToTotal(db, run: runId, count) }
    }

    /// Records one file's outcome at one stage; flushed in batches (every 200 rows or 2 s).
    public func record(fileId: Int64, stage: String, status: RunFileRecord.Status, error: String? = nil) throws {
        buffer.append(RunFileRecord(runId: runId, fileId: fileId, stage: stage, status: status, error: error, attempts: 1))
        switch status {
        case .failed: counts.failed += 1
        case .skipped: counts.skipped += 1
        case .done, .pending: counts.done += 1
        }
        if buffer.count >= 200 || monotonicSeconds() - lastFlush > 2 { try flush() }
    }

    public func flush(extra: ((Database) throws -> Void)? = nil) throws {
        let rows = buffer
        buffer.removeAll(keepingCapacity: true)
        let c = counts
        try database.writer.write { db in
            try RunQueries.record(db, run: runId, files: rows, done: c.done, failed: c.failed, skipped: c.skipped)
            try extra?(db)
        }
        lastFlush = monotonicSeconds()
    }

    public func finish(status: RunRecord.Status, summary: String? = nil) throws {
        try flush()
        try database.writer.write { db in try RunQueries.finish(db, run: runId, status: status, summary: summary) }
    }

    /// True when buffered work has waited long enough that a commit is due (batches close every 2 s).
    public var isDue: Bool { monotonicSeconds() - lastFlush > 2 }
}
