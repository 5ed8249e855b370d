import ArgumentParser
import Dispatch
import Foundation
import Navidrome
import Pipeline
import Server

struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the database to players over HTTP (the Navidrome companion's read endpoints).",
        discussion: """
            Answers GET /health, /smart-dj/profile?relative_path=, /smart-dj/bulk-profiles?paths=a,b,c \
            (or POST a JSON list), /visualizer/frames?relative_path= [&format=bytes], \
            /similar?relative_path= [&n=], /mix?seed= [&n=&format=json|m3u] and /metrics (Prometheus). \
            Paths go through the four-strategy resolver, as the companion's did; a 404 lists the paths \
            tried. The database is opened read-only, so nightly runs can write while it serves; it is \
            reopened when replaced, and requests get a 503 while it cannot be read.

            Listens on 127.0.0.1:8000 unless told otherwise. With --token-file, every route but /health \
            needs the header Authorization: Bearer <the file's first line>. Stops on SIGINT or SIGTERM.
            """)

    @OptionGroup var global: GlobalOptions
    @Option(help: ArgumentHelp("Address and port to listen on: HOST:PORT, [IPv6]:PORT or PORT (0: any free port).",
                               valueName: "addr:port"))
    var listen = "127.0.0.1:8000"
    @Option(help: ArgumentHelp("File whose first line is the bearer token clients must send.", valueName: "file"))
    var tokenFile: String?
    @Option(help: "Most paths one bulk-profiles request may ask for.") var maxPaths = 1000
    @Option(help: "Most connections open at once; more are closed as they open.") var maxConnections = 256

    func validate() throws {
        guard maxPaths >= 1 else { throw ValidationError("--max-paths must be at least 1") }
        guard maxConnections >= 1 else { throw ValidationError("--max-connections must be at least 1") }
    }

    func run() throws {
        try runCommand {
            var options = ServeOptions()
            do { try options.setListen(listen) } catch let error as ServeOptionsError {
                throw CommandFailure.usage(error.description)
            }
            options.maxPaths = maxPaths
            options.maxConnections = maxConnections
            options.tokenFile = tokenFile
            let token = try tokenFile.map { file in
                do {
                    return try SecretFiles.firstLine(of: file, holding: "the API token", called: "token file", warn: printError)
                } catch let error as NavidromeError { throw CommandFailure.usage(error.description) }
            }
            let settings = try global.settings()
            let server = SpindleServer(settings: settings, options: options, token: token)
            let host = options.host.contains(":") ? "[\(options.host)]" : options.host
            let quiet = global.quiet
            let unguarded = token == nil && options.reachableFromOtherMachines
            return try Self.block {
                try await server.run { port in
                    if !quiet {
                        printError("serving \(settings.databasePath) on http://\(host):\(port)\(token == nil ? "" : " (bearer token required)")")
                    }
                    // Said even with --quiet: an open library on the network is not news to silence.
                    if unguarded {
                        printError("warning: listening on \(host) without --token-file: anyone who can reach this port reads "
                            + "every path in the library and its analysis; give a token file (see `spindle serve --help`)")
                    }
                    guard !quiet else { return }
                    if let problem = server.databaseProblem() {
                        printError("warning: requests get 503 until this is mended: \(problem)")
                    }
                    if let problem = server.sharingProblem() { printError("warning: \(problem)") }
                    if let problem = server.storageProblem() { printError("warning: \(problem)") }
                }
            }
        }
    }

    /// Runs the server on the concurrency pool and waits on this thread until it stops.
    private static func block(_ body: @escaping @Sendable () async throws -> Void) throws -> Int32 {
        let done = DispatchSemaphore(value: 0)
        let failure = LockedFailure()
        Task {
            do { try await body() } catch { failure.set(error) }
            done.signal()
        }
        done.wait()
        if let error = failure.error { throw CommandFailure.fatal("serve: \(error)") }
        return 0
    }
}

/// The server's error, handed from its task to the waiting thread.
private final class LockedFailure: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: (any Error)?
    func set(_ error: any Error) { lock.withLock { stored = error } }
    var error: (any Error)? { lock.withLock { stored } }
}
