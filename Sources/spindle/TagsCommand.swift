import ArgumentParser
import Foundation
import Pipeline

struct TagsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tags", abstract: "Show and edit tags in batch: atomic, journaled, undoable.",
        discussion: """
            Keys are TagLib property names (TITLE, ARTIST, ALBUMARTIST, GENRE, DATE, TRACKNUMBER, BPM, \
            REPLAYGAIN_TRACK_GAIN, ...), written to each format's native frames. Paths are relative to the \
            library root, to the current folder inside it, or absolute inside it (a folder names every file \
            under it), or anything `spindle resolve` accepts (writes only its exact answers); nothing outside \
            the root is touched. Every batch journals the old values first and can be undone once; each file is \
            written beside itself and renamed over the original only when complete and read back.
            """,
        subcommands: [Show.self, Set.self, Apply.self, Fix.self, WriteAnalysis.self, Undo.self])

    /// Options every editing command shares.
    struct EditOptions: ParsableArguments {
        @Flag(name: .customLong("dry-run"), help: "Show the changes (file, key, old → new) without writing.")
        var dryRun = false
        @Flag(name: .customLong("allow-custom"), help: "Allow keys outside TagLib's known property names.")
        var allowCustom = false
        @Flag(help: "Print a JSON summary.") var json = false
        @Option(name: .customLong("id3v2"), help: "Write the ID3v2 tags of MP3, WAV and AIFF files as version 2.3 or 2.4 (default: keep each file's version).")
        var id3v2: Int?

        func validate() throws {
            if let v = id3v2, v != 3, v != 4 { throw ValidationError("--id3v2 takes 3 or 4") }
        }
    }

    static func run(_ source: TagfixRequest.Source, command: String, global: GlobalOptions, edit: EditOptions) throws {
        try runCommand {
            let settings = try global.settings()
            var request = RunRequest(kind: command, stages: [.tagfix, .scan, .tags])
            request.tagfix = TagfixRequest(source: source, command: command, dryRun: edit.dryRun, allowCustom: edit.allowCustom,
                                           id3v2Version: edit.id3v2 ?? 0)
            let outcome = try LibraryJobs.run(settings: settings, request: request, verbosity: global.verbosity)
            return report(outcome, json: edit.json, verbosity: global.verbosity)
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the tags of files.")
        @OptionGroup var global: GlobalOptions
        @Flag(help: "One JSON object per file.") var json = false
        @Argument(help: "Files or folders (paths as `spindle tags --help` describes them).") var paths: [String]

        func run() throws {
            try runCommand {
                let reports = try TagsShowReport.show(paths, settings: try global.settings(), json: json)
                for report in reports {
                    report.notes.forEach(printError)
                    if let output = report.output { print(output) }
                }
                let failed = reports.filter(\.failed).count
                return failed > 0 ? 3 : 0
            }
        }
    }

    struct Set: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Set or remove tags of files.")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var edit: EditOptions
        @Option(name: .customLong("set"), help: ArgumentHelp("KEY=VALUE (repeat a key for several values).", valueName: "KEY=VALUE"))
        var assignments: [String] = []
        @Option(name: .customLong("unset"), help: ArgumentHelp("A key to remove.", valueName: "KEY")) var removals: [String] = []
        @Argument(help: "Files or folders (paths as `spindle tags --help` describes them).") var paths: [String]

        func validate() throws {
            guard !assignments.isEmpty || !removals.isEmpty else { throw ValidationError("give --set KEY=VALUE or --unset KEY") }
            // A malformed --set is a usage error (exit 2), found before anything is opened.
            do { _ = try TagEditSources.assignments(assignments, unset: removals) } catch { throw ValidationError("\(error)") }
        }

        func run() throws {
            let change = try TagEditSources.assignments(assignments, unset: removals)
            try TagsCommand.run(.edits(paths.map { ($0, change) }), command: "tags set", global: global, edit: edit)
        }
    }

    struct Apply: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Apply a batch of edits: CSV (path,key,value) or JSON.",
            discussion: """
                CSV: one row per value; an empty value removes the key; several rows for one path and key give \
                several values; commas, semicolons or tabs separate the columns. JSON: [{"path", "key", "value"}] \
                or [{"path", "set": {KEY: value or [values]}, "unset": [KEY]}], a value being a string or a number.
                """)
        @OptionGroup var global: GlobalOptions
        @OptionGroup var edit: EditOptions
        @Argument(help: "The edits file.") var edits: String

        func run() throws {
            try TagsCommand.run(.file(edits), command: "tags apply \(edits)", global: global, edit: edit)
        }
    }

    struct Fix: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run built-in fixers over files (default: the whole library).",
            discussion: TagFixer.allCases.map { "\($0.rawValue): \($0.summary)" }.joined(separator: "\n"))
        @OptionGroup var global: GlobalOptions
        @OptionGroup var edit: EditOptions
        @Argument(help: "Fixer names, then optional files or folders.") var arguments: [String]

        func run() throws {
            var fixers: [TagFixer] = []
            var paths: [String] = []
            for a in arguments {
                if let f = TagFixer(rawValue: a), paths.isEmpty { fixers.append(f) } else { paths.append(a) }
            }
            guard !fixers.isEmpty else {
                throw ValidationError("name at least one fixer: \(TagFixer.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            try TagsCommand.run(.fixers(fixers, paths: paths.isEmpty ? nil : paths),
                                command: "tags fix \(fixers.map(\.rawValue).joined(separator: " "))", global: global, edit: edit)
        }
    }

    struct WriteAnalysis: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "write-analysis",
            abstract: "Write BPM, ReplayGain (album gain too), the key and (--mood) mood words from the analysis into the files' tags.",
            discussion: """
                BPM rounded; REPLAYGAIN_TRACK_GAIN as "-6.50 dB" (reference -18 LUFS), peaks linear; album gain \
                from all the album's gating blocks; Opus files get R128_TRACK_GAIN / R128_ALBUM_GAIN (Q7.8, \
                -23 LUFS). The key goes to INITIALKEY as "Am", "C#", "Ebm" (ID3 TKEY; MP4 freeform initialkey), and in \
                FLAC, Ogg, Opus and APE tags to KEY as well, the field Navidrome reads there; \
                a track whose key is unknown (atonal, silent) keeps its tag. A track in which no tempo is found \
                keeps its BPM tag too. Either tag goes when it is the one an earlier write-analysis wrote (an \
                earlier version read a steady sound's tempo, or a drone's key); undo puts it back. Without --bpm, --replaygain or \
                --key, all three. With --min-bpm-confidence 0.5, only tempi the analysis is sure of are written \
                (at 0.5 or more nearly every held-out track was right, as docs/analysis.md's figures for each test set \
                show; under it, a tempo can be twice or half the beat): what smart playlists filtering on BPM want. \
                --mood (asked for by name only, never part of the default three) writes MOOD, the field Navidrome \
                reads, from the tagger's mood words (happy, sad, mellow, chill, beautiful, sexy, catchy, party, easy \
                listening) at --min-mood-probability or more, at most three, most probable first; GENRE is never \
                touched. Files the tagger has not run on are counted and left as they are.
                """)
        @OptionGroup var global: GlobalOptions
        @OptionGroup var edit: EditOptions
        @Flag(help: "The tempo (BPM, rounded; ID3 TBPM, MP4 tmpo).") var bpm = false
        @Flag(help: "Track and album gain and peak (REPLAYGAIN_*, or R128_* for Opus).") var replaygain = false
        @Flag(help: "The musical key (INITIALKEY).") var key = false
        @Flag(help: "Mood words from the tagger (MOOD); needs the tagger's weights and an analysis with it.") var mood = false
        @Option(name: .customLong("min-mood-probability"),
                help: "Write a mood word only where the tagger gives it at least this probability (0-1; default 0.1).")
        var minMoodProbability = 0.1
        @Option(name: .customLong("min-bpm-confidence"),
                help: "Write the BPM only where bpm_confidence is at least this (0-1; default 0: every tempo).")
        var minBPMConfidence = 0.0
        @Argument(help: "Files or folders (default: every analysed file).") var paths: [String] = []

        func validate() throws {
            guard (0...1).contains(minBPMConfidence) else { throw ValidationError("--min-bpm-confidence takes 0 to 1") }
            guard (0...1).contains(minMoodProbability) else { throw ValidationError("--min-mood-probability takes 0 to 1") }
        }

        func run() throws {
            var fields: AnalysisTags.Fields = []
            if bpm { fields.insert(.bpm) }
            if replaygain { fields.insert(.replayGain) }
            if key { fields.insert(.key) }
            if mood { fields.insert(.mood) }
            try TagsCommand.run(.analysis(fields.isEmpty ? .all : fields, paths: paths.isEmpty ? nil : paths,
                                          minBPMConfidence: minBPMConfidence, minMoodProbability: minMoodProbability),
                                command: AnalysisTags.command, global: global, edit: edit)
        }
    }

    struct Undo: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Restore the tags a batch changed (once; a file changed since is reported, not clobbered).",
            discussion: """
                Batches undo newest first: a batch whose file a later batch wrote over is refused (exit 2), naming \
                the later batch to undo before it. `--last` always takes the newest.
                """)
        @OptionGroup var global: GlobalOptions
        @Flag(help: "Undo the latest batch of this library (another library in the database keeps its own).") var last = false
        @Flag(help: "Print a JSON summary.") var json = false
        @Argument(help: "The batch number.") var batch: Int64?

        func validate() throws {
            guard last != (batch != nil) else { throw ValidationError("give a batch number or --last") }
        }

        func run() throws {
            var options = try EditOptions.parse([])
            options.json = json
            try TagsCommand.run(.undo(batch: batch), command: "tags undo", global: global, edit: options)
        }
    }
}
