import Analysis
import Foundation
import Similarity
import Store

/// What the database holds: the `status` command's answer, printed from Store's snapshot.
public struct StatusReport: Sendable {
    let snapshot: StatusSnapshot
    /// The versions of the analyzers this machine runs (the tagger only with its weights).
    let versions: [String: Int]

    public var pending: Int { snapshot.pending }
    public var analysed: Int { snapshot.analysed }
    /// Files failing at some stage (a file failing at two stages counts once).
    public var failed: Int { failing { _ in true } }

    /// Distinct paths among the failures of the stages `stage` accepts.
    private func failing(_ stage: (String) -> Bool) -> Int {
        Set(snapshot.failures.filter { stage($0.stage) }.map(\.path)).count
    }

    /// The status of the settings' database; a missing database is a usage error, not a new file.
    public static func load(settings: Settings, runLimit: Int = 10) throws -> StatusReport {
        try load(database: try LibraryJobs.existingDatabaseForReading(settings), runLimit: runLimit,
                 versions: AnalysisStorage.versions(settings.analysis))
    }

    public static func load(database: SpindleDatabase, runLimit: Int = 10,
                            versions: [String: Int] = AnalysisStorage.versions(AnalysisOptions())) throws -> StatusReport {
        let liveness = RunLiveness.look(databasePath: database.path)
        var snapshot = try database.writer.read { db in
            try StatusQueries.snapshot(db, versions: versions, runLimit: runLimit)
        }
        snapshot.runs = snapshot.runs.map(liveness.settled)
        return StatusReport(snapshot: snapshot, versions: versions)
    }

    /// Per analyzer, the files due because it changed since they were analysed (after an upgrade).
    var newerAnalyzers: [String: Int] { AnalyzerUpdates.count(snapshot.storedVersions, versions: versions) }

    public func json() -> JSONValue {
        let s = snapshot
        let iso = ISO8601DateFormatter()
        return .object([
            ("files_present", .from(s.filesPresent)),
            ("analysed", .from(analysed)),
            ("failed", .from(failed)),
            ("pending", .from(pending)),
            ("failures", .array(s.failures.map {
                .object([("path", .string($0.path)), ("stage", .string($0.stage)), ("error", .string($0.error))])
            })),
            ("runs", .array(s.runs.map { run in
                .object([
                    ("id", .integer(run.id ?? 0)), ("kind", .string(run.kind)), ("status", .string(run.status.rawValue)),
                    ("started_at", .string(iso.string(from: run.startedAt))),
                    ("finished_at", .from(run.finishedAt.map { iso.string(from: $0) })),
                    ("files_total", .from(run.filesTotal)), ("files_done", .from(run.filesDone)),
                    ("files_failed", .from(run.filesFailed)), ("files_skipped", .from(run.filesSkipped)),
                    // Why a run failed (null otherwise): a nightly run that stopped says so here.
                    ("error", .from(run.status == .failed ? run.summary : nil)),
                ])
            })),
            ("partial", .array(s.partial.map {
                .object([("path", .string($0.path)), ("stage", .string($0.stage)), ("error", .string($0.error))])
            })),
            ("files_missing", .from(s.filesMissing)),
            ("tracks", .from(s.tracks)),
            ("roots", .array(s.roots.map { .string($0) })),
            ("roots_not_found", .array(s.roots.filter { !FileJobs.isFolder($0) }.map { .string($0) })),
            ("feature_vectors", .from(s.featureVectors)),
            ("embeddings", .from(s.embeddings)),
            ("pending_for_newer_analyzers", .object(newerAnalyzers.sorted { $0.key < $1.key }.map { ($0.key, .from($0.value)) })),
        ])
    }

    /// A root as `status` names it: a folder that is not there is said to be so, with what would bring it back.
    static func described(_ root: String) -> String {
        FileJobs.isFolder(root) ? root : root + " (folder not found: a disk or share not mounted, or the library moved; "
            + "scanned at its new place, it keeps its analysis)"
    }

    public func text() -> String {
        let s = snapshot
        let roots = s.roots, failures = s.failures, newer = newerAnalyzers
        var lines = [
            "library:   \(roots.isEmpty ? "(none scanned yet)" : roots.map(Self.described).joined(separator: ", "))",
            "files:     \(s.filesPresent) present, \(s.filesMissing) missing, \(s.tracks) with tags",
            "analysis:  \(analysed) current, \(pending) pending\(newer.isEmpty ? "" : " (for newer analyzers: \(AnalyzerUpdates.text(newer)))"), "
                + "\(failing { $0 == "analyze" }) failing",
            "features:  \(s.featureVectors) feature vectors, \(s.embeddings) tagger embeddings: similarity and clusters measure on the "
                + (SonicSpace.basis(vectors: s.featureVectors, embedded: s.embeddings) == .embedding ? "embedding" : "feature vector"),
        ]
        if !failures.isEmpty {
            // Every stage's: a file whose tags could not be read or written is not an analysis failure.
            // What the scan passed over (a folder it could not open, a disk not mounted, a link out of the
            // library) is no file that failed: counted apart, so "1 file(s)" does not name a folder.
            let files = failing { $0 != "scan" }, passedOver = failing { $0 == "scan" }
            lines.append("failures:  " + [files > 0 ? "\(files) file(s)" : nil,
                                          passedOver > 0 ? "\(passedOver) passed over by the scan" : nil]
                .compactMap { $0 }.joined(separator: ", "))
            for f in failures.prefix(20) { lines.append("  [\(f.stage)] \(f.path): \(f.error)") }
            if failures.count > 20 { lines.append("  … and \(failures.count - 20) more (status --json lists all)") }
        }
        if !s.runs.isEmpty {
            lines.append("recent runs:")
            let formatter = DateFormatter()
            formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
            for run in s.runs.prefix(5) {
                lines.append("  #\(run.id ?? 0) \(run.kind) \(run.status.rawValue) \(formatter.string(from: run.startedAt)): "
                    + "\(run.filesDone)/\(run.filesTotal) done, \(run.filesFailed) failed")
                if run.status == .failed, let why = run.summary { lines.append("      \(why)") }
                if run.status == .interrupted, run.finishedAt == nil { lines.append("      " + RunLiveness.interruptedHint) }
            }
        }
        // Every line, not only those naming files: a run's kind is a pipeline's `name`, which any file may set.
        return lines.map(TerminalText.safe).joined(separator: "\n")
    }
}
