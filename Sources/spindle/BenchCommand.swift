import ArgumentParser
import Foundation
import Pipeline

struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure decode-only and full-analysis throughput (× real time) and each analyzer's share.",
        discussion: """
            Decodes every audio file under DIR (default: the library) once without analysis and once with \
            every analyzer, in one worker process as `analyze` runs them, in the same run, then again on \
            --jobs workers. No database is used; nothing under DIR is changed. With --sonic N, no audio: a \
            synthetic library of N tracks (feature vectors, tagger embeddings and tags) in a temporary database, timing `similar` queries, a \
            mix and `genres build` on it, with peak memory.
            """)

    @OptionGroup var global: GlobalOptions
    @Option(help: "Parallel jobs for the multi-core pass (default: number of cores).") var jobs: Int?
    @Option(help: "Passes over the files (more passes, steadier figures).") var rounds = 1
    @Flag(help: "Print one JSON object.") var json = false
    @Option(help: ArgumentHelp(Settings.onlyHelp, valueName: "list"))
    var only: String?
    @Option(help: "Benchmark similarity and clustering on this many synthetic tracks instead of audio.") var sonic: Int?
    @Option(name: .customLong("keep-library"), help: ArgumentHelp(
        "With --sonic: leave the synthetic library in this new folder (DIR/spindle.db, root DIR/music), with Navidrome and Jellyfin ids, for `serve` benchmarks.",
        valueName: "dir"))
    var keepLibrary: String?
    @Argument(help: "Folder or files to measure.") var paths: [String] = []

    func run() throws {
        try runCommand {
            if let sonic {
                guard sonic >= 10, sonic <= 2_000_000 else { throw CommandFailure.usage("--sonic takes 10...2000000 tracks") }
                if let keepLibrary, FileManager.default.fileExists(atPath: keepLibrary) {
                    throw CommandFailure.usage("--keep-library \(keepLibrary) exists; give a new folder")
                }
                let report = try SonicBenchmark.run(tracks: sonic, keep: keepLibrary.map { Settings.expandingHome($0) })
                print(json ? report.json().serialized(pretty: true) : report.text())
                return 0
            }
            let settings = try global.settings(jobs: jobs, only: only.map { [$0] })
            let files = try BenchmarkReport.files(in: paths.isEmpty ? [try settings.requireLibrary()] : paths)
            let report = try BenchmarkReport.run(files: files, settings: settings, rounds: rounds)
            print(json ? report.json().serialized(pretty: true) : report.text())
            return 0
        }
    }
}
