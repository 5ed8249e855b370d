import ArgumentParser
import Foundation
import Library
import Pipeline

struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure decode-only and full-analysis throughput (× real time) and each analyzer's share.",
        discussion: """
            Decodes every audio file under DIR (default: the library) once without analysis and once with \
            every analyzer, on one core, in the same run, then again on --jobs cores. No database is used.
            """)

    @OptionGroup var global: GlobalOptions
    @Option(help: "Parallel jobs for the multi-core pass (default: number of cores).") var jobs: Int?
    @Option(help: "Passes over the files (more passes, steadier figures).") var rounds = 1
    @Flag(help: "Print one JSON object.") var json = false
    @Option(help: ArgumentHelp("Only these analyzers: loudness,silence,tempo,frames.", valueName: "list"))
    var only: String?
    @Argument(help: "Folder or files to measure.") var paths: [String] = []

    func run() throws {
        try runCommand {
            let settings = try global.settings(jobs: jobs, only: only.map { [$0] })
            let targets = paths.isEmpty ? [try settings.requireLibrary()] : paths
            var files: [String] = []
            for target in targets {
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: target, isDirectory: &isDirectory) else {
                    throw CommandFailure.usage("\(target) does not exist")
                }
                if isDirectory.boolValue {
                    let root = try LibraryRoot(path: target)
                    LibraryWalker(root: root.path).walk(file: { files.append(root.absolute($0.relativePath)) },
                                                        skipped: { _ in })
                } else {
                    files.append(target)
                }
            }
            guard !files.isEmpty else { throw CommandFailure.usage("no audio files found") }
            let report = BenchmarkReport.run(files: files, options: settings.analysis, jobs: settings.jobs, rounds: rounds)
            print(json ? report.json().serialized(pretty: true) : report.text())
            return 0
        }
    }
}
