import Foundation
import GRDB
import Library
import Reports
import Store
import Tagging

/// The stages a run can go through, in their fixed order.
public enum Stage: String, CaseIterable, Sendable, Codable {
    case tagfix, scan, tags, analyze, genres, report
}

/// The tag batch a run starts with (stage `tagfix`).
public struct TagfixRequest: Sendable {
    public enum Source: Sendable {
        case edits([(String, TagEdit)])
        case file(String)
        case fixers([TagFixer], paths: [String]?)
        case analysis(bpm: Bool, replayGain: Bool, paths: [String]?)
        case undo(batch: Int64?)
    }
    public var source: Source
    public var dryRun = false
    public var allowCustom = false
    /// 3 or 4 to write MP3 tags as that ID3v2 version; 0 keeps each file's own.
    public var id3v2Version = 0
    public var command: String

    public init(source: Source, command: String, dryRun: Bool = false, allowCustom: Bool = false, id3v2Version: Int = 0) {
        self.source = source
        self.command = command
        self.dryRun = dryRun
        self.allowCustom = allowCustom
        self.id3v2Version = id3v2Version
    }
}

/// What a run is asked to do.
public struct RunRequest: Sendable {
    public var kind: String
    public var stages: [Stage]
    public var force: Bool
    /// Restrict analysis to these files (relative to the root or absolute inside it).
    public var paths: [String]?
    /// The report stage's format and file (standard output when nil).
    public var reportFormat: ReportFormat = .html
    public var reportOutput: String?
    public var tagfix: TagfixRequest?
    /// Ask a Subsonic server to rescan when the tag batch changed files.
    public var rescan: SubsonicClient?

    public init(kind: String, stages: [Stage], force: Bool = false, paths: [String]? = nil) {
        self.kind = kind
        self.stages = stages
        self.force = force
        self.paths = paths
    }
}

/// One journaled run over the library: takes the database lock, marks runs that died as interrupted, then
/// runs the requested stages; each stage picks up whatever work is left, so a run after a kill finishes
/// what the killed one started.
public enum LibraryJobs {
    public struct Outcome: Sendable {
        public var runId: Int64
        public var scan: ScanReport?
        public var tags: TagStage.Report?
        public var analysis: AnalyzeStage.Report?
        public var tagfix: TagBatch.Report?
        public var rescanned: String?
        /// The Subsonic server could not be told to rescan (counts as a failure: exit code 3).
        public var rescanFailed = false
        public var genres: GenresStage.Report?
        public var reportWritten: String?
        public var interruptedRuns = 0
        public var seconds = 0.0
        /// Files that failed at some stage in this run (exit code 3 when non-zero).
        public var failures: Int {
            (tags?.failed ?? 0) + (analysis?.failed ?? 0) + (tagfix.map { $0.failed.count + $0.conflicts.count + $0.refusals.count } ?? 0)
                + (rescanFailed ? 1 : 0)
        }

        public func summary() -> String {
            var parts: [String] = []
            if interruptedRuns > 0 { parts.append("resumed after \(interruptedRuns) interrupted run(s)") }
            if let t = tagfix {
                if t.dryRun {
                    parts.append(t.diff.isEmpty ? "tags: nothing to change (dry run)" : t.diff + "\n(dry run: nothing written)")
                } else {
                    parts.append("tags: batch \(t.batchId.map { "#\($0)" } ?? "(none)"): \(t.filesChanged) files, \(t.keysChanged) keys changed")
                }
                for r in t.refusals { parts.append(TerminalText.safe("refused \(r.input): \(r.reason)")) }
                for f in t.failed { parts.append(TerminalText.safe("failed \(f.path): \(f.reason)")) }
                for c in t.conflicts { parts.append(TerminalText.safe("not restored \(c.path): \(c.reason)")) }
            }
            if let r = rescanned { parts.append("navidrome: \(r)") }
            if let scan {
                parts.append("scan: \(scan.seen) audio files (\(scan.new) new, \(scan.changed) changed, \(scan.moved) moved, "
                    + "\(scan.missing) missing, \(scan.unchanged) unchanged) in \(String(format: "%.2f", scan.seconds)) s")
                if !scan.skipped.isEmpty { parts.append("skipped: \(scan.skipped.count) entries (see status)") }
            }
            if let tags { parts.append("tags: \(tags.read) read, \(tags.failed) failed") }
            if let a = analysis {
                let speed = a.seconds > 0 && a.audioSeconds > 0 ? String(format: ", %.0f× real time", a.audioSeconds / a.seconds) : ""
                parts.append("analyze: \(a.analysed) analysed (\(a.partial) partial), \(a.failed) failed\(speed)")
            }
            if let g = genres {
                parts.append("genres: \(g.genres) composite genres, \(g.memberships) memberships (\(g.dropped) candidates dropped)")
            }
            if let r = reportWritten { parts.append("report: \(r)") }
            parts.append(String(format: "run #%lld finished in %.2f s", runId, seconds))
            return parts.joined(separator: "\n")
        }

        public func json() -> JSONValue {
            var pairs: [(String, JSONValue)] = [("run_id", .integer(runId)), ("seconds", .from(seconds, digits: 3)),
                                                ("interrupted_runs_closed", .from(interruptedRuns))]
            if let s = scan {
                pairs.append(("scan", .object([
                    ("seen", .from(s.seen)), ("new", .from(s.new)), ("changed", .from(s.changed)), ("moved", .from(s.moved)),
                    ("missing", .from(s.missing)), ("unchanged", .from(s.unchanged)), ("skipped", .from(s.skipped.count)),
                ])))
            }
            if let t = tags { pairs.append(("tags", .object([("read", .from(t.read)), ("failed", .from(t.failed))]))) }
            if let a = analysis {
                pairs.append(("analyze", .object([
                    ("analysed", .from(a.analysed)), ("partial", .from(a.partial)), ("failed", .from(a.failed)),
                    ("crashed", .from(a.crashed)), ("audio_seconds", .from(a.audioSeconds, digits: 3)),
                ])))
            }
            if let g = genres {
                pairs.append(("genres", .object([("genres", .from(g.genres)), ("memberships", .from(g.memberships)),
                                                 ("dropped", .from(g.dropped))])))
            }
            if let r = reportWritten { pairs.append(("report", .string(r))) }
            if let t = tagfix {
                pairs.append(("tag_batch", .object([
                    ("batch_id", t.batchId.map { .integer($0) } ?? .null), ("dry_run", .bool(t.dryRun)),
                    ("files_changed", .from(t.filesChanged)), ("keys_changed", .from(t.keysChanged)),
                    ("failed", .array(t.failed.map { .object([("path", .string($0.path)), ("error", .string($0.reason))]) })),
                    ("conflicts", .array(t.conflicts.map { .object([("path", .string($0.path)), ("error", .string($0.reason))]) })),
                    ("refused", .array(t.refusals.map { .object([("path", .string($0.input)), ("error", .string($0.reason))]) })),
                ])))
            }
            pairs.append(("failures", .from(failures)))
            return .object(pairs)
        }
    }

    public static func open(_ settings: Settings) throws -> (SpindleDatabase, LibraryRoot) {
        let root = try LibraryRoot(path: try settings.requireLibrary())
        let database = try SpindleDatabase(path: settings.databasePath)
        return (database, root)
    }

    public static func run(settings: Settings, request: RunRequest, verbosity: Verbosity) throws -> Outcome {
        let started = monotonicSeconds()
        let root = try LibraryRoot(path: try settings.requireLibrary())
        let folder = (settings.databasePath as NSString).deletingLastPathComponent
        if !folder.isEmpty { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        let lock = try RunLock(databasePath: settings.databasePath, command: request.kind)
        defer { withExtendedLifetime(lock) {} }
        let database = try SpindleDatabase(path: settings.databasePath)
        // Holding the lock, any run still marked running died without finishing.
        let interrupted = try database.writer.write { db -> Int in
            try db.execute(sql: "UPDATE runs SET status = 'interrupted', finished_at = ? WHERE status = 'running'",
                           arguments: [Date()])
            return db.changesCount
        }
        let journal = try RunJournal(database: database, kind: request.kind)
        var outcome = Outcome(runId: journal.runId)
        outcome.interruptedRuns = interrupted
        do {
            let scanner = LibraryScanner(database: database, root: root)
            let rootId = try scanner.rootId()
            if let tagfix = request.tagfix, request.stages.contains(.tagfix) {
                let report = try runTagfix(tagfix, scanner: scanner, database: database, root: root)
                outcome.tagfix = report
                if report.dryRun {
                    outcome.seconds = monotonicSeconds() - started
                    try journal.finish(status: "completed", summary: outcome.summary())
                    return outcome
                }
            }
            if request.stages.contains(.scan) {
                let scan = try scanner.scan()
                try recordScanIssues(scan, rootId: rootId, database: database)
                if verbosity == .verbose { for s in scan.skipped { log("skipped \(s.relativePath): \(s.reason)") } }
                outcome.scan = scan
            }
            let context = RunContext(database: database, root: root, rootId: rootId, settings: settings, journal: journal,
                                     verbosity: verbosity, force: request.force)
            if request.stages.contains(.tags) { outcome.tags = try TagStage.run(context) }
            if request.stages.contains(.analyze) {
                let selected = try request.paths.map { try $0.map { try relativePath($0, root: root) } }
                outcome.analysis = try AnalyzeStage.run(context, only: selected)
            }
            if request.stages.contains(.genres) { outcome.genres = try GenresStage.build(database: database) }
            if request.stages.contains(.report) {
                let text = try GenresStage.report(database: database, format: request.reportFormat, output: request.reportOutput)
                if let text { print(text, terminator: "") }
                outcome.reportWritten = request.reportOutput ?? "standard output"
            }
            if let client = request.rescan, (outcome.tagfix?.filesChanged ?? 0) > 0 {
                do {
                    try client.startScan { log($0) }
                    outcome.rescanned = "rescan requested"
                } catch {
                    outcome.rescanned = "rescan failed: \(error)"
                    outcome.rescanFailed = true
                }
            }
            outcome.seconds = monotonicSeconds() - started
            try journal.finish(status: "completed", summary: outcome.summary())
            return outcome
        } catch {
            try? journal.finish(status: "failed", summary: "\(error)")
            throw error
        }
    }

    /// Stage `tagfix`: brings the index up to date (paths resolve against it), builds the edits, then shows
    /// them (dry run) or journals and writes them.
    static func runTagfix(_ request: TagfixRequest, scanner: LibraryScanner, database: SpindleDatabase,
                          root: LibraryRoot) throws -> TagBatch.Report {
        _ = try scanner.scan()
        let resolver = try PathResolver(database: database, root: root)
        if case .undo(let batch) = request.source {
            return try TagBatch.undo(batch: batch, database: database, root: root)
        }
        var notes: [String] = []
        let edits: [(String, TagEdit)]
        switch request.source {
        case .edits(let e): edits = e
        case .file(let path): edits = try TagEditSources.file(path)
        case .fixers(let fixers, let paths):
            let targets = try targetPaths(paths, resolver: resolver, database: database, root: root)
            var files: [(path: String, tags: TagSnapshot)] = []
            for p in targets { if let t = try? TagReader.read(path: root.absolute(p)) { files.append((p, t)) } }
            let taxonomy = fixers.contains(.genreAliases) ? try DataFiles.taxonomy() : nil
            edits = TagFixer.edits(fixers, files: files, taxonomy: taxonomy)
        case .analysis(let bpm, let replayGain, let paths):
            let targets = try paths.map { try targetPaths($0, resolver: resolver, database: database, root: root) }
            (edits, notes) = try AnalysisTags.edits(paths: targets, bpm: bpm, replayGain: replayGain, database: database,
                                                    rootPath: root.path)
        case .undo: edits = []
        }
        for n in notes { log(n) }
        let (plans, refusals) = try TagBatch.plan(edits.map { (input: $0.0, edit: $0.1) }, resolver: resolver,
                                                  database: database, allowCustom: request.allowCustom)
        var report: TagBatch.Report
        if request.dryRun {
            report = TagBatch.Report()
            report.dryRun = true
            report.diff = TagBatch.diff(plans)
            report.filesChanged = plans.count
            report.keysChanged = plans.reduce(0) { $0 + $1.changes.count }
        } else {
            report = try TagBatch.apply(plans, command: request.command, database: database, root: root,
                                        id3v2Version: request.id3v2Version)
        }
        report.refusals = refusals
        return report
    }

    /// The files a writing command names (exact paths only; refusals are fatal here), or the whole library.
    static func targetPaths(_ paths: [String]?, resolver: PathResolver, database: SpindleDatabase,
                            root: LibraryRoot) throws -> [String] {
        guard let paths, !paths.isEmpty else {
            return try database.writer.read { db in
                try String.fetchAll(db, sql: """
                    SELECT f.path FROM files f JOIN library_roots r ON r.id = f.root_id
                    WHERE r.path = ? AND f.status = 'present' ORDER BY f.path
                    """, arguments: [root.path])
            }
        }
        return try paths.map { input in
            // These files are written: only the path itself (strategies 1–2) may name one.
            let r = try resolver.resolve(input)
            guard let resolved = r.resolved, r.writeRefusal == nil else {
                throw ConfigurationError("\(input): \(r.writeRefusal ?? "not found in the library")")
            }
            return resolved
        }
    }

    static func recordScanIssues(_ scan: ScanReport, rootId: Int64, database: SpindleDatabase) throws {
        try database.writer.write { db in
            try db.execute(sql: "DELETE FROM scan_issues WHERE root_id = ?", arguments: [rootId])
            let now = Date()
            for issue in scan.skipped {
                try db.execute(sql: "INSERT OR REPLACE INTO scan_issues (root_id, path, reason, seen_at) VALUES (?, ?, ?, ?)",
                               arguments: [rootId, issue.relativePath, issue.reason, now])
            }
        }
    }

    /// A path given on the command line, as a path relative to the root; refuses anything outside it.
    public static func relativePath(_ path: String, root: LibraryRoot) throws -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        let normalised = URL(fileURLWithPath: absolute).standardizedFileURL.path
        if normalised.hasPrefix(root.path + "/") { return String(normalised.dropFirst(root.path.count + 1)) }
        // Not under the root as written: maybe already relative to the root.
        if !path.hasPrefix("/"), !path.split(separator: "/").contains("..") { return path }
        throw ConfigurationError("\(path) is outside the library root \(root.path)")
    }
}

func log(_ message: String) {
    FileHandle.standardError.write((message + "\n").data(using: .utf8)!)
}
