import Foundation
import Pipeline

/// DESIGN's form is `spindle [--db FILE] [--library DIR] [--config FILE] <command>`: global options may come
/// before the command name, where swift-argument-parser does not look for a subcommand's options. Move them
/// to the end (before a `--`, if any), where every command's `GlobalOptions` picks them up.
func reorderGlobalOptions(_ arguments: [String]) -> [String] {
    let valued: Set<String> = ["--db", "--library", "--config"]
    let flags: Set<String> = ["--quiet", "-q", "--verbose", "-v"]
    var moved: [String] = []
    var rest: [String] = []
    var i = 0
    var sawCommand = false
    while i < arguments.count {
        let a = arguments[i]
        if !sawCommand {
            if valued.contains(a), i + 1 < arguments.count {
                moved += [a, arguments[i + 1]]
                i += 2
                continue
            }
            if valued.contains(where: { a.hasPrefix($0 + "=") }) || flags.contains(a) {
                moved.append(a)
                i += 1
                continue
            }
            if !a.hasPrefix("-") { sawCommand = true }
        }
        rest.append(a)
        i += 1
    }
    guard !moved.isEmpty else { return arguments }
    if let dashes = rest.firstIndex(of: "--") {
        rest.insert(contentsOf: moved, at: dashes)
        return rest
    }
    return rest + moved
}

/// Parses and runs; DESIGN's exit code for usage errors is 2, where swift-argument-parser uses 64.
func runSpindle() -> Never {
    do {
        var command = try Spindle.parseAsRoot(reorderGlobalOptions(Array(CommandLine.arguments.dropFirst())))
        try command.run()
        exit(0)
    } catch {
        let code = Spindle.exitCode(for: error)
        if code == .validationFailure {
            writeStandardError(Spindle.fullMessage(for: error) + "\n")
            exit(2)
        }
        Spindle.exit(withError: error)
    }
}

// A file-size limit (ulimit -f) must fail a write with EFBIG, which the tag writer detects and survives,
// rather than kill the process mid-batch.
signal(SIGXFSZ, SIG_IGN)
RunningProgram.workersRunThisProgram()
runSpindle()
