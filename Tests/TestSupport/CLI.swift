import Foundation

/// Runs the built `spindle` executable (next to the test bundle) and captures its output.
public enum CLI {
    public struct Result {
        public var status: Int32
        public var stdout: String
        public var stderr: String
    }

    public static var executable: String {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent("spindle").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return Bundle.main.bundleURL.appendingPathComponent("spindle").path
    }

    private static func process(_ arguments: [String], environment: [String: String], shell: Bool = false) -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: shell ? "/bin/bash" : executable)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "SPINDLE_DB")
        env.removeValue(forKey: "MUSIC_DIR")
        for (k, v) in environment { env[k] = v }
        process.environment = env
        return process
    }

    /// Starts `spindle` without waiting (for kill and lock tests); output is discarded, or standard error
    /// goes to the file `stderr` (its workers' too), to be read while it runs.
    public static func start(_ arguments: [String], environment: [String: String] = [:], stderr: String? = nil) throws -> Process {
        let p = process(arguments, environment: environment)
        p.standardOutput = FileHandle.nullDevice
        if let stderr {
            FileManager.default.createFile(atPath: stderr, contents: nil)
            p.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderr))
        } else {
            p.standardError = FileHandle.nullDevice
        }
        try p.run()
        return p
    }

    /// Runs `spindle` as a user without privileges (nobody, or the user id `user`, through util-linux's
    /// `setpriv`) when the tests run as root, who can read any folder whatever its mode; as the tests' own user
    /// otherwise. `groups`: the user's supplementary groups (none by default). Nil when that user cannot run the
    /// executable here (a build under a folder only root may enter).
    public static func runUnprivileged(_ arguments: [String], user: UInt32 = 65534, groups: [UInt32] = []) throws -> Result? {
        guard getuid() == 0 else { return try run(arguments) }
        let membership = groups.isEmpty ? "--clear-groups" : "--groups=" + groups.map(String.init).joined(separator: ",")
        let script = #"exec setpriv --reuid=\#(user) --regid=\#(user) \#(membership) "$0" "$@""#
        guard try run(["-c", script, executable, "--version"], shell: true).status == 0 else { return nil }
        return try run(["-c", script, executable] + arguments, shell: true)
    }

    @discardableResult
    /// `shell`: the arguments go to bash instead (`-c SCRIPT spindle ARGS...`), to set limits before exec.
    /// `folder`: the current folder it runs in (relative paths are typed from there).
    public static func run(_ arguments: [String], environment: [String: String] = [:], shell: Bool = false,
                           folder: String? = nil) throws -> Result {
        let process = process(arguments, environment: environment, shell: shell)
        if let folder { process.currentDirectoryURL = URL(fileURLWithPath: folder) }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                      stderr: String(decoding: errData, as: UTF8.self))
    }
}
