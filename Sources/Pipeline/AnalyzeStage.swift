import Analysis
import Foundation
import GRDB
import Library
import Store

/// Stage 3: decode once and analyse, in worker processes, every file whose stored analysis is missing or
/// stale (content key or analyzer version changed), or every selected file with `force`. A file that
/// crashed a worker is retried on the next run once; after a second crash it waits for new content or
/// `--force`.
public enum AnalyzeStage {
    public struct Report: Sendable {
        public var analysed = 0
        public var failed = 0
        public var partial = 0
        public var crashed = 0
        public var audioSeconds = 0.0
        public var seconds = 0.0
    }

    static func run(_ context: RunContext, only paths: [String]? = nil) throws -> Report {
        let started = monotonicSeconds()
        let staleness = context.force ? "1" : """
            (a.file_id IS NULL OR a.content_key IS NOT f.content_key OR a.analyzer_version != \(AnalysisOptions.analyzerVersion))
            """
        var rows = try context.database.writer.read { db in
            try Row.fetchAll(db, sql: """
                SELECT f.id, f.path, f.content_key, f.size, t.duration_s FROM files f
                LEFT JOIN analysis a ON a.file_id = f.id LEFT JOIN tracks t ON t.file_id = f.id
                WHERE f.root_id = ? AND f.status = 'present' AND \(staleness)
                ORDER BY f.path
                """, arguments: [context.rootId])
        }
        if let paths {
            let wanted = Set(paths)
            rows = rows.filter { wanted.contains($0[1]) }
        }
        var report = Report()
        guard !rows.isEmpty else { return report }
        try context.journal.addToTotal(rows.count)
        let runtime = context.settings.runtime
        // Largest first: the long files start early instead of leaving one worker busy at the end.
        rows.sort { ($0[3] as Int64, $1[1] as String) > ($1[3] as Int64, $0[1] as String) }
        let jobs = rows.enumerated().map { i, row -> PoolJob in
            let size: Int64 = row[3]
            // Proportional to the track's length: from its tags, else from its size at a low bitrate.
            let duration: Double = row[4] ?? Double(size) / 8000
            return PoolJob(job: WorkerJob(id: i, kind: .analyze, path: context.root.absolute(row[1])), relativePath: row[1],
                           fileId: row[0],
                           contentKey: row[2], timeout: runtime.timeout(audioSeconds: duration))
        }
        let progress = ProgressReporter(label: "analyze", total: jobs.count, verbosity: context.verbosity)
        let options = context.settings.analysis
        var pending: [PoolResult] = []
        func flush() throws {
            let batch = pending
            pending.removeAll()
            try context.journal.flush { db in
                for result in batch {
                    if let outcome = result.reply?.analysis {
                        try AnalysisStorage.store(outcome, fileId: result.job.fileId, contentKey: result.job.contentKey,
                                                  options: options, in: db)
                    } else {
                        try AnalysisStorage.storeCrash(result.failure ?? "worker failed", fileId: result.job.fileId,
                                                       contentKey: result.job.contentKey, in: db)
                    }
                }
            }
        }
        try context.pool().process(jobs) { result in
            let relative = result.job.relativePath
            let fileId = result.job.fileId
            pending.append(result)
            if let outcome = result.reply?.analysis, outcome.error == nil {
                report.analysed += 1
                if outcome.damage != nil { report.partial += 1 }
                let audio = outcome.durationSeconds ?? 0
                report.audioSeconds += audio
                try context.journal.record(fileId: fileId, stage: "analyze", status: "done", error: outcome.damage)
                progress.advance(audioSeconds: audio, note: outcome.damage.map { "\(relative): partial: \($0)" })
            } else {
                let reason = result.reply?.analysis?.error ?? result.failure ?? "unknown error"
                report.failed += 1
                if result.reply == nil { report.crashed += 1 }
                try context.journal.record(fileId: fileId, stage: "analyze", status: "failed", error: reason)
                progress.advance(failed: true, note: "\(relative): \(reason)")
            }
            if pending.count >= 32 || context.journal.isDue { try flush() }
        }
        try flush()
        progress.finish()
        report.seconds = monotonicSeconds() - started
        return report
    }
}
