import ArgumentParser
import Foundation
import Pipeline

struct SimilarCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "similar",
        abstract: "The tracks that sound most like one track.",
        discussion: """
            Nearest tracks in the sonic space (\(SonicLibrary.weighting)), each with its distance (0 = identical, \
            about 1.4 between unrelated tracks) and a short why (shared key and tempo, the tags both stand out on). PATH goes through the four-strategy resolver, so a player's \
            or server's path works. Needs `spindle analyze` to have run. --json prints {"input", "resolved", \
            "neighbours": [{"path", "distance", "why"}]}. Exit code 3 when PATH resolves to no analysed track.
            """)

    @OptionGroup var global: GlobalOptions
    @Option(name: .short, help: "How many neighbours.") var n = 10
    @Flag(help: "Print JSON.") var json = false
    @Argument(help: "A track: a library path, a player's path, or a file name.") var path: String

    func validate() throws {
        guard n >= 1, n <= 10_000 else { throw ValidationError("-n must be between 1 and 10000") }
    }

    func run() throws {
        try runCommand {
            let report = try SimilarReport.run(path, count: n, settings: try global.settings())
            print(json ? report.json().serialized(pretty: true) : report.text())
            return report.isAnswered ? 0 : 3
        }
    }
}
