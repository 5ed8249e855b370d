import ArgumentParser
import Foundation
import Pipeline
import Store

struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "What the database holds: files, analyses, failures, recent runs.")

    @OptionGroup var global: GlobalOptions
    @Flag(help: "Print one JSON object.") var json = false

    func run() throws {
        try runCommand {
            let settings = try global.settings()
            guard FileManager.default.fileExists(atPath: settings.databasePath) else {
                throw CommandFailure.usage("no database at \(settings.databasePath): run `spindle scan` first")
            }
            let report = try StatusReport.load(database: try SpindleDatabase(path: settings.databasePath))
            print(json ? report.json().serialized(pretty: true) : report.text())
            return 0
        }
    }
}
