import ArgumentParser

/// Commands of DESIGN's list whose implementation lands with a later change; they parse their arguments
/// as the contract says and explain that they are not available in this build.
func notInThisBuild(_ command: String) -> CommandFailure {
    .usage("`spindle \(command)` is not available in this build yet")
}

struct TagsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tags", abstract: "Show and edit tags in batch: atomic, journaled, undoable.",
        subcommands: [Show.self, Set.self, Apply.self, Fix.self, WriteAnalysis.self, Undo.self])

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the tags of files.")
        @OptionGroup var global: GlobalOptions
        @Flag var json = false
        @Argument var paths: [String]
        func run() throws { try runCommand { throw notInThisBuild("tags show") } }
    }
    struct Set: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Set or remove tags.")
        @OptionGroup var global: GlobalOptions
        @Option(name: .customLong("set"), help: "KEY=VALUE") var assignments: [String] = []
        @Option(name: .customLong("unset"), help: "KEY") var removals: [String] = []
        @Flag(name: .customLong("dry-run")) var dryRun = false
        @Argument var paths: [String]
        func run() throws { try runCommand { throw notInThisBuild("tags set") } }
    }
    struct Apply: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Apply a batch of edits (CSV path,key,value or JSON).")
        @OptionGroup var global: GlobalOptions
        @Flag(name: .customLong("dry-run")) var dryRun = false
        @Argument var edits: String
        func run() throws { try runCommand { throw notInThisBuild("tags apply") } }
    }
    struct Fix: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Run built-in fixers (whitespace, genre aliases, album artist, numbers).")
        @OptionGroup var global: GlobalOptions
        @Flag(name: .customLong("dry-run")) var dryRun = false
        @Argument var fixersAndPaths: [String]
        func run() throws { try runCommand { throw notInThisBuild("tags fix") } }
    }
    struct WriteAnalysis: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "write-analysis",
                                                        abstract: "Write BPM and ReplayGain results into the files' tags.")
        @OptionGroup var global: GlobalOptions
        @Flag var bpm = false
        @Flag var replaygain = false
        @Flag(name: .customLong("dry-run")) var dryRun = false
        @Argument var paths: [String] = []
        func run() throws { try runCommand { throw notInThisBuild("tags write-analysis") } }
    }
    struct Undo: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Undo a batch of tag edits.")
        @OptionGroup var global: GlobalOptions
        @Flag var last = false
        @Argument var batch: String?
        func run() throws { try runCommand { throw notInThisBuild("tags undo") } }
    }
}

