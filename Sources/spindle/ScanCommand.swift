import ArgumentParser
import Pipeline

struct ScanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "Stage 1–2: index the library (new, changed, moved, missing files) and read tags.",
        discussion: """
            An unchanged file costs one stat; only new or changed files are read. A file gone from the library \
            is missing for 30 days (put back meanwhile, it keeps its analysis), then forgotten with its results \
            ([scan] forget_missing_after_days in the config file; 0 keeps missing files for good).
            """)

    @OptionGroup var global: GlobalOptions
    @Option(help: "Worker processes for reading tags (default: number of cores).") var jobs: Int?
    @Flag(help: "Print a JSON summary.") var json = false

    func run() throws {
        try runCommand {
            let outcome = try LibraryJobs.run(settings: try global.settings(jobs: jobs),
                                              request: RunRequest(kind: "scan", stages: [.scan, .tags]),
                                              verbosity: global.verbosity)
            return report(outcome, json: json, verbosity: global.verbosity)
        }
    }
}
