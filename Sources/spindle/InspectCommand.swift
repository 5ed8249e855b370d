import ArgumentParser
import Foundation
import Pipeline

struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Decode and analyse files directly, without a database.",
        discussion: """
            With --json, one JSON object per file and line, with exactly these keys (null where not \
            applicable): \(InspectReport.keys.joined(separator: ", ")).
            """)

    @OptionGroup var global: GlobalOptions
    @Flag(help: "One JSON object per line.") var json = false
    @Option(help: "Files analysed in parallel (default: number of cores).") var jobs: Int?
    @Option(help: ArgumentHelp(Settings.onlyHelp, valueName: "list"))
    var only: String?
    @Argument(help: "Audio files, or folders (every audio file under them, as a scan finds them).") var files: [String]

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("give at least one file") }
    }

    func run() throws {
        try runCommand {
            let settings = try global.settings(jobs: jobs, only: only.map { [$0] })
            if !json { global.sayTaggerNotice(settings) }
            // Each file's result as soon as it and those before it are in, one write per result: several
            // `inspect` processes sharing a pipe (`xargs -P`) never cut into each other's lines, as a full
            // 4 KiB print buffer flushed mid-line did.
            let outcomes = try InspectReport.inspect(files, settings: settings) { outcome in
                try writeStandardOutput((json ? InspectReport.json(outcome).serialized() : InspectReport.text(outcome)) + "\n")
            }
            return outcomes.contains { $0.error != nil } ? 3 : 0
        }
    }
}
