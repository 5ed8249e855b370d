import Foundation
import GRDB
import Store

/// The journal of one run: a `runs` row with its counts, and per-file progress in `run_files`,
/// written in batches by the single writer that owns this object.
///
/// The counts are of files, not of stage jobs: a file read for tags and then analysed is one file of the
/// run, done when every stage it went through was, failed when any failed (a run over 2,660 new files
/// had said "5320/5320 done").
public final class RunJournal {
    public let runId: Int64
    let database: SpindleDatabase
    private var buffer: [RunFileRecord] = []
    private var planned = Set<Int64>()
    /// Each file's outcome so far: the worst of its stages'.
    private var outcomes: [Int64: RunFileRecord.Status] = [:]
    private var counts = (done: 0, failed: 0, skipped: 0)
    private var lastFlush = monotonicSeconds()

    public init(database: SpindleDatabase, kind: String, options: String? = nil) throws {
        self.database = database
        runId = try database.writer.write { db in try RunQueries.start(db, kind: kind, options: options) }
    }

    /// Adds the files a stage will work on to the run's total (a file already planned by an earlier stage
    /// is not counted again). A file done at an earlier stage is pending again until this one records it:
    /// a run stopped in its analysis had counted every file whose tags it had read as done.
    public func plan(fileIds: [Int64]) throws {
        let before = planned.count
        planned.formUnion(fileIds)
        var recounted = false
        for id in fileIds where outcomes[id] == .done {
            count(.done, by: -1)
            outcomes[id] = .pending
            recounted = true
        }
        guard planned.count > before || recounted else { return }
        let total = planned.count
        let c = counts
        try database.writer.write { db in
            try RunQueries.setTotal(db, run: runId, total)
            try RunQueries.record(db, run: runId, files: [], done: c.done, failed: c.failed, skipped: c.skipped)
        }
    }

    /// Records one file's outcome at one stage, stored by the stage's next `flush`, in the commit that carries
    /// the file's results (the stages flush every 200 rows or so, or when `isDue`). Never by itself: the journal
    /// flushed its rows once 2 s had passed, and a file's "done" went in ahead of its results, so a disk that
    /// filled before these were stored left a failed run saying "2/2 done" with none of them in the database.
    public func record(fileId: Int64, stage: String, status: RunFileRecord.Status, error: String? = nil) {
        buffer.append(RunFileRecord(runId: runId, fileId: fileId, stage: stage, status: status, error: error, attempts: 1))
        let previous = outcomes[fileId]
        let outcome = previous.map { Self.rank($0) >= Self.rank(status) ? $0 : status } ?? status
        if outcome != previous {
            if let previous { count(previous, by: -1) }
            count(outcome, by: 1)
            outcomes[fileId] = outcome
        }
    }

    /// Which of two stage outcomes a file's counts follow: a failure outranks a skip, a skip a success.
    private static func rank(_ status: RunFileRecord.Status) -> Int {
        switch status {
        case .pending: return -1
        case .done: return 0
        case .skipped: return 1
        case .failed: return 2
        }
    }

    private func count(_ status: RunFileRecord.Status, by step: Int) {
        switch status {
        case .failed: counts.failed += step
        case .skipped: counts.skipped += step
        case .done: counts.done += step
        case .pending: break
        }
    }

    public func flush(extra: ((Database) throws -> Void)? = nil) throws {
        let rows = buffer
        buffer.removeAll(keepingCapacity: true)
        let c = counts
        do {
            try database.writer.write { db in
                try RunQueries.record(db, run: runId, files: rows, done: c.done, failed: c.failed, skipped: c.skipped)
                try extra?(db)
            }
        } catch {
            // Nothing this commit carried is stored (the stages' results ride in `extra`): its files are
            // pending again, or a run whose last commit failed on a full disk said "6/6 done" with none stored.
            for row in rows where outcomes[row.fileId] != nil { outcomes[row.fileId] = .pending }
            counts = (0, 0, 0)
            for outcome in outcomes.values { count(outcome, by: 1) }
            throw error
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
