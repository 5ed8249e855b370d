import Analysis
import Foundation
import GRDB
import Library
import Store

/// Stage 3: decode once and analyse, in worker processes, every file whose stored analysis is missing or
/// stale (content key or analyzer version changed), or every selected file with `force`. A file that
/// crashed a worker is retried on the next run once; after a second crash it waits for new content or
/// `--force`. A file with the same bytes as another is decoded once: the copy takes the results of a file
/// analysed before, or of the one analysed in its stead in this run.
public enum AnalyzeStage {
    public struct Report: Sendable {
        public var analysed = 0
        /// Files that took the results of another file with the same bytes instead of being decoded.
        public var copied = 0
        public var failed = 0
        public var partial = 0
        public var crashed = 0
        public var audioSeconds = 0.0
        /// Of `seconds`, the time spent finding copies and giving them their results: left out of the speed.
        public var copySeconds = 0.0
        public var seconds = 0.0
    }

    static func run(_ context: RunContext, only paths: [String]? = nil) throws -> Report {
        let started = monotonicSeconds()
        let options = context.settings.analysis
        let versions = AnalysisStorage.versions(options)
        var files = try context.database.writer.read { db in
            try AnalysisQueries.filesToAnalyse(db, rootId: context.rootId, versions: versions, force: context.force)
        }
        if let paths {
            let wanted = Set(paths)
            files = files.filter { wanted.contains($0.path) }
        }
        var report = Report()
        guard !files.isEmpty else { return report }
        let updates = AnalyzerUpdates.count(files.map { ($0.currentVersions, 1) }, versions: versions)
        if !updates.isEmpty {
            logLine("analyze: analyzers newer than these files' results, run on them alone: \(AnalyzerUpdates.text(updates))")
        }
        try context.journal.plan(fileIds: files.map(\.fileId))
        let runtime = context.settings.runtime
        // Largest first: the long files start early instead of leaving one worker busy at the end.
        files.sort { ($0.size, $1.path) > ($1.size, $0.path) }
        let finding = monotonicSeconds()
        let copies = try AnalysisCopies.find(among: files, context: context, versions: versions)
        report.copySeconds += monotonicSeconds() - finding
        if !copies.ofAnalysed.isEmpty {
            for (file, _) in copies.ofAnalysed {
                context.journal.record(fileId: file.fileId, stage: "analyze", status: .done, error: nil)
            }
            let copying = monotonicSeconds()
            try context.journal.flush { db in
                for (file, source) in copies.ofAnalysed { try AnalysisQueries.copy(from: source, to: file.fileId, in: db) }
            }
            report.copySeconds += monotonicSeconds() - copying
            report.copied += copies.ofAnalysed.count
        }
        files = copies.toDecode
        guard !files.isEmpty else {
            report.seconds = monotonicSeconds() - started
            return report
        }
        let framesFolder = FramesFolder.make(for: context.database.path)
        defer { framesFolder.map(FramesFolder.remove) }
        let handoff = framesFolder.map { FramesHandoff.file(folder: $0) } ?? .inReply
        let jobs = files.enumerated().map { i, file -> PoolJob in
            // Proportional to the track's length: from its tags, else from its size at a low bitrate.
            let duration = file.durationS ?? Double(file.size) / 8000
            // Only the analyzers whose results are stale: a new tempo estimator re-runs tempo, not loudness.
            let stale = Set(versions.filter { file.currentVersions[$0.key] != $0.value }.keys)
            return PoolJob(job: WorkerJob(id: i, kind: .analyze, path: context.root.absolute(file.path), analyzers: stale,
                                          frames: handoff),
                           relativePath: file.path, fileId: file.fileId, contentKey: file.contentKey,
                           timeout: runtime.timeout(audioSeconds: duration))
        }
        let progress = ProgressReporter(label: "analyze", total: jobs.count, verbosity: context.verbosity)
        var pending: [PoolResult] = []
        func flush() throws {
            let batch = pending
            pending.removeAll()
            // Stored or not, a batch's frames files are done with: a failed commit leaves its files pending.
            defer { for result in batch { if let file = result.reply?.framesFile { unlink(file) } } }
            try context.journal.flush { db in
                for result in batch {
                    report.copySeconds += try store(result, copies: copies, options: options, versions: versions, in: db)
                }
            }
        }
        // What finished is stored even when the pool stops early (no worker could start).
        let processed = Result { try context.pool().process(jobs) { result in
            pending.append(result)
            account(result, copies: copies, journal: context.journal, report: &report, progress: progress)
            if pending.count >= 32 || context.journal.isDue { try flush() }
        } }
        try flush()
        try processed.get()
        progress.finish()
        report.seconds = monotonicSeconds() - started
        return report
    }

    /// One worker's reply stored with the results of the files that share its bytes; returns the seconds spent
    /// giving those copies their results.
    private static func store(_ result: PoolResult, copies: AnalysisCopies, options: AnalysisOptions,
                              versions: [String: Int], in db: Database) throws -> Double {
        guard let outcome = result.reply?.analysis else {
            try AnalysisQueries.saveCrash(result.failure ?? "worker failed", fileId: result.job.fileId,
                                          contentKey: result.job.contentKey, versions: versions, in: db)
            return 0
        }
        // A row stored for it would be current and its results, if any, gone: the file would stay failed when
        // it is back (its disk mounted again, its permissions mended) until it changed.
        if outcome.unreachable {
            // What it had stays its results; the next run reads it again.
            try AnalysisQueries.markUnread(fileId: result.job.fileId, contentKey: result.job.contentKey, in: db)
            for copy in copies.followers[result.job.fileId] ?? [] {
                try AnalysisQueries.markUnread(fileId: copy.fileId, contentKey: copy.contentKey, in: db)
            }
            return 0
        }
        // Stored as run: the analyzers this file's job named.
        var only = options
        only.enabled = result.job.job.analyzers ?? options.enabled
        try AnalysisQueries.save(AnalysisStorage.write(outcome, fileId: result.job.fileId, contentKey: result.job.contentKey,
                                                       options: only, framesFile: result.reply?.framesFile), in: db)
        let copying = monotonicSeconds()
        for copy in copies.followers[result.job.fileId] ?? [] {
            try AnalysisQueries.copy(from: result.job.fileId, to: copy.fileId, in: db)
        }
        return monotonicSeconds() - copying
    }

    /// One worker's reply in the run's journal, counts and progress, for its file and the files that share its
    /// bytes (stored with it in `store`).
    private static func account(_ result: PoolResult, copies: AnalysisCopies, journal: RunJournal, report: inout Report,
                                progress: ProgressReporter) {
        let relative = result.job.relativePath
        let fileId = result.job.fileId
        let followers = copies.followers[fileId] ?? []
        if result.reply?.analysis != nil {
            // Same bytes, same outcome, results or reasons: stored with this file's in `flush`.
            let failure = result.reply?.analysis?.error
            for copy in followers {
                journal.record(fileId: copy.fileId, stage: "analyze", status: failure == nil ? .done : .failed,
                                       error: failure ?? result.reply?.analysis?.damage)
            }
            if failure == nil { report.copied += followers.count } else { report.failed += followers.count }
        } else {
            // A crash may be the machine's: the copies stay stale, for the next run.
            for copy in followers {
                journal.record(fileId: copy.fileId, stage: "analyze", status: .failed,
                                       error: "not analysed: \(relative), a file with the same bytes, stopped its worker")
            }
            report.failed += followers.count
        }
        if let outcome = result.reply?.analysis, outcome.error == nil {
            report.analysed += 1
            if outcome.damage != nil { report.partial += 1 }
            let audio = outcome.durationSeconds ?? 0
            report.audioSeconds += audio
            journal.record(fileId: fileId, stage: "analyze", status: .done, error: outcome.damage)
            progress.advance(audioSeconds: audio, note: outcome.damage.map { "\(relative): partial: \($0)" })
        } else {
            let reason = result.reply?.analysis?.error ?? result.failure ?? "unknown error"
            report.failed += 1
            if result.reply == nil { report.crashed += 1 }
            journal.record(fileId: fileId, stage: "analyze", status: .failed, error: reason)
            progress.advance(failed: true, note: "\(relative): \(reason)")
        }
    }
}
