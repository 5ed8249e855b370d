import ArgumentParser
import Pipeline

struct ScanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "Stage 1–2: index the library (new, changed, moved, missing files) and read tags.",
        discussion: "An unchanged file costs one stat; only new or changed files are read.")

    @OptionGroup var global: GlobalOptions
    @Option(help: "Worker threads for reading tags (default: number of cores).") var jobs: Int?

    func run() throws {
        try runCommand {
            let outcome = try LibraryJobs.run(settings: try global.settings(jobs: jobs), analyze: false,
                                              verbosity: global.verbosity)
            if global.verbosity > .quiet { print(outcome.summary()) }
            return outcome.failures > 0 ? 3 : 0
        }
    }
}
