import ArgumentParser
import Foundation
import Navidrome
import Pipeline

struct NavidromeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "navidrome", abstract: "Navidrome integration.",
                                                    subcommands: [Import.self, Rescan.self])

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Map Navidrome's tracks to library files (read-only on its database).",
            discussion: """
                Stores Navidrome id → file in the table navidrome_tracks; unresolved tracks are listed. Of a Navidrome \
                with several libraries, only those whose tracks are this library's files are mapped; the others are \
                named and left out. Navidrome may run: its database is read, never written.
                """)
        @OptionGroup var global: GlobalOptions
        @Option(name: .customLong("navidrome-db"), help: "Navidrome's navidrome.db.") var navidromeDB: String

        func run() throws {
            try runCommand {
                let settings = try global.settings()
                // It replaces navidrome_tracks: one writer at a time, as analyze, run and merge (exit 4 while one runs).
                let lock = try RunLock(databasePath: settings.databasePath, command: "navidrome import")
                defer { withExtendedLifetime(lock) {} }
                let (database, root) = try LibraryJobs.open(settings)
                let report = try NavidromeImport.run(navidromeDB: navidromeDB, database: database, root: root)
                print(report.summary)
                if report.oversized > 0 {
                    print("passed over: \(report.oversized) row(s) of media_file whose id or path is longer than any real one")
                }
                for other in report.otherLibraries {
                    let tracks = other.tracks == 1 ? "1 track" : "\(other.tracks) tracks"
                    print("left out: \(tracks) of Navidrome library \(other.library), whose files are not in this library")
                }
                ImportListing.print(byStrategy: report.byStrategy, unresolved: report.unresolved, verbosity: global.verbosity)
                return report.unresolved.isEmpty ? 0 : 3
            }
        }
    }

    struct Rescan: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Ask a Subsonic server to rescan (startScan), retrying transient failures.",
            discussion: """
                The password is read from --password-file or from $SPINDLE_SUBSONIC_PASSWORD and never sent: each \
                request carries md5(password + a fresh salt). --password works too, but other users see it in `ps`. \
                The user must be an admin on Navidrome.
                """)
        @OptionGroup var global: GlobalOptions
        @Option(help: "Server address, e.g. http://localhost:4533.") var url: String
        @Option(help: "User name.") var user: String
        @Option(name: .customLong("password-file"), help: "A file whose first line is the password (chmod 600 it).")
        var passwordFile: String?
        @Option(help: "The password (visible to other users in `ps`: prefer --password-file).") var password: String?
        @Option(help: "Token: md5(password + salt).") var token: String?
        @Option(help: "Salt used for the token.") var salt: String?

        func run() throws {
            try runCommand {
                guard let given = URL(string: url), given.scheme == "http" || given.scheme == "https", given.host != nil else {
                    throw CommandFailure.usage("--url must be an http(s) address")
                }
                let base = SubsonicClient.withoutUserInfo(given)
                let credentials: SubsonicClient.Credentials
                if let token, let salt {
                    credentials = .token(token: token, salt: salt)
                } else if let passwordFile {
                    credentials = .password(try SecretFiles.password(file: passwordFile, warn: printError))
                } else if let password {
                    printError("warning: --password is visible to other users in `ps`; use --password-file or \(SecretFiles.passwordVariable)")
                    credentials = .password(password)
                } else if let password = ProcessInfo.processInfo.environment[SecretFiles.passwordVariable], !password.isEmpty {
                    credentials = .password(password)
                } else if let password = URLComponents(url: given, resolvingAgainstBaseURL: false)?.password, !password.isEmpty {
                    printError("warning: a password in --url is visible to other users in `ps`; use --password-file")
                    credentials = .password(password)
                } else {
                    throw CommandFailure.usage("give --password-file FILE (or set \(SecretFiles.passwordVariable)), or --token with --salt")
                }
                let client = SubsonicClient(baseURL: base, user: user, credentials: credentials)
                do {
                    let attempts = try client.startScan { message in
                        if global.verbosity > .quiet { printError(message) }
                    }
                    if global.verbosity > .quiet { print("rescan started on \(base.absoluteString) (attempt \(attempts))") }
                    return 0
                } catch let failure as SubsonicClient.Failure {
                    throw CommandFailure.fatal("rescan failed: \(failure.description)")
                }
            }
        }
    }
}
