import ArgumentParser
import Foundation
import Library
import Pipeline
import Store

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
            let settings = try global.settings()
            let (database, root) = try LibraryJobs.open(settings)
            let resolver = try PathResolver(database: database, root: root)
            var unresolved = 0
            for path in paths {
                let r = try resolver.resolve(path)
                if r.resolved == nil { unresolved += 1 }
                if json {
                    print(ResolutionJSON.json(r).serialized())
                } else {
                    let input = TerminalText.safe(path)
                    if let resolved = r.resolved {
                        print("\(input) → \(TerminalText.safe(resolved)) (strategy \(r.strategy!))")
                    } else if let refused = r.refused {
                        print("\(input): refused: \(TerminalText.safe(refused))")
                    } else if !r.ambiguous.isEmpty {
                        print("\(input): ambiguous between \(TerminalText.safe(r.ambiguous.joined(separator: ", ")))")
                    } else {
                        print("\(input): not found (tried \(TerminalText.safe(r.tried.joined(separator: "; "))))")
                    }
                }
            }
            return unresolved > 0 ? 3 : 0
        }
    }
}
