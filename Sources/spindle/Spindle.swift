import ArgumentParser
import Foundation
import Pipeline


struct Spindle: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "spindle",
        abstract: "Batch analysis and indexing for personal music libraries.",
        discussion: """
            Spindle scans a music library into an SQLite index, reads tags, and computes tempo, key, silence \
            boundaries, EBU R128 loudness, a sound profile and visualiser frames, decoding each track once. \
            From those it builds composite genres, similar tracks, instant mixes and playlists. Players and \
            servers (Navidrome, Jellyfin, any Subsonic server) read the results from the database, or from \
            `spindle serve`.

            The library comes from --library, MUSIC_DIR or the config file; the database from --db, \
            SPINDLE_DB or the config file (default: $XDG_DATA_HOME/spindle/spindle.db).

            Exit codes: 0 success, 1 fatal error, 2 usage or configuration error, 3 finished but some \
            files failed, 4 another run holds the lock.
            """,
        version: SpindleVersion.text,
        subcommands: [
            ScanCommand.self, AnalyzeCommand.self, RunCommand.self, InspectCommand.self, ResolveCommand.self,
            TagsCommand.self, GenresCommand.self, FramesCommand.self, BenchCommand.self, StatusCommand.self,
            SimilarCommand.self, MixCommand.self, PathCommand.self, PlaylistsCommand.self, ServeCommand.self,
            NavidromeCommand.self, JellyfinCommand.self, MergeCommand.self, WorkerCommand.self,
        ]
    )
}

/// Options every command accepts, before or after the command name.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Database file (env SPINDLE_DB).", valueName: "file"))
    var db: String?

    @Option(name: .long, help: ArgumentHelp("Library root folder (env MUSIC_DIR).", valueName: "dir"))
    var library: String?

    @Option(name: .long, help: ArgumentHelp("Config file (TOML).", valueName: "file"))
    var config: String?

    @Flag(name: .shortAndLong, help: "Print only errors.")
    var quiet = false

    @Flag(name: .shortAndLong, help: "Print every file's problems as they happen.")
    var verbose = false

    var verbosity: Verbosity { quiet ? .quiet : (verbose ? .verbose : .normal) }

    func overrides(jobs: Int? = nil, only: [String]? = nil) -> Settings.Overrides {
        .init(database: db, library: library, config: config, jobs: jobs, only: only)
    }

    func settings(jobs: Int? = nil, only: [String]? = nil) throws -> Settings {
        try Settings.resolve(overrides(jobs: jobs, only: only))
    }

    /// Says once, on standard error, that the tagger is off and how to enable it (not under --quiet).
    func sayTaggerNotice(_ settings: Settings) {
        if let notice = settings.taggerNotice, verbosity > .quiet { printError(notice) }
    }
}

/// Errors that end a command with DESIGN's exit codes.
enum CommandFailure: Error, CustomStringConvertible {
    case usage(String)
    case fatal(String)

    var description: String {
        switch self {
        case .usage(let m), .fatal(let m): return m
        }
    }
}

/// Runs a command body, mapping errors to messages and exit codes (2 usage, 1 fatal).
func runCommand(_ body: () throws -> Int32) throws {
    let code: Int32
    do {
        code = try body()
    } catch let failure as CommandFailure {
        printError(failure.description)
        if case .usage = failure { throw ExitCode(2) }
        throw ExitCode(1)
    } catch let exit as ExitCode {
        throw exit
    } catch let stop as Interrupted {
        // What the run saved, then the end a signal gives (a shell's 130 or 143, systemd's clean stop).
        writeStandardError(stop.summary + "\n")
        StopRequest.end(by: stop.signal)
    } catch is StandardOutputClosed {
        // The end `cat` or `grep` meets in `… | head`: by SIGPIPE, silently (a shell's 141).
        StopRequest.end(by: SIGPIPE)
    } catch {
        printError(DatabaseFailure.explain(error) ?? "\(error)")
        throw ExitCode(ExitStatus.code(for: error))
    }
    if code != 0 { throw ExitCode(code) }
}

func printError(_ message: String) {
    writeStandardError("spindle: " + message + "\n")
}

/// Prints a run's summary (text, or JSON with --json) and gives DESIGN's exit code: 3 when files failed.
func report(_ outcome: LibraryJobs.Outcome, json: Bool, verbosity: Verbosity) -> Int32 {
    if json {
        print(outcome.json().serialized(pretty: true))
    } else if verbosity > .quiet {
        print(outcome.summary())
    }
    return outcome.failures > 0 ? 3 : 0
}
