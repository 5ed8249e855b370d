import ArgumentParser
import Foundation
import Pipeline

struct PlaylistsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "playlists", abstract: "Playlists for the servers to import.",
        subcommands: [Write.self])

    struct Write: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write one M3U8 per composite genre.",
            discussion: """
                One extended M3U8 per stored composite genre (run `spindle genres build` first): #EXTINF with \
                duration, artist and title, paths relative to the playlist file. DIR defaults to the config \
                file's [playlists] dir, else SPINDLE_PLAYLISTS_DIR, else "Spindle Playlists" at the top of the \
                library, where Navidrome's scan imports it; point it at Navidrome's PlaylistsPath or a \
                Jellyfin folder instead if you prefer. A file is rewritten only when its content changed, \
                through a temporary file and a rename; a playlist whose genre is gone is removed. Spindle never \
                overwrites or removes a file it did not write, or one edited since it wrote it.
                """)
        @OptionGroup var global: GlobalOptions
        @Flag(help: "Print a JSON summary.") var json = false
        @Argument(help: "Folder for the playlists.") var dir: String?

        func run() throws {
            try runCommand {
                var request = RunRequest(kind: "playlists write", stages: [.playlists])
                request.playlistsFolder = dir
                let outcome = try LibraryJobs.run(settings: try global.settings(), request: request, verbosity: global.verbosity)
                return report(outcome, json: json, verbosity: global.verbosity)
            }
        }
    }
}
