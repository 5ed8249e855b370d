import Analysis
import Foundation
import GRDB
import Library
import Store

/// Stage 3: decode once and analyse every file whose stored analysis is missing or stale (content key or
/// analyzer version changed), or every selected file with `force`.
public enum AnalyzeStage {
    public struct Report: Sendable {
        public var analysed = 0
        public var failed = 0
        public var partial = 0
        public var audioSeconds = 0.0
        public var seconds = 0.0
    }

    struct Target: Sendable {
        let fileId: Int64
        let path: String
        let contentKey: String?
    }

    public static func run(database: SpindleDatabase, root: LibraryRoot, rootId: Int64, settings: Settings,
                           force: Bool, only paths: [String]? = nil, journal: RunJournal?,
                           verbosity: Verbosity) throws -> Report {
        let started = monotonicSeconds()
        var targets = try database.writer.read { db -> [Target] in
            let staleness = force ? "1" : """
                (a.file_id IS NULL OR a.content_key IS NOT f.content_key OR a.analyzer_version != \(AnalysisOptions.analyzerVersion))
                """
            return try Row.fetchAll(db, sql: """
                SELECT f.id, f.path, f.content_key FROM files f LEFT JOIN analysis a ON a.file_id = f.id
                WHERE f.root_id = ? AND f.status = 'present' AND \(staleness)
                ORDER BY f.path
                """, arguments: [rootId]).map { Target(fileId: $0[0], path: $0[1], contentKey: $0[2]) }
        }
        if let paths {
            let wanted = Set(paths)
            targets = targets.filter { wanted.contains($0.path) }
        }
        var report = Report()
        guard !targets.isEmpty else { return report }
        try journal?.addToTotal(targets.count)
        let progress = ProgressReporter(label: "analyze", total: targets.count, verbosity: verbosity)
        let options = settings.analysis
        let rootPath = root.path
        var pending: [(Target, FileAnalysisOutcome)] = []
        func flush() throws {
            let batch = pending
            pending.removeAll()
            try journal?.flush { db in
                for (target, outcome) in batch {
                    try AnalysisStorage.store(outcome, fileId: target.fileId, contentKey: target.contentKey,
                                              options: options, in: db)
                }
            }
        }
        try ParallelWork.run(targets, jobs: settings.jobs, work: { target in
            var outcome = FileAnalysis.run(path: rootPath + "/" + target.path, options: options)
            outcome.path = target.path
            return outcome
        }, deliver: { target, outcome in
            pending.append((target, outcome))
            if let error = outcome.error {
                report.failed += 1
                try journal?.record(fileId: target.fileId, stage: "analyze", status: "failed", error: error)
                progress.advance(failed: true, note: "\(target.path): \(error)")
            } else {
                report.analysed += 1
                if outcome.damage != nil { report.partial += 1 }
                let audio = outcome.durationSeconds ?? 0
                report.audioSeconds += audio
                try journal?.record(fileId: target.fileId, stage: "analyze", status: "done", error: outcome.damage)
                progress.advance(audioSeconds: audio, note: outcome.damage.map { "\(target.path): partial: \($0)" })
            }
            if pending.count >= 32 { try flush() }
        })
        try flush()
        progress.finish()
        report.seconds = monotonicSeconds() - started
        return report
    }
}
