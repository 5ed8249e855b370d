import ArgumentParser
import Foundation
import Pipeline
import Reports

struct GenresCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "genres", abstract: "Composite genres and the genre report.",
        subcommands: [Build.self, Report.self])

    struct Build: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Rebuild composite genres from tags and analysis.",
            discussion: """
                Rules from data/genre-rules.toml (e.g. "{language} {family}", "{decade} {genre}") plus k-means \
                clusters (k by the silhouette of the clusters that can be genres, fixed seed) in the sonic \
                space (\(SonicLibrary.weighting)); each cluster is named from the tagger's tags that set it \
                apart ("Mellow Acoustic"), or without the tagger from the traits that do (brightness, \
                percussiveness, noisiness, texture, tonal clarity, a mode most members share, tempo span, \
                loudness); clusters that repeat a rule genre are merged into it; genres under `min_size` tracks \
                (data/genre-rules.toml) or the confidence threshold are dropped. \
                Every membership carries an explanation. Replaces the library's rows of composite_genres and \
                genre_memberships in one transaction; another library in the same database keeps its own.
                """)
        @OptionGroup var global: GlobalOptions
        @Flag(help: "Print a JSON summary.") var json = false

        func run() throws {
            try runCommand {
                // A run like any other: the lock, a `runs` row, the library's own files.
                let outcome = try LibraryJobs.run(settings: try global.settings(),
                                                  request: RunRequest(kind: "genres build", stages: [.genres]),
                                                  verbosity: global.verbosity)
                guard let report = outcome.genres else { return 1 }
                if json {
                    print(JSONValue.object([("genres", .from(report.genres)), ("memberships", .from(report.memberships)),
                                            ("dropped", .from(report.dropped))]).serialized(pretty: true))
                } else if global.verbosity > .quiet {
                    print("genres: \(report.genres) composite genres, \(report.memberships) memberships, "
                        + "\(report.dropped) candidates dropped, in \(String(format: "%.2f", report.seconds)) s")
                }
                return 0
            }
        }
    }

    struct Report: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Render the genre report (html, md, csv, json).",
            discussion: """
                HTML is one self-contained file with SVG charts (genres by size, tempo, loudness, decades), the \
                library map (PCA of the sonic space, coloured by cluster) and every genre's tracks with their explanations. JSON follows {"genres": [{"name", "kind", \
                "confidence", "size", "members": [{"path", "score", "explanation"}]}]}. The genres are the \
                library's (--library, or the database's only one); with several libraries and none named, all of them.
                """)
        @OptionGroup var global: GlobalOptions
        @Option(help: "html, md, csv or json.") var format = "html"
        @Option(name: .shortAndLong, help: "Output file (default: standard output).") var output: String?

        func run() throws {
            try runCommand {
                guard let format = ReportFormat(rawValue: format) else {
                    throw CommandFailure.usage("--format must be html, md, csv or json")
                }
                if let text = try GenresStage.report(settings: try global.settings(), format: format, output: output) {
                    print(text, terminator: "")
                } else if global.verbosity > .quiet {
                    printError("report written to \(output!)")
                }
                return 0
            }
        }
    }
}
