import ArgumentParser
import Foundation
import Pipeline

struct ResolveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resolve",
        abstract: "Resolve paths from players and servers to library files.",
        discussion: """
            Four strategies, in order: (1) the root joined with the path, (2) leading components stripped \
            one at a time (container prefixes such as /music/), (3) the file name looked up in the index, \
            several matches decided by their folders, (4) fuzzy word overlap of at least 50 %. Nothing \
            outside the library root ever resolves. --json prints {"input", "resolved", "strategy", \
            "tried"} per input (plus "ambiguous" and "refused" when they apply).
            """)

    @OptionGroup var global: GlobalOptions
    @Flag(help: "One JSON object per input.") var json = false
    @Argument(help: "Paths to resolve.") var paths: [String]

    func run() throws {
        try runCommand {
            let reports = try ResolveReport.resolve(paths, settings: try global.settings())
            for report in reports { print(json ? report.json().serialized() : report.text()) }
            return reports.allSatisfy(\.isResolved) ? 0 : 3
        }
    }
}
