import Foundation
import Library
import Store

/// What the stages of one run share: the open database and library, the request, and the outcome each stage
/// adds its report to.
final class RunState {
    let context: RunContext
    let request: RunRequest
    let scanner: LibraryScanner
    var outcome: LibraryJobs.Outcome
    private var chosen: [String]??

    init(context: RunContext, request: RunRequest, scanner: LibraryScanner, outcome: LibraryJobs.Outcome) {
        self.context = context
        self.request = request
        self.scanner = scanner
        self.outcome = outcome
    }

    /// The files `PATH...` named, nil for the whole library: looked up once, after the scan, which indexes
    /// files new tonight.
    func selected() throws -> [String]? {
        if let chosen { return chosen }
        let found = try request.paths.map { try LibraryJobs.select($0, root: root, database: database) }
        chosen = .some(found)
        return found
    }

    var database: SpindleDatabase { context.database }
    var root: LibraryRoot { context.root }
    var rootId: Int64 { context.rootId }
}

/// One stage of a run, as beets' pipeline or Mixxx's analyzer list has them: it runs once, puts its report in
/// the run's outcome, and says whether the run goes on (a tag batch that only showed what it would change ends it).
protocol RunStage {
    var stage: Stage { get }
    func run(_ state: RunState) throws -> Bool
}

extension RunStage {
    /// Genres, reports and playlists describe a whole library: a shard's run leaves them to the merged database.
    var needsTheWholeLibrary: Bool {
        stage == .genres || stage == .report || stage == .playlists || stage == .navidromeImport || stage == .jellyfinImport
    }
}

/// The stages a request names, in `Stage`'s order.
enum RunStages {
    static func list(for request: RunRequest) -> [any RunStage] {
        Stage.allCases.filter(request.stages.contains).map { stage -> any RunStage in
            switch stage {
            case .tagfix: return TagfixRunStage()
            case .scan: return ScanRunStage()
            case .tags: return TagsRunStage()
            case .analyze: return AnalyzeRunStage()
            case .navidromeImport: return NavidromeImportRunStage()
            case .jellyfinImport: return JellyfinImportRunStage()
            case .genres: return GenresRunStage()
            case .report: return ReportRunStage()
            case .playlists: return PlaylistsRunStage()
            }
        }
    }
}

struct TagfixRunStage: RunStage {
    let stage = Stage.tagfix

    func run(_ state: RunState) throws -> Bool {
        guard let tagfix = state.request.tagfix else { return true }
        let report = try LibraryJobs.runTagfix(tagfix, scanner: state.scanner, database: state.database, root: state.root,
                                               reads: .workers(state.context.settings))
        state.outcome.tagfix = report
        try LibraryJobs.journal(report, in: state.context.journal, database: state.database, root: state.root)
        return !report.dryRun
    }
}

struct ScanRunStage: RunStage {
    let stage = Stage.scan

    func run(_ state: RunState) throws -> Bool {
        let scan = try state.scanner.scan()
        try LibraryJobs.recordScanIssues(scan, rootId: state.rootId, database: state.database)
        if state.context.verbosity == .verbose { for s in scan.skipped { logLine("skipped \(s.relativePath): \(s.reason)") } }
        state.outcome.scan = scan
        return true
    }
}

struct TagsRunStage: RunStage {
    let stage = Stage.tags

    func run(_ state: RunState) throws -> Bool {
        state.outcome.tags = try TagStage.run(state.context, only: state.selected())
        return true
    }
}

struct AnalyzeRunStage: RunStage {
    let stage = Stage.analyze

    func run(_ state: RunState) throws -> Bool {
        state.outcome.analysis = try AnalyzeStage.run(state.context, only: state.selected())
        return true
    }
}

struct GenresRunStage: RunStage {
    let stage = Stage.genres

    func run(_ state: RunState) throws -> Bool {
        state.outcome.genres = try GenresStage.build(database: state.database, rootId: state.rootId)
        return true
    }
}

struct ReportRunStage: RunStage {
    let stage = Stage.report

    func run(_ state: RunState) throws -> Bool {
        let request = state.request
        let text = try GenresStage.report(database: state.database, rootId: state.rootId, format: request.reportFormat,
                                          output: request.reportOutput)
        if let text { print(text, terminator: "") }
        state.outcome.reportWritten = request.reportOutput ?? "standard output"
        return true
    }
}

struct PlaylistsRunStage: RunStage {
    let stage = Stage.playlists

    func run(_ state: RunState) throws -> Bool {
        let folder = PlaylistsStage.folder(state.request.playlistsFolder, settings: state.context.settings, root: state.root)
        let report = try PlaylistsStage.run(database: state.database, root: state.root, rootId: state.rootId, folder: folder)
        state.outcome.playlists = report
        if state.context.verbosity > .quiet {
            for s in report.skipped { logLine("playlist \(s.file): \(s.reason)") }
            for path in report.unlisted {
                logLine(TerminalText.safe("in no playlist: \(path) (a line break in its name cannot be written in M3U)"))
            }
        }
        return true
    }
}
