import ArgumentParser
import Foundation
import Pipeline

struct MixCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mix",
        abstract: "An instant mix from a seed track, in a smooth order.",
        discussion: """
            Takes the seed's nearest tracks and orders them so that each follows the last smoothly: close in \
            timbre, tempo within 4 % (or at half or double), keys compatible on the circle of fifths (same, \
            relative, a fifth apart), never the same artist twice in a row. The seed comes first. A library \
            that runs out of tracks that may follow gives a shorter mix, and a line on standard error says so. \
            --format m3u (default) prints an extended M3U with absolute paths, ready for a player; json \
            prints {"seed", "resolved", "tracks": [{"path", "artist", "title", "bpm", "key", "distance", \
            "transition"}]}, with "shortfall" when the mix is short. Exit code 3 when SEED resolves to no analysed track.
            """)

    @OptionGroup var global: GlobalOptions
    @Option(name: .short, help: "How many tracks, the seed included.") var n = 25
    @Option(help: "m3u or json.") var format: String = "m3u"
    @Argument(help: "The seed track: a library path, a player's path, or a file name.") var seed: String

    func validate() throws {
        guard n >= 1, n <= 1_000 else { throw ValidationError("-n must be between 1 and 1000") }
        guard MixReport.Format(rawValue: format) != nil else { throw ValidationError("--format must be m3u or json") }
    }

    func run() throws {
        try runCommand {
            let report = try MixReport.run(seed, count: n, settings: try global.settings())
            if report.query.problem != nil, format == "m3u" { printError(report.query.failure) }
            if let guess = report.query.guess, let seed = report.query.resolved, !global.quiet {
                printError("mix of \(TerminalText.safe(seed)) (\(guess))")
            }
            if let shortfall = report.shortfall, !global.quiet { printError(shortfall) }
            print(report.render(MixReport.Format(rawValue: format)!), terminator: format == "m3u" ? "" : "\n")
            return report.isAnswered ? 0 : 3
        }
    }
}
