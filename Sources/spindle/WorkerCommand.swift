import ArgumentParser
import Pipeline

/// Hidden: the worker process a run supervises (jobs on standard input, replies on standard output).
struct WorkerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "worker", abstract: "Internal worker process.",
                                                    shouldDisplay: false)
    @Option var settings: String

    func run() throws {
        let code = WorkerMain.run(settingsJSON: settings)
        if code != 0 { throw ExitCode(code) }
    }
}
