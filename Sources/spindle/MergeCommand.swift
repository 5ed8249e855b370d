import ArgumentParser
import Foundation
import Pipeline

struct MergeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Fold shard databases (from `analyze --shard K/N`) into one.",
        discussion: """
            Each shard is merged in one transaction: a merge killed midway leaves the target as it was before \
            that shard, and running it again finishes the job. Newer results win (a file's newer observation, \
            tags and analysis of the file's present content); merging a shard twice changes nothing. Shards of \
            another schema version or another library are refused. The target is --into, else --db. Build \
            genres and reports on the merged database afterwards.
            """)

    @OptionGroup var global: GlobalOptions
    @Option(help: ArgumentHelp("The database to merge into (default: --db).", valueName: "file")) var into: String?
    @Flag(help: "Print a JSON summary.") var json = false
    @Argument(help: "Shard databases.") var shards: [String]

    func validate() throws {
        guard !shards.isEmpty else { throw ValidationError("name at least one shard database") }
    }

    func run() throws {
        try runCommand {
            let report = try ShardMerge.run(shards: shards, into: into, settings: try global.settings())
            print(json ? report.json().serialized(pretty: true) : report.text())
            return 0
        }
    }
}
