import Foundation
import GRDB
import Library
import Navidrome
import Reports
import Store
import Tagging

/// One journaled run over the library: takes the database lock, marks runs that died as interrupted, then
/// runs the requested stages; each stage picks up whatever work is left, so a run after a kill finishes
/// what the killed one started.
public enum LibraryJobs {
    public static func open(_ settings: Settings) throws -> (SpindleDatabase, LibraryRoot) {
        let database = try SpindleDatabase(path: try existingDatabase(settings))
        return (database, try LibraryRoot(path: try libraryPath(settings, database: database)))
    }

    /// As `open`, for a command that only reads: a user who may not write the database reads it as it is.
    public static func openForReading(_ settings: Settings) throws -> (SpindleDatabase, LibraryRoot) {
        let database = try existingDatabaseForReading(settings)
        return (database, try LibraryRoot(path: try libraryPath(settings, database: database)))
    }

    /// The settings' database, which must exist, opened for a command that only reads it
    /// (`SpindleDatabase.forReading`).
    public static func existingDatabaseForReading(_ settings: Settings) throws -> SpindleDatabase {
        try SpindleDatabase.forReading(try existingDatabase(settings))
    }

    /// The settings' database path when a database is there. Commands that only read what a scan stored say
    /// so instead of creating an empty database (a mistyped --db had built "0 composite genres", exit 0).
    static func existingDatabase(_ settings: Settings) throws -> String {
        guard FileManager.default.fileExists(atPath: settings.databasePath) else {
            throw ConfigurationError("no database at \(settings.databasePath): run `spindle scan` first")
        }
        return settings.databasePath
    }

    /// The library named by the settings; without one, the only library an existing database knows (so
    /// `spindle --db FILE genres build` needs no --library), else the settings' error naming the three ways.
    public static func libraryPath(_ settings: Settings, database: SpindleDatabase?) throws -> String {
        if let path = settings.libraryPath { return path }
        if let database, let roots = try? database.writer.read({ db in try FileQueries.roots(db) }), roots.count == 1 {
            return roots[0]
        }
        return try settings.requireLibrary()
    }

    public static func run(settings: Settings, request: RunRequest, verbosity: Verbosity) throws -> Outcome {
        let started = monotonicSeconds()
        if !request.stages.contains(where: \.fillsTheIndex) { _ = try existingDatabase(settings) }
        let existing = FileManager.default.fileExists(atPath: settings.databasePath)
            ? try SpindleDatabase(path: settings.databasePath) : nil
        let root = try LibraryRoot(path: try libraryPath(settings, database: existing))
        let folder = (settings.databasePath as NSString).deletingLastPathComponent
        if !folder.isEmpty { try Folders.make(folder) }
        if let warning = DatabaseFiles.networkShareWarning(settings.databasePath) { logLine("warning: " + warning) }
        let lock = try RunLock(databasePath: settings.databasePath, command: request.kind)
        StopRequest.install()
        defer { withExtendedLifetime(lock) {} }
        let database = try SpindleDatabase(path: settings.databasePath)
        // Holding the lock, any run still marked running died without finishing.
        let interrupted = try database.writer.write { db in try RunQueries.markInterrupted(db) }
        let journal = try RunJournal(database: database, kind: request.kind)
        var outcome = Outcome(runId: journal.runId)
        outcome.interruptedRuns = interrupted
        // Between stages: a run asked to stop ends here, with what its stages finished saved.
        func checkpoint() throws {
            guard let signal = StopRequest.received else { return }
            outcome.stoppedBy = signal
            outcome.seconds = monotonicSeconds() - started
            throw Interrupted(signal: signal, summary: outcome.summary())
        }
        do {
            let scanner = LibraryScanner(database: database, root: root, shard: request.shard,
                                         forgetMissingAfter: settings.forgetMissingAfter)
            let rootId = try scanner.rootId()
            outcome.libraryMovedFrom = scanner.relocatedFrom
            let context = RunContext(database: database, root: root, rootId: rootId, settings: settings, journal: journal,
                                     verbosity: verbosity, force: request.force)
            let state = RunState(context: context, request: request, scanner: scanner, outcome: outcome)
            var stages = RunStages.list(for: request)
            if let shard = request.shard, stages.contains(where: \.needsTheWholeLibrary) {
                logLine("shard \(shard): genres, reports and playlists are built after `spindle merge`, not per shard")
                stages.removeAll(where: \.needsTheWholeLibrary)
            }
            for stage in stages {
                let goesOn = try stage.run(state)
                outcome = state.outcome
                try checkpoint()
                if !goesOn { break }
            }
            rescan(request, outcome: &outcome)
            outcome.seconds = monotonicSeconds() - started
            try journal.finish(status: .completed, summary: outcome.summary())
            return outcome
        } catch let stop as Interrupted {
            try? journal.finish(status: .interrupted, summary: stop.summary)
            throw stop
        } catch {
            try? journal.finish(status: .failed, summary: "\(error)")
            throw error
        }
    }

    /// After a tag batch that changed files, the Subsonic server is asked to rescan; a failure counts as one.
    private static func rescan(_ request: RunRequest, outcome: inout Outcome) {
        guard let client = request.rescan, (outcome.tagfix?.filesChanged ?? 0) > 0 else { return }
        do {
            try client.startScan { logLine($0) }
            outcome.rescanned = "rescan requested"
        } catch {
            outcome.rescanned = "rescan failed: \(error)"
            outcome.rescanFailed = true
        }
    }

    /// A tag batch's files in the run's counts: a written file is done, a failed write a failed file and a
    /// conflict a skipped one, each with its reason (a batch with failed writes had been recorded as a run
    /// with none failed, and `status` said so).
    static func journal(_ report: TagBatch.Report, in runJournal: RunJournal, database: SpindleDatabase,
                        root: LibraryRoot) throws {
        let outcomes = report.written.map { ($0, RunFileRecord.Status.done, String?.none) }
            + report.failed.map { ($0.path, .failed, $0.reason) } + report.conflicts.map { ($0.path, .skipped, $0.reason) }
        let ids = try database.writer.read { db in
            try outcomes.map { try FileQueries.fileId(db, rootPath: root.path, path: $0.0) }
        }
        try runJournal.plan(fileIds: ids.compactMap { $0 })
        for (outcome, id) in zip(outcomes, ids) {
            guard let id else { continue }
            runJournal.record(fileId: id, stage: "tagfix", status: outcome.1, error: outcome.2)
        }
    }

    /// The library files that `analyze PATH...` names (`TypedPaths`); a path that names nothing is an error
    /// that says what was tried.
    static func select(_ inputs: [String], root: LibraryRoot, database: SpindleDatabase) throws -> [String] {
        try inputs.flatMap { input -> [String] in
            if let found = try TypedPaths.files(input, root: root, database: database) { return found }
            let candidates = root.candidates(forTyped: input)
            let attempts = candidates.isEmpty ? "it is outside the library root \(root.path)"
                : "tried \(candidates.map { root.absolute($0) }.joined(separator: ", "))"
            throw ConfigurationError("\(input) matches no file of the library (\(attempts))")
        }
    }
}
