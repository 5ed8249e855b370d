import ArgumentParser
import Foundation
import Pipeline

struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a pipeline file from Pipelines/ (\(PipelineFile.shippedNames)).",
        discussion: """
            A pipeline file names its stages and may set library, database, jobs, [analysis] and [runtime] \
            like the config file; options given here override the file. One run per database: a second \
            run exits with code 4 naming the run that holds the lock.
            """)

    @OptionGroup var global: GlobalOptions
    @Flag(help: "Redo work whose results are current.") var force = false
    @Option(help: "Worker processes (default: number of cores).") var jobs: Int?
    @Flag(help: "Print a JSON summary.") var json = false
    @Option(help: ArgumentHelp("Only shard K of N (K from 1); genres and reports wait for `spindle merge`.", valueName: "K/N"))
    var shard: String?
    @Argument(help: "The pipeline file (TOML), or the name of one that comes with Spindle (\(PipelineFile.shippedNames)).")
    var pipeline: String

    func run() throws {
        try runCommand {
            let file = try PipelineFile.load(path: pipeline)
            let settings = try file.settings(global.overrides(jobs: jobs))
            global.sayTaggerNotice(settings)
            var request = RunRequest(kind: file.name, stages: file.stages, force: force || file.force)
            request.reportFormat = file.reportFormat
            request.reportOutput = file.reportOutput
            request.tagfix = file.tagfix
            request.rescan = file.rescan
            request.navidromeDB = file.navidromeDB
            request.jellyfin = file.jellyfin
            try request.shard(shard)
            let outcome = try LibraryJobs.run(settings: settings, request: request, verbosity: global.verbosity)
            return report(outcome, json: json, verbosity: global.verbosity)
        }
    }
}
