import ArgumentParser
import Pipeline

struct AnalyzeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "analyze",
        abstract: "Stage 3: analyse files whose results are missing or stale (scans first).",
        discussion: """
            Each track is decoded once and fed to every enabled analyzer: loudness (EBU R128), silence, \
            tempo and visualiser frames. Results are current while the file's content and the analyzer \
            version are unchanged; --force redoes them anyway.
            """)

    @OptionGroup var global: GlobalOptions
    @Flag(help: "Re-analyse even files whose results are current.") var force = false
    @Option(help: ArgumentHelp("Only these analyzers: loudness,silence,tempo,frames.", valueName: "list"))
    var only: String?
    @Option(help: "Files analysed in parallel (default: number of cores).") var jobs: Int?
    @Argument(help: "Only these files (relative to the library root, or absolute inside it).") var paths: [String] = []

    func run() throws {
        try runCommand {
            let settings = try global.settings(jobs: jobs, only: only.map { [$0] })
            let outcome = try LibraryJobs.run(settings: settings, analyze: true, force: force,
                                              paths: paths.isEmpty ? nil : paths, verbosity: global.verbosity)
            if global.verbosity > .quiet { print(outcome.summary()) }
            return outcome.failures > 0 ? 3 : 0
        }
    }
}
