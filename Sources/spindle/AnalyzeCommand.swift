import ArgumentParser
import Pipeline

struct AnalyzeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "analyze",
        abstract: "Stage 3: analyse files whose results are missing or stale (scans first).",
        discussion: """
            Each track is decoded once and fed to every enabled analyzer: loudness (EBU R128), silence, \
            tempo, visualiser frames, and features (the key and the sound profile that genres, similar \
            and mix use). Results are current while the file's content and the analyzer version are \
            unchanged; --force redoes them anyway, and reads their tags again: a tag edited in place by a \
            tool that keeps the file's time (Picard's "preserve timestamps") leaves the file as no scan can \
            tell from before.
            """)

    @OptionGroup var global: GlobalOptions
    @Flag(help: "Re-analyse even files whose results are current, and read their tags again.") var force = false
    @Option(help: ArgumentHelp(Settings.onlyHelp, valueName: "list"))
    var only: String?
    @Option(help: "Worker processes (default: number of cores).") var jobs: Int?
    @Flag(help: "Print a JSON summary.") var json = false
    @Option(help: ArgumentHelp("Only shard K of N (K from 1): files are split by a hash of their path; merge the shard databases with `spindle merge`.",
                               valueName: "K/N"))
    var shard: String?
    @Argument(help: "Only these files or folders (relative to the library root, to the current folder inside it, or absolute inside it).") var paths: [String] = []

    func run() throws {
        try runCommand {
            let settings = try global.settings(jobs: jobs, only: only.map { [$0] })
            global.sayTaggerNotice(settings)
            var request = RunRequest(kind: force ? "reanalyze" : "analyze", stages: [.scan, .tags, .analyze],
                                     force: force, paths: paths.isEmpty ? nil : paths)
            try request.shard(shard)
            let outcome = try LibraryJobs.run(settings: settings, request: request, verbosity: global.verbosity)
            return report(outcome, json: json, verbosity: global.verbosity)
        }
    }
}
