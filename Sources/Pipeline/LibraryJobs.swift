import Foundation
import Library
import Store

/// The library-wide jobs behind `scan` and `analyze`: each is one journaled run.
public enum LibraryJobs {
    public struct Outcome: Sendable {
        public var runId: Int64
        public var scan: ScanReport
        public var tags: TagStage.Report
        public var analysis: AnalyzeStage.Report?
        /// Files that failed at some stage in this run (exit code 3 when non-zero).
        public var failures: Int

        public func summary() -> String {
            var parts = ["scan: \(scan.seen) audio files (\(scan.new) new, \(scan.changed) changed, \(scan.moved) moved, "
                + "\(scan.missing) missing, \(scan.unchanged) unchanged) in \(String(format: "%.2f", scan.seconds)) s"]
            if !scan.skipped.isEmpty { parts.append("skipped: \(scan.skipped.count) entries (see --verbose)") }
            parts.append("tags: \(tags.read) read, \(tags.failed) failed")
            if let a = analysis {
                let speed = a.seconds > 0 ? String(format: ", %.0f× real time", a.audioSeconds / a.seconds) : ""
                parts.append("analyze: \(a.analysed) analysed (\(a.partial) partial), \(a.failed) failed\(speed)")
            }
            return parts.joined(separator: "\n")
        }
    }

    public static func open(_ settings: Settings) throws -> (SpindleDatabase, LibraryRoot) {
        let root = try LibraryRoot(path: try settings.requireLibrary())
        let database = try SpindleDatabase(path: settings.databasePath)
        return (database, root)
    }

    /// Stages 1–2 (and 3 when `analyze` is set) in one run.
    public static func run(settings: Settings, analyze: Bool, force: Bool = false, paths: [String]? = nil,
                           verbosity: Verbosity) throws -> Outcome {
        let (database, root) = try open(settings)
        let journal = try RunJournal(database: database, kind: analyze ? (force ? "reanalyze" : "analyze") : "scan")
        do {
            let scanner = LibraryScanner(database: database, root: root)
            let scan = try scanner.scan()
            if verbosity == .verbose {
                for s in scan.skipped { log("skipped \(s.relativePath): \(s.reason)") }
            }
            let tags = try TagStage.run(database: database, root: root, rootId: scan.rootId, jobs: settings.jobs,
                                        journal: journal, verbosity: verbosity)
            var analysis: AnalyzeStage.Report?
            if analyze {
                let selected = try paths.map { try $0.map { try relativePath($0, root: root) } }
                analysis = try AnalyzeStage.run(database: database, root: root, rootId: scan.rootId, settings: settings,
                                                force: force, only: selected, journal: journal, verbosity: verbosity)
            }
            let failures = tags.failed + (analysis?.failed ?? 0)
            let outcome = Outcome(runId: journal.runId, scan: scan, tags: tags, analysis: analysis, failures: failures)
            try journal.finish(status: "completed", summary: outcome.summary())
            return outcome
        } catch {
            try? journal.finish(status: "failed", summary: "\(error)")
            throw error
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
