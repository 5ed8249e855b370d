import ArgumentParser
import Foundation
import Pipeline

struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "What the database holds: files, analyses, failures, recent runs.")

    @OptionGroup var global: GlobalOptions
    @Flag(help: "Print one JSON object.") var json = false

    func run() throws {
        try runCommand {
            let settings = try global.settings()
            if !json { global.sayTaggerNotice(settings) }
            let report = try StatusReport.load(settings: settings)
            print(json ? report.json().serialized(pretty: true) : report.text())
            return 0
        }
    }
}
