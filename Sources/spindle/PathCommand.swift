import ArgumentParser
import Foundation
import Pipeline

struct PathCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "path",
        abstract: "A journey from one track to another through the sonic space.",
        discussion: """
            N real tracks, START first and END last, each near the point as far along the straight line between \
            the two in the sonic space (timbre, rhythm, tonality), each following the last as smoothly as in a \
            mix: close in timbre, tempo within 4 % (or at half or double), keys compatible. No track or recording \
            comes twice, and no artist twice in a row; a library that runs out of such tracks gives a shorter \
            path, and a line on standard error says so. --format m3u (default) prints an extended M3U with \
            absolute paths; json prints {"start", "end", "resolved_start", "resolved_end", "tracks": [{"path", \
            "artist", "title", "bpm", "key", "distance", "transition"}]}, each distance from the track before. \
            Exit code 3 when an end resolves to no analysed track.
            """)

    @OptionGroup var global: GlobalOptions
    @Option(name: .short, help: "How many tracks, both ends included.") var n = 25
    @Option(help: "m3u or json.") var format: String = "m3u"
    @Argument(help: "The first track: a library path, a player's path, or a file name.") var start: String
    @Argument(help: "The last track, as START.") var end: String

    func validate() throws {
        guard n >= 2, n <= 1_000 else { throw ValidationError("-n must be between 2 and 1000") }
        guard MixReport.Format(rawValue: format) != nil else { throw ValidationError("--format must be m3u or json") }
    }

    func run() throws {
        try runCommand {
            let report = try PathReport.run(from: start, to: end, count: n, settings: try global.settings())
            if format == "m3u" { for failure in report.failures { printError(failure) } }
            if let shortfall = report.shortfall, !global.quiet { printError(shortfall) }
            print(report.render(MixReport.Format(rawValue: format)!), terminator: format == "m3u" ? "" : "\n")
            return report.isAnswered ? 0 : 3
        }
    }
}
