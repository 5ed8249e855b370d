import ArgumentParser
import Foundation
import Jellyfin
import Navidrome
import Pipeline

struct JellyfinCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "jellyfin", abstract: "Jellyfin integration.",
                                                    subcommands: [Import.self])

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Map Jellyfin's audio items and artists to library files (read-only, through its API).",
            discussion: """
                Reads every audio item from Jellyfin's /Items API and stores Jellyfin id → file in the table \
                jellyfin_tracks, and the artists Jellyfin credits each with, for the AudioMuse-AI API of `spindle serve` \
                (the Jellyfin plugin's Instant Mix). Paths as Jellyfin sees them (/music/... in a container) go through \
                the resolver; unresolved items are listed. The API key (Jellyfin's Dashboard → API Keys) is read from \
                --api-key-file or $\(JellyfinKey.variable), never from the command line.
                """)
        @OptionGroup var global: GlobalOptions
        @Option(help: "Jellyfin's address, e.g. http://localhost:8096.") var url: String
        @Option(name: .customLong("api-key-file"), help: "A file whose first line is the API key (chmod 600 it).")
        var apiKeyFile: String?

        func run() throws {
            try runCommand {
                guard let given = URL(string: url), given.scheme == "http" || given.scheme == "https", given.host != nil else {
                    throw CommandFailure.usage("--url must be an http(s) address")
                }
                let key: String
                do { key = try JellyfinKey.read(file: apiKeyFile, warn: printError) } catch let error as JellyfinKey.Missing {
                    throw CommandFailure.usage(error.description)
                }
                let settings = try global.settings()
                // It replaces jellyfin_tracks: one writer at a time, as analyze, run and merge (exit 4 while one runs).
                let lock = try RunLock(databasePath: settings.databasePath, command: "jellyfin import")
                defer { withExtendedLifetime(lock) {} }
                let (database, root) = try LibraryJobs.open(settings)
                let client = JellyfinClient(baseURL: given, apiKey: key)
                let items: [JellyfinClient.Item]
                do {
                    items = try client.audioItems { read, total in
                        if global.verbosity == .verbose { printError("jellyfin: \(read) of \(total.map(String.init) ?? "?") items read") }
                    }
                } catch let failure as JellyfinClient.Failure {
                    throw CommandFailure.fatal("jellyfin import failed: \(failure.description)")
                }
                let report = try JellyfinImport.run(items: items, database: database, root: root)
                print(report.summary)
                if report.passedOver > 0 {
                    print("passed over: \(report.passedOver) item(s) without a file path, or with an id or path longer than any real one")
                }
                ImportListing.print(byStrategy: report.byStrategy, unresolved: report.unresolved, verbosity: global.verbosity)
                return report.unresolved.isEmpty ? 0 : 3
            }
        }
    }
}
